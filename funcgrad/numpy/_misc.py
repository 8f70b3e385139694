"""More functions of `funcgrad.numpy`: casts, vector products, sets, strings and files.

* `astype` and `require` cast a node differentiably to another float dtype.
* `vecdot`, `matvec`, `vecmat` (NumPy 2.2's names) are products written
  with `sum`, `multiply` and `matmul`.
* The set functions `union1d`, `intersect1d`, `setdiff1d`, `setxor1d`
  return entries of their inputs, so, like `unique`, with graph nodes they
  are a `getitem` of the inputs at the first occurrence of each value:
  gradients flow back there. Which values are kept is read from the values
  (piecewise constant).
* Formatting (`array2string`, `array_repr`, `array_str`, `base_repr`,
  `binary_repr`) and saving (`save`, `savez`) read a node's value;
  `einsum_path` reads only the operands' shapes. Reading arrays
  (`load`, `frombuffer`, `fromfile`, `fromstring`), `frompyfunc` and
  `from_dlpack` are NumPy's own functions: they make plain arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as _np
from numpy import from_dlpack, frombuffer, fromfile, frompyfunc, fromstring, load

from funcgrad.backend import freeze as _freeze
from funcgrad.errors import OpError as _OpError
from funcgrad.errors import ReadOnlyError as _ReadOnlyError
from funcgrad.graph import Node as _Node
from funcgrad.numpy._creation import _cast
from funcgrad.numpy._kinds import value_only as _value_only
from funcgrad.numpy._shape import moveaxis as _moveaxis
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import reduce as _reduce
from funcgrad.ops import shape as _sh
from funcgrad.ops._util import describe as _describe
from funcgrad.ops._util import value_of as _value_of
from funcgrad.ops.index import getitem as _getitem
from funcgrad.ops.linalg import matmul as _matmul

__all__ = [
    "array2string",
    "array_repr",
    "array_str",
    "astype",
    "base_repr",
    "binary_repr",
    "einsum_path",
    "from_dlpack",
    "frombuffer",
    "fromfile",
    "frompyfunc",
    "fromstring",
    "intersect1d",
    "load",
    "matvec",
    "real_if_close",
    "require",
    "save",
    "savez",
    "setdiff1d",
    "setxor1d",
    "union1d",
    "vecdot",
    "vecmat",
]


def _value(a: Any) -> Any:
    return a.value if type(a) is _Node else a


def _values(obj: Any) -> Any:
    t = type(obj)
    if t is _Node:
        return obj.value
    if t is list or t is tuple:
        return t(_values(o) for o in obj)
    return obj


# --- casts ----------------------------------------------------------------------------------


def astype(x: Any, dtype: Any, /, *, copy: bool = True, device: Any = None):
    """Return `x` cast to `dtype` (NumPy 2's function form of `ndarray.astype`).

    With a graph node, a cast between float (or complex) dtypes is
    differentiable (the gradient is cast back to `x`'s dtype); a cast to an
    integer or boolean dtype gives plain values (piecewise constant: no
    gradient). A node is immutable, so `copy` does not matter for it.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.astype(np.array([1.5, 2.5]), np.float32)
        array([1.5, 2.5], dtype=float32)
        >>> fg.grad(lambda x: fnp.sum(fnp.astype(x, np.float32) * 2.0))(np.ones(2))
        array([2., 2.])
    """
    if type(x) is not _Node:
        return _np.astype(x, dtype, copy=copy, device=device)
    return _cast(x, dtype)


_WRITE = {"W", "WRITEABLE"}


def require(a: Any, dtype: Any = None, requirements: Any = None, *, like: Any = None):
    """Return `a` as an array of `dtype` that meets `requirements` (NumPy's `require`).

    With a graph node, `dtype` casts it as `astype` does; the memory-layout
    requirements (`"C"`, `"F"`, `"A"`, `"O"`, `"E"`) concern NumPy's
    buffers and change no value, so they are accepted and ignored; `"W"`
    (writeable) is refused: a node's value is read-only.

    Raises:
        ReadOnlyError: For a node and the requirement `"W"`.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.require([1, 2], dtype=np.float32, requirements="C")
        array([1., 2.], dtype=float32)
    """
    if type(a) is not _Node:
        if like is None:
            return _np.require(a, dtype, requirements)
        return _np.require(a, dtype, requirements, like=like)
    reqs = {requirements} if isinstance(requirements, str) else set(requirements or ())
    if {r.upper() for r in reqs} & _WRITE:
        raise _ReadOnlyError(
            f"funcgrad.numpy.require: a graph node ({_describe(a)}) is immutable, so it cannot be "
            f"made writeable (requirements={requirements!r}); use node.value.copy() for a "
            f"writeable plain copy, or the out-of-place functions (put(..., inplace=False))"
        )
    return a if dtype is None else _cast(a, dtype)


# --- vector products ------------------------------------------------------------------------


def _conj(x: Any) -> Any:
    """Return the conjugate of `x` (the identity on real dtypes)."""
    if _np.dtype(x.dtype).kind != "c":
        return x
    # NOTE: cycle funcgrad.numpy imports this module; the namespace is read at call time
    import funcgrad.numpy as fnp

    return fnp.conjugate(x)


def _arr(a: Any) -> Any:
    return a if type(a) is _Node or hasattr(a, "shape") else _np.asarray(a)


def _check_core(op: str, n1: int, n2: int, s1: Any, s2: Any) -> None:
    if n1 != n2:
        raise _OpError(
            f"funcgrad.numpy.{op}: the core dimensions of shapes {tuple(s1)} and {tuple(s2)} "
            f"differ ({n1} != {n2}); they must be equal (no broadcasting there, as NumPy)"
        )


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1):
    """Return the dot product of vectors along `axis`, `sum(conj(x1) * x2, axis)` (NumPy 2's).

    The other axes broadcast. The first argument is conjugated (complex).

    Raises:
        OpError: If the two vector lengths differ, or an operand is 0-d.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.vecdot([[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0])
        array([3., 7.])
    """
    x1, x2 = _arr(x1), _arr(x2)
    if type(x1) is not _Node and type(x2) is not _Node:
        return _np.vecdot(x1, x2, axis=axis)  # type: ignore[call-overload]
    if not x1.shape or not x2.shape:
        raise _OpError(
            f"funcgrad.numpy.vecdot: operands of shapes {tuple(x1.shape)} and "
            f"{tuple(x2.shape)}: both need at least one dimension"
        )
    _check_core("vecdot", x1.shape[axis], x2.shape[axis], x1.shape, x2.shape)
    # Each operand's vector axis is moved last before broadcasting, as NumPy's gufunc does.
    a = _moveaxis(_conj(x1), axis, -1)
    b = _moveaxis(x2, axis, -1)
    return _reduce.sum_(_ew.multiply(a, b), axis=(-1,), keepdims=False)


def matvec(x1: Any, x2: Any, /):
    """Return the matrix-vector products of `x1` (`(..., m, n)`) and `x2` (`(..., n)`): `(..., m)`.

    NumPy 2.2's `matvec`; the leading axes broadcast. No conjugation.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.matvec([[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0])
        array([3., 7.])
    """
    x1, x2 = _arr(x1), _arr(x2)
    if type(x1) is not _Node and type(x2) is not _Node:
        return _np.matvec(x1, x2)
    if len(x1.shape) < 2 or len(x2.shape) < 1:
        raise _OpError(
            f"funcgrad.numpy.matvec: shapes {tuple(x1.shape)} and {tuple(x2.shape)}: need a "
            f"matrix (..., m, n) and a vector (..., n)"
        )
    _check_core("matvec", x1.shape[-1], x2.shape[-1], x1.shape, x2.shape)
    column = _sh.expand_dims(x2, axis=(-1,)) if type(x2) is _Node else x2[..., None]
    out = _matmul(x1, column)
    return _getitem(out, index=(Ellipsis, 0))


def vecmat(x1: Any, x2: Any, /):
    """Return the vector-matrix products of `x1` (`(..., n)`) and `x2` (`(..., n, m)`): `(..., m)`.

    NumPy 2.2's `vecmat`: the vector is conjugated (complex); the leading
    axes broadcast.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.vecmat([1.0, 1.0], [[1.0, 2.0], [3.0, 4.0]])
        array([4., 6.])
    """
    x1, x2 = _arr(x1), _arr(x2)
    if type(x1) is not _Node and type(x2) is not _Node:
        return _np.vecmat(x1, x2)
    if len(x1.shape) < 1 or len(x2.shape) < 2:
        raise _OpError(
            f"funcgrad.numpy.vecmat: shapes {tuple(x1.shape)} and {tuple(x2.shape)}: need a "
            f"vector (..., n) and a matrix (..., n, m)"
        )
    _check_core("vecmat", x1.shape[-1], x2.shape[-2], x1.shape, x2.shape)
    x1 = _conj(x1)
    row = _sh.expand_dims(x1, axis=(-2,)) if type(x1) is _Node else x1[..., None, :]
    out = _matmul(row, x2)
    return _getitem(out, index=(Ellipsis, 0, slice(None)))


@_value_only
def einsum_path(
    subscripts: Any, *operands: Any, optimize: Any = "greedy", einsum_call: bool = False
):
    """Return NumPy's contraction order for `einsum` (its `einsum_path`), from the operands' shapes.

    Graph nodes are read for their shapes only: the result is a plan (a
    list and a report), with nothing to differentiate.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.einsum_path("ij,jk->ik", np.ones((2, 3)), np.ones((3, 4)))[0]
        ['einsum_path', (0, 1)]
    """
    return _np.einsum_path(
        subscripts,
        *_values(operands),
        optimize=optimize,
        einsum_call=einsum_call,  # type: ignore[arg-type]
    )


# --- sets: entries of the inputs ------------------------------------------------------------


def _entries(result: Any, arrays: list[Any]) -> Any:
    """Return `result` (values of `arrays`' entries) as a gather of their first occurrences.

    Plain `result` if no node is among `arrays` or it is not a float array.
    """
    if not any(type(a) is _Node for a in arrays) or result.dtype.kind not in "fc":
        return result
    flat = [
        _sh.reshape(
            _ew.astype(a, dtype=result.dtype) if a.dtype != result.dtype else a, shape=(-1,)
        )
        if type(a) is _Node
        else _np.asarray(a, dtype=result.dtype).reshape(-1)
        for a in arrays
    ]
    source = _sh.concatenate(*flat, axis=0) if len(flat) > 1 else flat[0]
    values = _np.asarray(_value(source))
    unique, first = _np.unique(values, return_index=True)
    index = first[_np.searchsorted(unique, result)] if result.size else first[:0]
    return _getitem(source, index=(_freeze(index.astype(_np.intp)),))


def union1d(ar1: Any, ar2: Any):
    """Return the sorted unique values of `ar1` and `ar2` together (NumPy's `union1d`).

    With graph nodes each value is its first occurrence in `ar1`, then
    `ar2` (flattened), and its gradient flows back there (as `unique`).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.union1d([3.0, 1.0], [2.0, 1.0])
        array([1., 2., 3.])
    """
    return _entries(_np.union1d(_value(ar1), _value(ar2)), [ar1, ar2])


def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False, return_indices: bool = False):
    """Return the sorted values found in both `ar1` and `ar2` (NumPy's `intersect1d`).

    With graph nodes each value is taken from `ar1` (its first occurrence),
    so its gradient flows to `ar1` only: `ar2` only selects. The indices
    (with `return_indices`) are NumPy's.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.intersect1d([3.0, 1.0, 2.0], [2.0, 3.0, 5.0])
        array([2., 3.])
    """
    v1, v2 = _value(ar1), _value(ar2)
    if not return_indices:
        return _entries(_np.intersect1d(v1, v2, assume_unique), [ar1, ar2])
    out, i1, i2 = _np.intersect1d(v1, v2, assume_unique, return_indices=True)
    if type(ar1) is _Node and out.dtype.kind in "fc":
        node = _sh.reshape(ar1, shape=(-1,))
        if node.dtype != out.dtype:
            node = _ew.astype(node, dtype=out.dtype)
        out = _getitem(node, index=(_freeze(i1),))
    elif type(ar2) is _Node and out.dtype.kind in "fc":
        out = _entries(out, [ar1, ar2])
    return out, i1, i2


def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False):
    """Return the values of `ar1` not in `ar2`, sorted and unique (NumPy's `setdiff1d`).

    With graph nodes each value is its first occurrence in `ar1` (with
    `assume_unique=True`, each kept entry itself); `ar2` only selects.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.setdiff1d([3.0, 1.0, 2.0], [2.0])
        array([1., 3.])
    """
    v1, v2 = _value(ar1), _value(ar2)
    result = _np.setdiff1d(v1, v2, assume_unique)
    if type(ar1) is not _Node or result.dtype.kind not in "fc":
        return result
    flat = _sh.reshape(
        ar1 if ar1.dtype == result.dtype else _ew.astype(ar1, dtype=result.dtype), shape=(-1,)
    )
    if assume_unique:
        keep = _np.flatnonzero(~_np.isin(_np.ravel(v1), v2, assume_unique=True))
        return _getitem(flat, index=(_freeze(keep),))
    return _entries(result, [flat])


def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False):
    """Return the sorted values in exactly one of `ar1` and `ar2` (NumPy's `setxor1d`).

    With graph nodes each value is its first occurrence in `ar1`, then `ar2`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.setxor1d([3.0, 1.0], [2.0, 1.0])
        array([2., 3.])
    """
    return _entries(_np.setxor1d(_value(ar1), _value(ar2), assume_unique), [ar1, ar2])


# --- strings and files: the values ------------------------------------------------------------


@_value_only
def array2string(a: Any, *args: Any, **kwargs: Any) -> str:
    """Return a string of the entries of `a` (NumPy's `array2string`; a node's value).

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.array2string(fg.leaf([1.0, 2.0]))
        '[1. 2.]'
    """
    return _np.array2string(_value(a), *args, **kwargs)


@_value_only
def array_repr(arr: Any, *args: Any, **kwargs: Any) -> str:
    """Return the `repr` of the array `arr` (NumPy's `array_repr`; a node's value).

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.array_repr(fg.leaf([1.0, 2.0]))
        'array([1., 2.])'
    """
    return _np.array_repr(_value(arr), *args, **kwargs)


@_value_only
def array_str(a: Any, *args: Any, **kwargs: Any) -> str:
    """Return the `str` of the array `a` (NumPy's `array_str`; a node's value).

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.array_str(fg.leaf([1.0, 2.0]))
        '[1. 2.]'
    """
    return _np.array_str(_value(a), *args, **kwargs)


@_value_only
def base_repr(number: Any, base: int = 2, padding: int = 0) -> str:
    """Return the digits of the integer `number` in `base` (NumPy's `base_repr`).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.base_repr(10, 3)
        '101'
    """
    return _np.base_repr(_value(number), base, padding)


@_value_only
def binary_repr(num: Any, width: int | None = None) -> str:
    """Return the binary digits of the integer `num` (NumPy's `binary_repr`).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.binary_repr(5)
        '101'
    """
    return _np.binary_repr(_value(num), width)


@_value_only
def save(file: Any, arr: Any, allow_pickle: bool = True, **kwargs: Any) -> None:
    """Save `arr` (a node's value) to a `.npy` file (NumPy's `save`); `load` reads it back.

    Examples:
        >>> import io, funcgrad as fg, funcgrad.numpy as fnp
        >>> buffer = io.BytesIO()
        >>> fnp.save(buffer, fg.leaf([1.0, 2.0]))
        >>> _ = buffer.seek(0)
        >>> fnp.load(buffer)
        array([1., 2.])
    """
    _np.save(file, _value(arr), allow_pickle, **kwargs)


@_value_only
def savez(file: Any, *args: Any, allow_pickle: bool = True, **kwds: Any) -> None:
    """Save several arrays (nodes' values) to one `.npz` file (NumPy's `savez`).

    Examples:
        >>> import io, funcgrad as fg, funcgrad.numpy as fnp
        >>> buffer = io.BytesIO()
        >>> fnp.savez(buffer, x=fg.leaf([1.0, 2.0]))
        >>> _ = buffer.seek(0)
        >>> fnp.load(buffer)["x"]
        array([1., 2.])
    """
    _np.savez(
        file,
        *[_value(a) for a in args],
        allow_pickle=allow_pickle,
        **{k: _value(v) for k, v in kwds.items()},
    )


def real_if_close(a: Any, tol: float = 100) -> Any:
    """Return the real part of `a` if all its imaginary parts are close to 0, else `a` (NumPy's).

    Close means below `tol` machine epsilons of `a`'s dtype (`tol` itself
    when it is at most 1). Which of the two is returned is read from the
    values; either is differentiable: `real(a)` (the gradient of the real
    part) or `a` unchanged. A real `a` is returned as it is.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.real_if_close([2.1 + 4e-15j, 5.2 + 3e-15j])
        array([2.1, 5.2])
    """
    if type(a) is not _Node:
        a = _np.asanyarray(a)
    v = _value_of(a)  # under funcgrad.jit: a read the trace sees (eager if dynamic)
    if v.dtype.kind != "c":
        return a
    if tol > 1:
        tol = _np.finfo(v.dtype).eps * tol
    if not bool(_np.all(_np.absolute(v.imag) < tol)):
        return a
    return _ew.real(a) if type(a) is _Node else v.real

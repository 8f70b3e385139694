"""Creating arrays in `funcgrad.numpy`: `array`, `zeros`, `linspace`, `meshgrid`, `r_` ...

On plain values these are NumPy's functions and give NumPy's arrays. Where
a graph node takes part, the result is a node and gradients flow back:
`array([x, 1.0, y])` (nested lists too) stacks the nodes, `array(x)` and
`asarray(x)` return `x` itself (nodes are immutable, so nothing is to be
copied), `array(x, dtype=float32)` casts differentiably, `full(shape, x)`
broadcasts `x`, and `linspace`, `logspace`, `geomspace`, `meshgrid`, `r_`
and `c_` are compositions of primitives when their arguments are nodes.
Functions that only take shapes (`zeros`, `eye`, `arange`, `mgrid`, `tri`,
`indices` ...) are NumPy's own.
"""

from __future__ import annotations

from typing import Any

import numpy as _np
from numpy import (
    arange,
    diag_indices,
    empty,
    eye,
    fromfunction,
    fromiter,
    identity,
    indices,
    ix_,
    mask_indices,
    mgrid,
    ogrid,
    ones,
    tri,
    tril_indices,
    triu_indices,
    zeros,
)

from funcgrad.backend import is_inexact as _is_inexact
from funcgrad.graph import Node as _Node
from funcgrad.numpy import _kinds
from funcgrad.numpy._adapters import shape as _as_shape
from funcgrad.numpy._shape import concatenate as _concatenate
from funcgrad.numpy._shape import moveaxis as _moveaxis
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import shape as _sh
from funcgrad.ops._util import value_of as _value_of

# NumPy without its overloaded stubs, for calls that pass arguments through as they came.
_numpy: Any = _np

__all__ = [
    "arange",
    "array",
    "asanyarray",
    "asarray",
    "asarray_chkfinite",
    "ascontiguousarray",
    "asfortranarray",
    "c_",
    "copy",
    "diag_indices",
    "empty",
    "empty_like",
    "eye",
    "fromfunction",
    "fromiter",
    "full",
    "full_like",
    "geomspace",
    "identity",
    "indices",
    "ix_",
    "linspace",
    "logspace",
    "mask_indices",
    "meshgrid",
    "mgrid",
    "ogrid",
    "ones",
    "ones_like",
    "r_",
    "tri",
    "tril_indices",
    "triu_indices",
    "zeros",
    "zeros_like",
]


def _has_node(obj: Any) -> bool:
    t = type(obj)
    if t is _Node:
        return True
    if t is list or t is tuple:
        return any(_has_node(o) for o in obj)
    return False


def _stacked(obj: Any) -> Any:
    """Return a nested list or tuple holding nodes as one node: its items stacked, level by level."""
    if type(obj) is _Node:
        return obj
    if (type(obj) is list or type(obj) is tuple) and _has_node(obj):
        return _sh.stack(*(_stacked(o) for o in obj), axis=0)
    return _np.asarray(obj)


def _cast(x: _Node, dtype: Any) -> Any:
    """Return node `x` as `dtype`: a differentiable cast to an inexact dtype, else plain values."""
    if dtype is None:
        return x
    dtype = _np.dtype(dtype)
    if dtype == x.dtype:
        return x
    if _is_inexact(dtype):
        return _ew.astype(x, dtype=dtype)
    # NOTE: integer and boolean results are piecewise constant: plain values, no gradient.
    # Read through value_of, which jit follows: a step of its plan, not the trace's values
    # (funcgrad.numpy.astype, array(x, dtype=int) and the ufuncs' dtype= use this cast).
    out = _value_of(x).astype(dtype)  # a method: jit's traced value sees it (asarray does not)
    return _np.asarray(out) if isinstance(out, _np.generic) else out


def _node_array(obj: Any, dtype: Any, ndmin: int) -> Any:
    out = _cast(_stacked(obj), dtype)
    if type(out) is _Node and out.ndim < ndmin:
        out = _sh.reshape(out, shape=(1,) * (ndmin - out.ndim) + out.shape)
    elif type(out) is not _Node and out.ndim < ndmin:
        out = out.reshape((1,) * (ndmin - out.ndim) + out.shape)
    return out


def array(object: Any, dtype: Any = None, *, copy: bool = True, ndmin: int = 0, **kwargs: Any):  # noqa: A002
    """Return an array of `object`: NumPy's `array`, differentiable where nodes take part.

    A node is returned as it is (cast if `dtype` is an inexact dtype other
    than its own); a list or tuple holding nodes, nested to any depth,
    becomes one node that stacks its items, so each entry's gradient flows
    back to where it came from. An integer or boolean `dtype` gives plain
    values (a piecewise constant result has no gradient).

    Args:
        object: An array, a node, a number, or nested lists and tuples of them.
        dtype: The dtype of the result (default: NumPy's choice).
        copy: Whether a plain array is copied (nodes are immutable and never are).
        ndmin: The least number of dimensions of the result.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> fg.grad(lambda x: fnp.sum(fnp.array([x, 2.0 * x, 1.0]) ** 2))(3.0)
        30.0
    """
    if _has_node(object):
        return _node_array(object, dtype, ndmin)
    return _np.array(object, dtype=dtype, copy=copy, ndmin=ndmin, **kwargs)


def asarray(a: Any, dtype: Any = None, order: Any = None, **kwargs: Any):
    """Return `a` as an array, without copying what is one already (nodes included).

    Like `array`, a list of nodes becomes one differentiable node.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> x = fg.leaf(2.0)
        >>> fnp.asarray(x) is x
        True
    """
    if _has_node(a):
        return _node_array(a, dtype, 0)
    return _np.asarray(a, dtype=dtype, order=order, **kwargs)


def asanyarray(a: Any, dtype: Any = None, order: Any = None, **kwargs: Any):
    """Return `a` as an array, keeping NumPy subclasses and nodes as they are (see `asarray`).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.asanyarray([1.0, 2.0])
        array([1., 2.])
    """
    if _has_node(a):
        return _node_array(a, dtype, 0)
    return _np.asanyarray(a, dtype=dtype, order=order, **kwargs)


def ascontiguousarray(a: Any, dtype: Any = None, **kwargs: Any):
    """Return `a` as a C-contiguous array (a node is returned as it is, see `asarray`).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.ascontiguousarray([1.0]).flags.c_contiguous
        True
    """
    if _has_node(a):
        return _node_array(a, dtype, 1)
    return _np.ascontiguousarray(a, dtype=dtype, **kwargs)


def asfortranarray(a: Any, dtype: Any = None, **kwargs: Any):
    """Return `a` as a Fortran-ordered array of at least one dimension (see `asarray`).

    A node of one or more dimensions is returned as it is; a 0-d one becomes
    shape `(1,)`, as in NumPy.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.asfortranarray([[1.0]]).flags.f_contiguous
        True
    """
    if _has_node(a):
        return _node_array(a, dtype, 1)
    return _np.asfortranarray(a, dtype=dtype, **kwargs)


def asarray_chkfinite(a: Any, dtype: Any = None, order: Any = None):
    """Return `a` as an array (see `asarray`), raising `ValueError` if a value is NaN or infinite.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.asarray_chkfinite([1.0, float("inf")])
        Traceback (most recent call last):
        ...
        ValueError: array must not contain infs or NaNs
    """
    out = asarray(a, dtype=dtype, order=order)
    _np.asarray_chkfinite(out.value if type(out) is _Node else out)
    return out


def copy(a: Any, order: Any = "K", subok: bool = False):
    """Return a copy of `a`; a node is immutable, so it is returned as it is.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> a = np.ones(2)
        >>> fnp.copy(a) is a
        False
    """
    if _has_node(a):
        return _node_array(a, None, 0)
    return _numpy.copy(a, order=order, subok=subok)


# --- filled arrays ----------------------------------------------------------------


def full(shape: Any, fill_value: Any, dtype: Any = None, order: Any = "C", **kwargs: Any):
    """Return an array of `shape` filled with `fill_value`, which may be a node (then broadcast).

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> fg.grad(lambda x: fnp.sum(fnp.full((2, 3), x)))(1.0)
        6.0
    """
    if _has_node(fill_value):
        filled = _sh.broadcast_to(_stacked(fill_value), shape=_as_shape(shape))
        return _cast(filled, dtype)
    return _np.full(shape, fill_value, dtype=dtype, order=order, **kwargs)


def _like(a: Any, dtype: Any, shape: Any) -> tuple[Any, tuple[int, ...]]:
    value = a.value if type(a) is _Node else _np.asarray(a)
    return (value.dtype if dtype is None else dtype), (
        value.shape if shape is None else _as_shape(shape)
    )


@_kinds.zero_gradient
def zeros_like(a: Any, dtype: Any = None, order: Any = "K", subok: bool = True, shape: Any = None):
    """Return zeros shaped and typed like `a` (an array or a node): plain values, no gradient.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.zeros_like(fg.leaf([1.0, 2.0]))
        array([0., 0.])
    """
    dtype, shape = _like(a, dtype, shape)
    return _np.zeros(shape, dtype=dtype)


@_kinds.zero_gradient
def ones_like(a: Any, dtype: Any = None, order: Any = "K", subok: bool = True, shape: Any = None):
    """Return ones shaped and typed like `a` (an array or a node): plain values, no gradient.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.ones_like([[1, 2]])
        array([[1, 1]])
    """
    dtype, shape = _like(a, dtype, shape)
    return _np.ones(shape, dtype=dtype)


@_kinds.zero_gradient
def empty_like(a: Any, dtype: Any = None, order: Any = "K", subok: bool = True, shape: Any = None):
    """Return an uninitialized array shaped and typed like `a` (an array or a node).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.empty_like([1.0, 2.0]).shape
        (2,)
    """
    dtype, shape = _like(a, dtype, shape)
    return _np.empty(shape, dtype=dtype)


def full_like(
    a: Any,
    fill_value: Any,
    dtype: Any = None,
    order: Any = "K",
    subok: bool = True,
    shape: Any = None,
):
    """Return `fill_value` (an array, number or node) broadcast to the shape of `a`, in its dtype.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> fg.grad(lambda x: fnp.sum(fnp.full_like([1.0, 2.0], x)))(3.0)
        2.0
    """
    dtype, shape = _like(a, dtype, shape)
    if _has_node(fill_value):
        return _cast(_sh.broadcast_to(_stacked(fill_value), shape=shape), dtype)
    return _np.full(shape, fill_value, dtype=dtype)


# --- ranges -----------------------------------------------------------------------


def _last(n: int, ndim: int) -> Any:
    """Return a boolean column that is true at the last of `n` entries, for `ndim` dimensions."""
    mask = _np.zeros((n,) + (1,) * ndim, dtype=bool)
    mask[-1] = True
    return mask


def _weak_value(x: Any) -> Any:
    """Return what decides `x`'s part in a result dtype: a Python number as it is (weak), else values."""
    if isinstance(x, (int, float, complex)):
        return x
    x = _stacked(x)
    return x.value if type(x) is _Node else x


def _stacked_as(x: Any, dtype: Any) -> Any:
    """Return `x` stacked (see `_stacked`) as `dtype`: a node cast differentiably, or plain values."""
    x = _stacked(x)
    return _cast(x, dtype) if type(x) is _Node else _np.asarray(x, dtype=dtype)


def linspace(
    start: Any,
    stop: Any,
    num: int = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: Any = None,
    axis: int = 0,
):
    """Return `num` evenly spaced values from `start` to `stop`, differentiable in both.

    Computed as NumPy computes it (`arange(num) * step + start`, the last
    value `stop` exactly), so the values are NumPy's.

    Args:
        start: The first value: a number, an array or a node.
        stop: The last value (the end, excluded, if not `endpoint`).
        num: How many values.
        endpoint: Whether `stop` is the last value.
        retstep: Whether to return `(values, step)`.
        dtype: The dtype of the result.
        axis: Where the new axis goes when `start` or `stop` is an array.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.linspace(0.0, 1.0, 5)
        array([0.  , 0.25, 0.5 , 0.75, 1.  ])
        >>> fg.grad(lambda b: fnp.sum(fnp.linspace(0.0, b, 5)))(1.0)
        2.5
    """
    if not (_has_node(start) or _has_node(stop)):
        return _numpy.linspace(start, stop, num, endpoint, retstep, dtype, axis)
    # NumPy's dtype: of start and stop (a Python number is weak), at least a float
    dt = _np.result_type(_weak_value(start), _weak_value(stop), 1.0)
    start, stop = _stacked_as(start, dt), _stacked_as(stop, dt)
    ndim = max(len(getattr(start, "shape", ())), len(getattr(stop, "shape", ())))
    div = (num - 1) if endpoint else num
    steps = _np.arange(num, dtype=dt).reshape((-1,) + (1,) * ndim)
    delta = stop - start
    step = delta / div if div > 0 else delta * _np.nan
    out = steps * step + start if div > 0 else steps * delta + start
    if endpoint and num > 1:
        out = _ew.where(_last(num, ndim), stop, out)
    if axis != 0:
        out = _moveaxis(out, 0, axis)
    if dtype is not None:
        out = _cast(out, dtype) if type(out) is _Node else _np.asarray(out, dtype=dtype)
    return (out, step) if retstep else out


def logspace(
    start: Any,
    stop: Any,
    num: int = 50,
    endpoint: bool = True,
    base: Any = 10.0,
    dtype: Any = None,
    axis: int = 0,
):
    """Return `base ** linspace(start, stop, num)`, differentiable in `start`, `stop` and `base`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.logspace(0.0, 2.0, 3)
        array([  1.,  10., 100.])
    """
    if not (_has_node(start) or _has_node(stop) or _has_node(base)):
        return _np.logspace(start, stop, num, endpoint, base, dtype, axis)
    y = linspace(start, stop, num, endpoint=endpoint, axis=axis)
    if _has_node(base):
        base = _stacked(base)
        if getattr(base, "ndim", 0):
            base = _sh.expand_dims(base, axis=axis)
    out = _ew.power(base, y)
    return out if dtype is None else _cast(out, dtype)


def geomspace(
    start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None, axis: int = 0
):
    """Return `num` values spaced evenly on a log scale from `start` to `stop` (both nonzero).

    With nodes, the values are `sign * exp(linspace(log|start|, log|stop|))`
    with the ends exactly `start` and `stop` (real values of one sign).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.geomspace(1.0, 1000.0, 4)
        array([   1.,   10.,  100., 1000.])
    """
    if not (_has_node(start) or _has_node(stop)):
        return _np.geomspace(start, stop, num, endpoint, dtype, axis)
    # NumPy's dtype: at least float64 (`dtype` only casts the result)
    dt = _np.result_type(_weak_value(start), _weak_value(stop), float(num), _np.float64)
    start, stop = _stacked_as(start, dt), _stacked_as(stop, dt)
    sign = _np.sign(start.value if type(start) is _Node else start)
    logs = linspace(
        _ew.log(_ew.absolute(start)), _ew.log(_ew.absolute(stop)), num, endpoint=endpoint
    )
    out = _ew.multiply(sign, _ew.exp(logs))
    ndim = len(out.shape) - 1
    if num > 0:
        first = _np.zeros((num,) + (1,) * ndim, dtype=bool)
        first[0] = True
        out = _ew.where(first, start, out)
    if endpoint and num > 1:
        out = _ew.where(_last(num, ndim), stop, out)
    if axis != 0:
        out = _moveaxis(out, 0, axis)
    return out if dtype is None else _cast(out, dtype)


def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy"):
    """Return coordinate arrays from coordinate vectors, differentiable in each vector.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> xx, yy = fnp.meshgrid([1.0, 2.0, 3.0], [4.0, 5.0])
        >>> xx.shape, yy[:, 0]
        ((2, 3), array([4., 5.]))
    """
    if not _has_node(xi):
        return _numpy.meshgrid(*xi, copy=copy, sparse=sparse, indexing=indexing)
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    vectors = [_sh.reshape(_stacked(x), shape=(-1,)) for x in xi]
    ndim = len(vectors)
    full_shape = [v.shape[0] for v in vectors]
    if indexing == "xy" and ndim > 1:
        full_shape[0], full_shape[1] = full_shape[1], full_shape[0]
    out = []
    for i, v in enumerate(vectors):
        at = (1 - i if i < 2 else i) if indexing == "xy" and ndim > 1 else i
        shape = [1] * ndim
        shape[at] = -1
        grid = _sh.reshape(v, shape=tuple(shape))
        out.append(grid if sparse else _sh.broadcast_to(grid, shape=tuple(full_shape)))
    return tuple(out)


class _Concatenator:
    """`r_` and `c_`: NumPy's index tricks, concatenating nodes when the items hold them."""

    def __init__(self, name: str, numpy_object: Any):
        self._name = name
        self._numpy = numpy_object

    def __getitem__(self, key: Any) -> Any:
        items = key if type(key) is tuple else (key,)
        if not _has_node(items):
            return self._numpy[key]
        if any(isinstance(i, (slice, str)) for i in items):
            raise TypeError(
                f"funcgrad.numpy.{self._name}[...]: slices and string directives are not "
                f"supported with graph nodes; build the ranges with funcgrad.numpy.arange or "
                f"linspace and concatenate them"
            )
        parts = []
        for item in items:
            part = _stacked(item) if _has_node(item) else _np.asarray(item)
            if len(part.shape) == 0:
                part = _sh.reshape(part, shape=(1,))
            if self._name == "c_" and len(part.shape) == 1:
                part = _sh.reshape(part, shape=(-1, 1))  # 1-D items become columns
            parts.append(part)
        return _concatenate(parts, axis=-1 if self._name == "c_" else 0)

    def __repr__(self) -> str:
        return f"funcgrad.numpy.{self._name}"


r_ = _Concatenator("r_", _np.r_)
r_.__doc__ = """Concatenate the items along the first axis: `fnp.r_[x, [1.0, 2.0], y]` (NumPy's `r_`).

With nodes among the items the result is a node (numbers and 1-D items;
slices and string directives only on plain values).

Examples:
    >>> import funcgrad.numpy as fnp
    >>> fnp.r_[[1.0, 2.0], 3.0]
    array([1., 2., 3.])
"""

c_ = _Concatenator("c_", _np.c_)
c_.__doc__ = """Stack the items as columns: `fnp.c_[x, y]` (NumPy's `c_`), a node where nodes take part.

Examples:
    >>> import funcgrad.numpy as fnp
    >>> fnp.c_[[1.0, 2.0], [3.0, 4.0]]
    array([[1., 3.],
           [2., 4.]])
"""

"""NumPy's reductions with NumPy's signatures: `sum(a, axis, dtype, out, keepdims)` and the others.

Each applies one primitive, as the generated functions do, but takes its
arguments in NumPy's positional order (`dtype` and `out` before
`keepdims`, `ddof` after them for `var` and `std`), so NumPy code such as
`np.sum(x, 0, np.float32)` or `np.prod(shape, dtype=int)` means what it
means in NumPy instead of passing `np.float32` as `keepdims`. `dtype`
casts the input first (differentiably), which is how NumPy accumulates;
`out=` is refused (funcgrad's values are immutable).
"""

from __future__ import annotations

from typing import Any

import numpy as _np

from funcgrad.errors import OpError as _OpError
from funcgrad.graph import Node as _Node
from funcgrad.numpy._adapters import axes as _as_axes
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import reduce as _reduce
from funcgrad.ops import shape as _shape

__all__ = ["amax", "amin", "cumprod", "cumsum", "max", "mean", "min", "prod", "std", "sum", "var"]


def _ndim(a: Any) -> int:
    """The number of axes of `a` (an array, a number, a node, or one example of vmap's batch)."""
    v = a.value if type(a) is _Node else a
    n = getattr(v, "ndim", None)
    return int(_np.ndim(v) if n is None else n)


def _no_axis_of_0d(name: str, a: Any, axis: Any) -> None:
    """Refuse an axis of a 0-d `a`, as NumPy's mean, var and std do (the reductions gave NaN)."""
    if axis is None or _ndim(a) != 0:
        return
    if isinstance(axis, (tuple, list)):
        if not axis:
            return
        axis = axis[0]
    first = _np.asarray(axis).reshape(-1)[0] if _np.ndim(axis) else axis
    raise _np.exceptions.AxisError(int(first), 0, f"funcgrad.numpy.{name} of a 0-d input")


def _cumulative_input(a: Any, axis: Any) -> Any:
    """`a` with shape (1,) when it is 0-d and an axis is given: NumPy's cumsum/cumprod give (1,)."""
    if axis is not None and _ndim(a) == 0:
        if int(axis) not in (0, -1):
            raise _np.exceptions.AxisError(
                int(axis), 1, "funcgrad.numpy: cumulative of a 0-d input"
            )
        return _shape.reshape(a, shape=(1,))
    return a


def _prepared(name: str, a: Any, dtype: Any, out: Any) -> Any:
    """`a` cast to `dtype` (None: as it is); refuse `out`."""
    if out is not None:
        raise _OpError(
            f"funcgrad.numpy.{name}: out= is not supported (funcgrad's arrays are immutable); "
            f"use the returned value"
        )
    if dtype is None:
        return a
    dtype = _np.dtype(dtype)
    if type(a) is _Node:
        return a if _np.dtype(a.dtype) == dtype else _ew.astype(a, dtype=dtype)
    return _np.asarray(a, dtype=dtype)


def sum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False):  # noqa: A001
    """Return the sum over axes (NumPy's `sum`; `dtype` casts `a` first).

    Args:
        a: An array, a number, or a graph node.
        axis: None (all axes), an int or a tuple of ints.
        dtype: The dtype to sum in (and of the result); None: NumPy's.
        out: Must be None (funcgrad's values are immutable).
        keepdims: If true, the reduced axes stay, with size 1.

    Returns:
        An array, or a node if `a` is a node.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.sum(np.array([[-1.1, -0.2], [0.7, 1.6]]), axis=-1)
        array([-1.3,  2.3])
        >>> fnp.sum([1, 2], 0, np.float32)
        np.float32(3.0)
    """
    if dtype is not None or out is not None:
        a = _prepared("sum", a, dtype, out)
    return _reduce.sum_(a, axis=_as_axes(axis), keepdims=keepdims)


def prod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False):
    """Return the product over axes (NumPy's `prod`; `dtype` casts `a` first).

    Args:
        a: An array, a number, or a graph node.
        axis: None (all axes), an int or a tuple of ints.
        dtype: The dtype to multiply in (and of the result); None: NumPy's.
        out: Must be None (funcgrad's values are immutable).
        keepdims: If true, the reduced axes stay, with size 1.

    Returns:
        An array, or a node if `a` is a node.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.prod(np.array([[0.8, 1.0], [-1.1, -1.3]]), axis=-1)
        array([0.8 , 1.43])
        >>> int(fnp.prod((1, 28, 28), dtype=int))
        784
    """
    if dtype is not None or out is not None:
        a = _prepared("prod", a, dtype, out)
    return _reduce.prod(a, axis=_as_axes(axis), keepdims=keepdims)


def mean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False):
    """Return the arithmetic mean over axes (NumPy's `mean`; `dtype` casts `a` first).

    Args:
        a: An array, a number, or a graph node.
        axis: None (all axes), an int or a tuple of ints.
        dtype: The dtype to average in (and of the result); None: NumPy's.
        out: Must be None (funcgrad's values are immutable).
        keepdims: If true, the reduced axes stay, with size 1.

    Returns:
        An array, or a node if `a` is a node.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.mean(np.array([[-1.1, -0.2], [0.7, 1.6]]), axis=-1)
        array([-0.65,  1.15])
    """
    if dtype is not None or out is not None:
        a = _prepared("mean", a, dtype, out)
    _no_axis_of_0d("mean", a, axis)
    return _reduce.mean(a, axis=_as_axes(axis), keepdims=keepdims)


def max(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False):  # noqa: A001
    """Return the maximum over axes (NumPy's `max`, also `amax`).

    Args:
        a: An array, a number, or a graph node.
        axis: None (all axes), an int or a tuple of ints.
        out: Must be None (funcgrad's values are immutable).
        keepdims: If true, the reduced axes stay, with size 1.

    Returns:
        An array, or a node if `a` is a node.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.max(np.array([[-2.1, -0.45], [0.15, 1.95]]), axis=-1)
        array([-0.45,  1.95])
    """
    if out is not None:
        _prepared("max", a, None, out)
    return _reduce.max_(a, axis=_as_axes(axis), keepdims=keepdims)


def min(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False):  # noqa: A001
    """Return the minimum over axes (NumPy's `min`, also `amin`).

    Args:
        a: An array, a number, or a graph node.
        axis: None (all axes), an int or a tuple of ints.
        out: Must be None (funcgrad's values are immutable).
        keepdims: If true, the reduced axes stay, with size 1.

    Returns:
        An array, or a node if `a` is a node.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.min(np.array([[-2.1, -0.45], [0.15, 1.95]]), axis=-1)
        array([-2.1 ,  0.15])
    """
    if out is not None:
        _prepared("min", a, None, out)
    return _reduce.min_(a, axis=_as_axes(axis), keepdims=keepdims)


amax = max
amin = min


def var(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    ddof: Any = 0,
    keepdims: bool = False,
):
    """Return the variance over axes (NumPy's `var`; `dtype` casts `a` first).

    Args:
        a: An array, a number, or a graph node.
        axis: None (all axes), an int or a tuple of ints.
        dtype: The dtype to compute in (and of the result); None: NumPy's.
        out: Must be None (funcgrad's values are immutable).
        ddof: The divisor is `n - ddof`.
        keepdims: If true, the reduced axes stay, with size 1.

    Returns:
        An array, or a node if `a` is a node.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.var(np.array([[-2.1, -0.45], [0.15, 1.95]]), axis=-1)
        array([0.680625, 0.81    ])
    """
    if dtype is not None or out is not None:
        a = _prepared("var", a, dtype, out)
    _no_axis_of_0d("var", a, axis)
    return _reduce.var(a, axis=_as_axes(axis), ddof=ddof, keepdims=keepdims)


def std(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    ddof: Any = 0,
    keepdims: bool = False,
):
    """Return the standard deviation over axes (NumPy's `std`; `dtype` casts `a` first).

    Args:
        a: An array, a number, or a graph node.
        axis: None (all axes), an int or a tuple of ints.
        dtype: The dtype to compute in (and of the result); None: NumPy's.
        out: Must be None (funcgrad's values are immutable).
        ddof: The divisor is `n - ddof`.
        keepdims: If true, the reduced axes stay, with size 1.

    Returns:
        An array, or a node if `a` is a node.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.std(np.array([[-2.1, -0.45], [0.15, 1.95]]), axis=-1)
        array([0.825, 0.9  ])
    """
    if dtype is not None or out is not None:
        a = _prepared("std", a, dtype, out)
    _no_axis_of_0d("std", a, axis)
    return _reduce.std(a, axis=_as_axes(axis), ddof=ddof, keepdims=keepdims)


def cumsum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None):
    """Return the cumulative sum along an axis (NumPy's `cumsum`; `dtype` casts `a` first).

    Args:
        a: An array, a number, or a graph node.
        axis: The axis; None: over the flattened array.
        dtype: The dtype to sum in (and of the result); None: NumPy's.
        out: Must be None (funcgrad's values are immutable).

    Returns:
        An array, or a node if `a` is a node.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.cumsum(np.array([[-1.1, -0.2], [0.7, 1.6]]), axis=-1)
        array([[-1.1, -1.3],
               [ 0.7,  2.3]])
    """
    if dtype is not None or out is not None:
        a = _prepared("cumsum", a, dtype, out)
    return _reduce.cumsum(_cumulative_input(a, axis), axis=_as_axes(axis))


def cumprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None):
    """Return the cumulative product along an axis (NumPy's `cumprod`; `dtype` casts `a` first).

    Args:
        a: An array, a number, or a graph node.
        axis: The axis; None: over the flattened array.
        dtype: The dtype to multiply in (and of the result); None: NumPy's.
        out: Must be None (funcgrad's values are immutable).

    Returns:
        An array, or a node if `a` is a node.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.cumprod(np.array([[0.8, 1.0], [-1.1, -1.3]]), axis=-1)
        array([[ 0.8 ,  0.8 ],
               [-1.1 ,  1.43]])
    """
    if dtype is not None or out is not None:
        a = _prepared("cumprod", a, dtype, out)
    return _reduce.cumprod(_cumulative_input(a, axis), axis=_as_axes(axis))

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


_ARGS = {
    "a": "a: An array, a number, or a graph node.",
    "axis": "axis: None (all axes), an int or a tuple of ints.",
    "axis1": "axis: The axis; None: over the flattened array.",
    "dtype": "dtype: The dtype to {verb} in (and of the result); None: NumPy's.",
    "out": "out: Must be None (funcgrad's values are immutable).",
    "ddof": "ddof: The divisor is `n - ddof`.",
    "keepdims": "keepdims: If true, the reduced axes stay, with size 1.",
}


def _doc(summary: str, args: list[str], verb: str, example: str) -> str:
    """A NumPy-style docstring: `summary`, the `args` described, the result, `example`."""
    lines = "\n".join("        " + _ARGS[k].format(verb=verb) for k in args)
    return (
        f"{summary}\n\n    Args:\n{lines}\n\n    Returns:\n        An array, or a node if `a` is a "
        f"node.\n\n    Examples:\n        >>> import numpy as np, funcgrad.numpy as fnp\n{example}"
    )


def _named(fn: Any, name: str, doc: str) -> Any:
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def _reduction(name: str, primitive: Any, verb: str, summary: str, example: str) -> Any:
    """NumPy's `name(a, axis, dtype, out, keepdims)` (sum, prod, mean): `dtype` casts `a` first."""
    refuse_0d_axis = name == "mean"  # NumPy's mean refuses an axis of a 0-d input; sum takes 0

    def reduction(
        a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False
    ):
        if dtype is not None or out is not None:
            a = _prepared(name, a, dtype, out)
        if refuse_0d_axis:
            _no_axis_of_0d(name, a, axis)
        return primitive(a, axis=_as_axes(axis), keepdims=keepdims)

    args = ["a", "axis", "dtype", "out", "keepdims"]
    return _named(reduction, name, _doc(summary, args, verb, example))


def _extreme(name: str, primitive: Any, summary: str, example: str) -> Any:
    """NumPy's `name(a, axis, out, keepdims)` (max, min)."""

    def extreme(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False):
        if out is not None:
            _prepared(name, a, None, out)
        return primitive(a, axis=_as_axes(axis), keepdims=keepdims)

    return _named(extreme, name, _doc(summary, ["a", "axis", "out", "keepdims"], "", example))


def _moment(name: str, primitive: Any, summary: str, example: str) -> Any:
    """NumPy's `name(a, axis, dtype, out, ddof, keepdims)` (var, std)."""

    def moment(
        a: Any,
        axis: Any = None,
        dtype: Any = None,
        out: Any = None,
        ddof: Any = 0,
        keepdims: bool = False,
    ):
        if dtype is not None or out is not None:
            a = _prepared(name, a, dtype, out)
        _no_axis_of_0d(name, a, axis)
        return primitive(a, axis=_as_axes(axis), ddof=ddof, keepdims=keepdims)

    args = ["a", "axis", "dtype", "out", "ddof", "keepdims"]
    return _named(moment, name, _doc(summary, args, "compute", example))


def _cumulative(name: str, primitive: Any, verb: str, summary: str, example: str) -> Any:
    """NumPy's `name(a, axis, dtype, out)` (cumsum, cumprod)."""

    def cumulative(a: Any, axis: Any = None, dtype: Any = None, out: Any = None):
        if dtype is not None or out is not None:
            a = _prepared(name, a, dtype, out)
        return primitive(_cumulative_input(a, axis), axis=_as_axes(axis))

    return _named(cumulative, name, _doc(summary, ["a", "axis1", "dtype", "out"], verb, example))


sum = _reduction(  # noqa: A001
    "sum",
    _reduce.sum_,
    "sum",
    "Return the sum over axes (NumPy's `sum`; `dtype` casts `a` first).",
    """        >>> fnp.sum(np.array([[-1.1, -0.2], [0.7, 1.6]]), axis=-1)
        array([-1.3,  2.3])
        >>> fnp.sum([1, 2], 0, np.float32)
        np.float32(3.0)
    """,
)
prod = _reduction(
    "prod",
    _reduce.prod,
    "multiply",
    "Return the product over axes (NumPy's `prod`; `dtype` casts `a` first).",
    """        >>> fnp.prod(np.array([[0.8, 1.0], [-1.1, -1.3]]), axis=-1)
        array([0.8 , 1.43])
        >>> int(fnp.prod((1, 28, 28), dtype=int))
        784
    """,
)
mean = _reduction(
    "mean",
    _reduce.mean,
    "average",
    "Return the arithmetic mean over axes (NumPy's `mean`; `dtype` casts `a` first).",
    """        >>> fnp.mean(np.array([[-1.1, -0.2], [0.7, 1.6]]), axis=-1)
        array([-0.65,  1.15])
    """,
)
max = _extreme(  # noqa: A001
    "max",
    _reduce.max_,
    "Return the maximum over axes (NumPy's `max`, also `amax`).",
    """        >>> fnp.max(np.array([[-2.1, -0.45], [0.15, 1.95]]), axis=-1)
        array([-0.45,  1.95])
    """,
)
min = _extreme(  # noqa: A001
    "min",
    _reduce.min_,
    "Return the minimum over axes (NumPy's `min`, also `amin`).",
    """        >>> fnp.min(np.array([[-2.1, -0.45], [0.15, 1.95]]), axis=-1)
        array([-2.1 ,  0.15])
    """,
)
amax = max
amin = min
var = _moment(
    "var",
    _reduce.var,
    "Return the variance over axes (NumPy's `var`; `dtype` casts `a` first).",
    """        >>> fnp.var(np.array([[-2.1, -0.45], [0.15, 1.95]]), axis=-1)
        array([0.680625, 0.81    ])
    """,
)
std = _moment(
    "std",
    _reduce.std,
    "Return the standard deviation over axes (NumPy's `std`; `dtype` casts `a` first).",
    """        >>> fnp.std(np.array([[-2.1, -0.45], [0.15, 1.95]]), axis=-1)
        array([0.825, 0.9  ])
    """,
)
cumsum = _cumulative(
    "cumsum",
    _reduce.cumsum,
    "sum",
    "Return the cumulative sum along an axis (NumPy's `cumsum`; `dtype` casts `a` first).",
    """        >>> fnp.cumsum(np.array([[-1.1, -0.2], [0.7, 1.6]]), axis=-1)
        array([[-1.1, -1.3],
               [ 0.7,  2.3]])
    """,
)
cumprod = _cumulative(
    "cumprod",
    _reduce.cumprod,
    "multiply",
    "Return the cumulative product along an axis (NumPy's `cumprod`; `dtype` casts `a` first).",
    """        >>> fnp.cumprod(np.array([[0.8, 1.0], [-1.1, -1.3]]), axis=-1)
        array([[ 0.8 ,  0.8 ],
               [-1.1 ,  1.43]])
    """,
)

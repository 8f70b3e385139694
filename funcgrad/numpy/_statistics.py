"""Statistics, cumulative, calculus and signal functions of `funcgrad.numpy`.

Each function is a composition of funcgrad's primitives (its docstring says
which), so it works on plain values and on graph nodes (gradients of every
order). On plain values (no node among the arguments) the functions call
NumPy's own, so their values, dtypes and errors are NumPy's exactly.

Conventions where a derivative is not unique:

* Order statistics (`median`, `quantile`, `percentile` and their NaN
  versions, `sort`, `partition`) pick entries of a stably sorted copy; the
  gradient goes to the entries a stable sort puts at the picked positions,
  so among tied values it goes to the first (by position) as far as the
  sort needs: this is what `torch.quantile` gives (`torch.median`, which
  NumPy's median is not for an even count, splits ties evenly).
* `interp` takes the slope of the interval to the right of a knot
  (the left one at the last knot), as JAX does; outside `[xp[0], xp[-1]]`
  the gradient in `x` is 0.
* The counts of `histogram`, `histogram2d`, `histogramdd` and `bincount`
  are piecewise constant in the data (no gradient); with node `weights`
  they are sums of the weights, differentiable in them.
* `unwrap` adds a piecewise constant correction: its gradient is 1.
"""

from __future__ import annotations

import math as _math
from typing import Any

import numpy as _np

from funcgrad.errors import AxisError as _AxisError
from funcgrad.errors import OpError as _OpError
from funcgrad.graph import Node as _Node
from funcgrad.numpy._adapters import axes as _as_axes
from funcgrad.numpy._compose import average as _average
from funcgrad.numpy._compose import take_along_axis as _take_along_axis
from funcgrad.numpy._value_only import _edges_from_data
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import reduce as _reduce
from funcgrad.ops import shape as _sh
from funcgrad.ops._util import normalize_axis as _normalize_axis
from funcgrad.ops._util import value_of as _value_of
from funcgrad.ops.index import getitem as _getitem
from funcgrad.ops.index import scatter_add as _scatter_add
from funcgrad.ops.linalg import matmul as _matmul

# NumPy without its overloaded stubs, for calls that pass arguments through as they came.
_numpy: Any = _np

__all__ = [
    "bincount",
    "convolve",
    "corrcoef",
    "correlate",
    "cov",
    "cumulative_prod",
    "cumulative_sum",
    "ediff1d",
    "gradient",
    "histogram",
    "histogram2d",
    "histogramdd",
    "interp",
    "median",
    "nancumprod",
    "nancumsum",
    "nanmedian",
    "nanpercentile",
    "nanprod",
    "nanquantile",
    "nanstd",
    "nanvar",
    "partition",
    "percentile",
    "quantile",
    "sort_complex",
    "trapezoid",
    "unwrap",
]


# --- helpers -------------------------------------------------------------------------------


def _is_node(a: Any) -> bool:
    return type(a) is _Node


def _any_node(*args: Any) -> bool:
    return any(type(a) is _Node for a in args)


def _arr(a: Any) -> Any:
    """Return a node or an array as it is, anything else (lists, numbers) as a NumPy array."""
    return a if _is_node(a) or hasattr(a, "shape") else _np.asarray(a)


def _value(a: Any) -> Any:
    return _value_of(a)  # under funcgrad.jit: a read the trace sees (eager if dynamic)


def _values(a: Any) -> Any:
    """The values of `a` as an array (a batched value under vmap stays one: it batches)."""
    v = _value(a)
    return v if hasattr(v, "shape") else _np.asarray(v)


def _ndim(a: Any) -> int:
    return len(a.shape)


def _dtype(a: Any) -> Any:
    return _np.dtype(a.dtype)


def _at(ndim: int, axis: int, index: Any) -> tuple[Any, ...]:
    """The index picking `index` along `axis` of an array of `ndim` axes."""
    return (slice(None),) * axis + (index,) + (slice(None),) * (ndim - axis - 1)


def _no_out(name: str, out: Any) -> None:
    if out is not None:
        raise _OpError(
            f"funcgrad.numpy.{name}: out= is not supported (funcgrad's arrays are immutable); "
            f"use the returned value"
        )


def _flat(a: Any) -> Any:
    return _sh.reshape(a, shape=(-1,))


def _cast(x: Any, dtype: Any) -> Any:
    """`x` in `dtype` (NumPy's result dtype, where NumPy promotes), differentiably."""
    dtype = _np.dtype(dtype)
    if _np.dtype(x.dtype) == dtype:
        return x
    return _ew.astype(x, dtype=dtype) if _is_node(x) else _np.asarray(x, dtype=dtype)


_F64 = _np.dtype(_np.float64)


def _mod(x: Any, period: Any) -> Any:
    """`x % period` (`period > 0`): gradient 1 in `x`, `-floor(x / period)` in `period`."""
    turns = _np.floor(_np.asarray(_value(x)) / _value(period))
    return x - turns * period


# --- cumulative sums and products ----------------------------------------------------------


def _cumulative(
    name: str, prim: Any, initial: float, x: Any, axis: Any, dtype: Any, include_initial: bool
):
    x = _arr(x)
    if not _is_node(x):
        return getattr(_numpy, name)(x, axis=axis, dtype=dtype, include_initial=include_initial)
    if axis is None:
        if _ndim(x) > 1:
            raise _AxisError(
                f"funcgrad.numpy.{name}: axis= is required for a {_ndim(x)}-d array of shape "
                f"{x.shape}"
            )
        axis = 0
    if _ndim(x) == 0:
        x = _sh.reshape(x, shape=(1,))  # NumPy takes a 0-d array as 1-d
    if dtype is not None and _np.dtype(dtype) != _dtype(x):
        x = _ew.astype(x, dtype=_np.dtype(dtype))
    ax = _normalize_axis(axis, _ndim(x), name)[0]
    out = prim(x, axis=ax)
    if include_initial:
        shape = tuple(1 if i == ax else n for i, n in enumerate(x.shape))
        out = _sh.concatenate(_np.full(shape, initial, dtype=_dtype(x)), out, axis=ax)
    return out


def cumulative_sum(
    x: Any, /, *, axis: Any = None, dtype: Any = None, include_initial: bool = False
):
    """Return the running sum of `x` along `axis` (NumPy 2's `cumulative_sum`).

    A composition of the `cumsum` primitive (and `concatenate` for
    `include_initial`). Unlike `cumsum`, `axis` is required for arrays of
    more than one axis, and `include_initial=True` starts with a 0.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.cumulative_sum([1.0, 2.0, 3.0], include_initial=True)
        array([0., 1., 3., 6.])
    """
    return _cumulative("cumulative_sum", _reduce.cumsum, 0.0, x, axis, dtype, include_initial)


def cumulative_prod(
    x: Any, /, *, axis: Any = None, dtype: Any = None, include_initial: bool = False
):
    """Return the running product of `x` along `axis` (NumPy 2's `cumulative_prod`).

    A composition of the `cumprod` primitive (exact gradients at zeros) and
    `concatenate` for `include_initial` (which starts with a 1).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.cumulative_prod([1.0, 2.0, 3.0], include_initial=True)
        array([1., 1., 2., 6.])
    """
    return _cumulative("cumulative_prod", _reduce.cumprod, 1.0, x, axis, dtype, include_initial)


def _nan_mask(a: Any) -> Any:
    return _np.isnan(_value(a))


def nancumsum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None):
    """Return the running sum of `a` along `axis`, NaNs counting as 0 (they get no gradient).

    A composition: `cumsum(where(isnan(a), 0, a))`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.nancumsum([1.0, float("nan"), 2.0])
        array([1., 1., 3.])
    """
    _no_out("nancumsum", out)
    a = _arr(a)
    if not _is_node(a):
        return _np.nancumsum(a, axis=axis, dtype=dtype)
    return _reduce.cumsum(_ew.where(_nan_mask(a), 0.0, a), axis=axis)


def nancumprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None):
    """Return the running product of `a` along `axis`, NaNs counting as 1 (they get no gradient).

    A composition: `cumprod(where(isnan(a), 1, a))`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.nancumprod([2.0, float("nan"), 3.0])
        array([2., 2., 6.])
    """
    _no_out("nancumprod", out)
    a = _arr(a)
    if not _is_node(a):
        return _np.nancumprod(a, axis=axis, dtype=dtype)
    return _reduce.cumprod(_ew.where(_nan_mask(a), 1.0, a), axis=axis)


# --- NaN-ignoring moments ------------------------------------------------------------------


def nanprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False):
    """Return the product of `a` along `axis`, NaNs counting as 1 (they get no gradient).

    A composition: the `prod` primitive (exact gradients at zeros) of
    `where(isnan(a), 1, a)`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.nanprod([2.0, float("nan"), 3.0])
        np.float64(6.0)
    """
    _no_out("nanprod", out)
    a = _arr(a)
    if not _is_node(a):
        return _np.nanprod(a, axis=axis, dtype=dtype, keepdims=keepdims)
    return _reduce.prod(_ew.where(_nan_mask(a), 1.0, a), axis=_as_axes(axis), keepdims=keepdims)


def _nan_moment(name: str, a: Any, axis: Any, ddof: Any, keepdims: bool) -> Any:
    """Return the variance of the non-NaN entries of node `a`: sum((a - mean)^2) / (count - ddof)."""
    nan = _nan_mask(a)
    axes = _as_axes(axis)
    count = _np.sum(~nan, axis=axes, keepdims=True).astype(_dtype(a))
    zeroed = _ew.where(nan, 0.0, a)
    centered = _ew.where(nan, 0.0, zeroed - _reduce.sum_(zeroed, axis=axes, keepdims=True) / count)
    dof = count - ddof
    with _np.errstate(divide="ignore", invalid="ignore"):
        scale = _np.where(dof > 0, 1.0 / _np.where(dof > 0, dof, 1.0), _np.nan).astype(_dtype(a))
    squares = _reduce.sum_(centered * centered, axis=axes, keepdims=True)
    out = squares * scale
    if not keepdims:
        out = _sh.reshape(out, shape=_np.sum(nan, axis=axes).shape)
    return out


def nanvar(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    ddof: Any = 0,
    keepdims: bool = False,
    *,
    mean: Any = None,
    correction: Any = None,
):
    """Return the variance of the non-NaN entries of `a` along `axis`, divided by `count - ddof`.

    The `var` primitive where `a` has no NaN; else a composition of `where`,
    `sum` and arithmetic. NaN entries get no gradient; a slice with
    `count <= ddof` gives NaN, as in NumPy.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.nanvar([1.0, float("nan"), 3.0])
        np.float64(1.0)
    """
    _no_out("nanvar", out)
    if correction is not None:
        ddof = correction
    a = _arr(a)
    if not _is_node(a) or mean is not None:
        if _is_node(a):
            raise _OpError("funcgrad.numpy.nanvar: mean= is not supported with a graph node")
        return _np.nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    if not _nan_mask(a).any():
        return _reduce.var(a, axis=_as_axes(axis), ddof=ddof, keepdims=keepdims)
    return _nan_moment("nanvar", a, axis, ddof, keepdims)


def nanstd(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    ddof: Any = 0,
    keepdims: bool = False,
    *,
    mean: Any = None,
    correction: Any = None,
):
    """Return the standard deviation of the non-NaN entries of `a` along `axis`.

    The `std` primitive where `a` has no NaN; else `sqrt(nanvar(...))`,
    with the gradient 0 where the deviation is 0 (as `std`'s). NaN entries
    get no gradient.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.nanstd([1.0, float("nan"), 3.0])
        np.float64(1.0)
    """
    _no_out("nanstd", out)
    if correction is not None:
        ddof = correction
    a = _arr(a)
    if not _is_node(a) or mean is not None:
        if _is_node(a):
            raise _OpError("funcgrad.numpy.nanstd: mean= is not supported with a graph node")
        return _np.nanstd(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    if not _nan_mask(a).any():
        return _reduce.std(a, axis=_as_axes(axis), ddof=ddof, keepdims=keepdims)
    v = _nan_moment("nanstd", a, axis, ddof, keepdims)
    live = _value(v) != 0  # a NaN variance stays NaN
    return _ew.where(live, _ew.sqrt(_ew.where(live, v, 1.0)), 0.0)


# --- order statistics ----------------------------------------------------------------------

# Virtual index of the q-th quantile among n sorted values: Hyndman and Fan's (alpha, beta).
_CONTINUOUS = {
    "interpolated_inverted_cdf": (0.0, 1.0),
    "hazen": (0.5, 0.5),
    "weibull": (0.0, 0.0),
    "median_unbiased": (1 / 3.0, 1 / 3.0),
    "normal_unbiased": (3 / 8.0, 3 / 8.0),
}
_METHODS = (
    "inverted_cdf",
    "averaged_inverted_cdf",
    "closest_observation",
    "interpolated_inverted_cdf",
    "hazen",
    "weibull",
    "linear",
    "median_unbiased",
    "normal_unbiased",
    "lower",
    "higher",
    "midpoint",
    "nearest",
)


def _to_boundaries(index: Any, take_previous: Any) -> Any:
    previous = _np.floor(index)
    gamma = index - previous
    res = _np.where(take_previous(gamma, index), previous, previous + 1).astype(_np.intp)
    return _np.maximum(res, 0)


def _virtual_index(method: str, n: Any, q: Any) -> tuple[Any, Any]:
    """Return NumPy's virtual index of `q` among `n` sorted values, and its gamma fix (or None)."""
    if method == "linear":
        return (n - 1) * q, None
    if method in _CONTINUOUS:
        alpha, beta = _CONTINUOUS[method]
        return n * q + (alpha + q * (1 - alpha - beta)) - 1, None
    if method == "lower":
        return _np.floor((n - 1) * q).astype(_np.intp), None
    if method == "higher":
        return _np.ceil((n - 1) * q).astype(_np.intp), None
    if method == "nearest":
        return _np.around((n - 1) * q).astype(_np.intp), None
    if method == "inverted_cdf":
        return _to_boundaries(n * q - 1, lambda g, _: g == 0), None
    if method == "closest_observation":
        odd = lambda g, i: (g == 0) & (_np.floor(i) % 2 == 1)  # noqa: E731
        return _to_boundaries(n * q - 1 - 0.5, odd), None
    if method == "midpoint":
        index = 0.5 * (_np.floor((n - 1) * q) + _np.ceil((n - 1) * q))
        return index, lambda gamma, index: _np.where(index % 1 == 0, 0.0, 0.5)
    # averaged_inverted_cdf
    return n * q - 1, lambda gamma, index: _np.where(gamma == 0, 0.5, 1.0)


def _quantile_node(name: str, a: Any, q: Any, axis: Any, method: str, keepdims: bool, nan: bool):
    """The quantiles `q` (in [0, 1]) of node (or array) `a` over `axis`, by sorting.

    NumPy's algorithm: sort, find the virtual index of each quantile, take
    the two neighbouring sorted entries and interpolate linearly; the picks
    are `getitem`s of the sorted copy (itself `take_along_axis` of the
    stable argsort), the interpolation `where` and arithmetic, so the result
    is differentiable in `a`, and in `q` where `q` is a node.
    """
    # NumPy 2 computes the virtual index in q's floating dtype (a float32 q: float32, as
    # torch.quantile does for float32 data; it decides 'nearest' where q * (n - 1) is near .5)
    q_v = _np.asarray(_value(q))
    if q_v.dtype.kind != "f":
        q_v = q_v.astype(float)
    ndim = _ndim(a)
    axes = tuple(range(ndim)) if axis is None else _normalize_axis(_as_axes(axis), ndim, name)
    kept = tuple(i for i in range(ndim) if i not in axes)
    kept_shape = tuple(a.shape[i] for i in kept)
    n = int(_np.prod([a.shape[i] for i in axes], dtype=_np.int64))
    x = _sh.reshape(_sh.transpose(a, axes=kept + axes), shape=(*kept_shape, n))
    if n == 0:
        raise _OpError(
            f"funcgrad.numpy.{name}: the reduced axes {axes} of shape {a.shape} hold no entries"
        )
    order = _np.argsort(_value(x), axis=-1, kind="stable")  # NaNs last
    ordered = _take_along_axis(x, order, axis=-1)
    is_nan = _np.isnan(_value(x))
    count: Any = n - is_nan.sum(axis=-1) if nan else n  # per slice where NaNs are left out
    q_b = q_v.reshape(q_v.shape + (1,) * len(kept_shape))
    # NumPy's nanquantile counts each slice as a Python int, which keeps q's dtype
    n_q = count.astype(q_v.dtype) if nan else count
    index, fix = _virtual_index(method, n_q, q_b)
    index = _np.broadcast_to(index, q_v.shape + kept_shape)
    grid = tuple(
        _np.arange(k).reshape((1,) * (q_v.ndim + i) + (k,) + (1,) * (len(kept_shape) - i - 1))
        for i, k in enumerate(kept_shape)
    )
    last = _np.broadcast_to(_np.subtract(count, 1), kept_shape)  # (count batches under vmap)
    dtype = _dtype(a)
    if index.dtype.kind in "iu":
        picked = _np.clip(index, 0, _np.maximum(last, 0))
        result = _getitem(ordered, index=(*grid, picked))
    else:
        previous = _np.floor(index)
        above = index >= last
        below = index < 0
        lo = _np.where(above, last, _np.where(below, 0, previous)).astype(_np.intp)
        hi = _np.where(above, last, _np.where(below, 0, previous + 1)).astype(_np.intp)
        lo, hi = _np.maximum(lo, 0), _np.maximum(hi, 0)
        # interpolated: NumPy's dtype is result_type(a, q) (a Python q is weak)
        q_kind = q if isinstance(q, float | int) else _np.asarray(_value(q)).dtype
        dtype = _np.result_type(dtype, q_kind)
        ordered = _cast(ordered, dtype)
        a_lo = _getitem(ordered, index=(*grid, lo))
        a_hi = _getitem(ordered, index=(*grid, hi))
        gamma: Any = (index - previous).astype(dtype)
        if fix is not None:
            gamma = _np.asarray(fix(gamma, index), dtype=dtype)
        elif _is_node(q) and method in ("linear", *_CONTINUOUS):
            # the fractional part of the virtual index, differentiable in q
            q_node = _sh.reshape(q, shape=q_b.shape) if q_v.ndim else q
            scale = (count - 1) if method == "linear" else None
            if scale is None:
                alpha, beta = _CONTINUOUS[method]
                vi = q_node * (count + 1 - alpha - beta) + (alpha - 1)
            else:
                vi = q_node * scale
            gamma = vi - previous.astype(dtype)
        upper = _np.greater_equal(_value(gamma), 0.5)
        step = a_hi - a_lo
        result = _ew.where(upper, a_hi - step * (1.0 - gamma), a_lo + step * gamma)
    # a slice holding NaN (all NaN for the NaN-ignoring version) gives NaN, as in NumPy
    bad = (count == 0) if nan else is_nan.any(axis=-1)
    if _np.any(bad):
        result = _ew.where(_np.broadcast_to(bad, result.shape), _np.nan, result)
    if keepdims:
        shape = q_v.shape + tuple(1 if i in axes else a.shape[i] for i in range(ndim))
        result = _sh.reshape(result, shape=shape)
    return result


def _quantile(
    name: str, a: Any, q: Any, axis: Any, out: Any, method: str, keepdims: bool, weights: Any,
    interpolation: Any, scale: float, nan: bool,
):  # fmt: skip
    _no_out(name, out)
    if interpolation is not None:
        method = interpolation
    a = _arr(a)
    numpy_function = getattr(_numpy, name)
    if not _any_node(a, q, weights):
        kwargs = {} if weights is None else {"weights": weights}
        return numpy_function(a, q, axis=axis, method=method, keepdims=keepdims, **kwargs)
    if weights is not None:
        raise _OpError(
            f"funcgrad.numpy.{name}: weights= is not supported with graph nodes (only "
            f"method='inverted_cdf' takes weights in NumPy); compute it on values"
        )
    if method not in _METHODS:
        raise _OpError(f"funcgrad.numpy.{name}: method={method!r} is not one of {_METHODS}")
    q_v = _np.asarray(_value(q), dtype=float) / scale
    if not (_np.all(q_v >= 0) and _np.all(q_v <= 1)):
        bounds = "[0, 100]" if scale == 100 else "[0, 1]"
        raise _OpError(f"funcgrad.numpy.{name}: q must be in the range {bounds}, got {_value(q)!r}")
    if _is_node(q):
        q = q / scale if scale != 1 else q
    elif _np.ndim(q) or type(q) not in (float, int):
        # NumPy 2: a NumPy q keeps its floating dtype (float32 data and q stay
        # float32); an int64 q leaves quantile's 'linear' in the data's dtype
        # (its virtual index (n - 1) * q is an integer), elsewhere it is float64
        q_dtype = _np.asarray(_value(q)).dtype
        if q_dtype.kind != "f":
            linear = scale == 1 and method == "linear"
            q_dtype = _np.result_type(_dtype(a), _np.float16) if linear else _np.dtype(_np.float64)
        q = _np.asarray(q_v, dtype=q_dtype)
    else:
        q = float(q_v)
    return _quantile_node(name, a, q, axis, method, keepdims, nan)


def quantile(
    a: Any,
    q: Any,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: Any = None,
    interpolation: Any = None,
):
    """Return the `q`-th quantiles of `a` along `axis` (`q` in [0, 1]), as `numpy.quantile`.

    A composition: `take_along_axis` of the stable argsort (a sort), then
    `getitem` of the neighbours of each virtual index and their linear
    interpolation (`where` and arithmetic). Every `method` of NumPy is
    accepted; the result is piecewise linear in `a`, and differentiable in
    `q` too for the continuous methods (`'linear'`, `'hazen'`, ...). Among
    tied values the gradient goes to those a stable sort puts at the
    picked positions, as in `torch.quantile`. A slice holding NaN gives NaN.

    Args:
        a: An array, or a graph node.
        q: A quantile or an array of them, in [0, 1]; a node for a gradient in q.
        axis: None (all axes), an int or a tuple of ints.
        out: Must be None (funcgrad's arrays are immutable).
        overwrite_input: Ignored (nothing is overwritten).
        method: One of NumPy's methods (`'linear'`, `'lower'`, `'higher'`,
            `'nearest'`, `'midpoint'`, `'hazen'`, `'weibull'`, ...).
        keepdims: If true, the reduced axes stay, with size 1.
        weights: Plain arrays only (NumPy's `method='inverted_cdf'`).
        interpolation: NumPy's deprecated name of `method`.

    Returns:
        The quantiles, shaped `q.shape` followed by the kept axes.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.quantile([1.0, 2.0, 4.0, 8.0], 0.5)
        np.float64(3.0)
    """
    return _quantile(
        "quantile", a, q, axis, out, method, keepdims, weights, interpolation, 1.0, False
    )


def percentile(
    a: Any,
    q: Any,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: Any = None,
    interpolation: Any = None,
):
    """Return the `q`-th percentiles of `a` along `axis` (`q` in [0, 100]): `quantile(a, q / 100)`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.percentile([1.0, 2.0, 4.0, 8.0], 50)
        np.float64(3.0)
    """
    return _quantile(
        "percentile", a, q, axis, out, method, keepdims, weights, interpolation, 100.0, False
    )


def nanquantile(
    a: Any,
    q: Any,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: Any = None,
    interpolation: Any = None,
):
    """Return the `q`-th quantiles of the non-NaN entries of `a` along `axis`.

    As `quantile`, each slice's count being its non-NaN entries (an all-NaN
    slice gives NaN). NaN entries get no gradient.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.nanquantile([1.0, float("nan"), 3.0], 0.5)
        np.float64(2.0)
    """
    return _quantile(
        "nanquantile", a, q, axis, out, method, keepdims, weights, interpolation, 1.0, True
    )


def nanpercentile(
    a: Any,
    q: Any,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: Any = None,
    interpolation: Any = None,
):
    """Return the `q`-th percentiles of the non-NaN entries of `a`: `nanquantile(a, q / 100)`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.nanpercentile([1.0, float("nan"), 3.0], 50)
        np.float64(2.0)
    """
    return _quantile(
        "nanpercentile", a, q, axis, out, method, keepdims, weights, interpolation, 100.0, True
    )


def median(
    a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False, keepdims: bool = False
):
    """Return the median of `a` along `axis`: `quantile(a, 0.5)` (the mean of the middle two for an even count).

    The gradient goes to the middle entry, or half to each of the middle two
    (of a stable sort among ties), as `torch.quantile(a, 0.5)`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.median([3.0, 1.0, 4.0, 2.0])
        np.float64(2.5)
    """
    _no_out("median", out)
    a = _arr(a)
    if not _is_node(a):
        return _np.median(a, axis=axis, keepdims=keepdims)
    return _quantile_node("median", a, 0.5, axis, "linear", keepdims, False)


def nanmedian(
    a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False, keepdims: bool = False
):
    """Return the median of the non-NaN entries of `a` along `axis`: `nanquantile(a, 0.5)`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.nanmedian([3.0, float("nan"), 1.0])
        np.float64(2.0)
    """
    _no_out("nanmedian", out)
    a = _arr(a)
    if not _is_node(a):
        return _np.nanmedian(a, axis=axis, keepdims=keepdims)
    return _quantile_node("nanmedian", a, 0.5, axis, "linear", keepdims, True)


def partition(a: Any, kth: Any, axis: Any = -1, kind: str = "introselect", order: Any = None):
    """Return `a` partly sorted along `axis` so that its `kth` entries are in place (`numpy.partition`).

    A composition: `take_along_axis` of `numpy.argpartition` of the values,
    so each entry's gradient flows back to where it came from (as `sort`).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.partition([3.0, 1.0, 2.0], 1)[1]
        np.float64(2.0)
    """
    a = _arr(a)
    if not _is_node(a):
        return _numpy.partition(a, kth, axis=axis, kind=kind, order=order)
    if axis is None:
        a, axis = _flat(a), 0
    picks = _numpy.argpartition(_value_of(a), kth, axis=axis, kind=kind, order=order)
    return _take_along_axis(a, picks, axis=axis)


def sort_complex(a: Any):
    """Return `a` sorted as complex numbers, by real then imaginary part, along the last axis.

    A composition: `a` as complex (complex64 from float32 and smaller, else
    complex128, as NumPy), then `take_along_axis` of NumPy's order of those
    values, so the gradient follows the entries as `sort`'s does.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.sort_complex([2.0, 1.0])
        array([1.+0.j, 2.+0.j])
    """
    a = _arr(a)
    v = _values(a)
    dtype = _np.sort_complex(_np.zeros(0, dtype=v.dtype)).dtype
    z = _ew.astype(a, dtype=dtype) if _is_node(a) else v.astype(dtype)
    if _ndim(z) == 0:
        raise _AxisError(
            "funcgrad.numpy.sort_complex: axis -1 is out of bounds for array of dimension 0 "
            "(it sorts along the last axis)"
        )
    order = _np.argsort(_np.asarray(v, dtype=dtype), axis=-1, kind="stable")
    return _take_along_axis(z, order, axis=-1)


# --- covariance ----------------------------------------------------------------------------


def _rows(m: Any, rowvar: bool) -> Any:
    m = _arr(m)
    if _ndim(m) > 2:
        raise _OpError(f"funcgrad.numpy.cov: m has more than 2 dimensions (shape {m.shape})")
    if _ndim(m) < 2:
        m = _sh.reshape(m, shape=(1, -1))
    if not rowvar and m.shape[0] != 1:
        m = _sh.transpose(m, axes=(1, 0))
    return m


def cov(
    m: Any,
    y: Any = None,
    rowvar: bool = True,
    bias: bool = False,
    ddof: Any = None,
    fweights: Any = None,
    aweights: Any = None,
    *,
    dtype: Any = None,
):
    """Return the covariance matrix of the variables in `m` (and `y`), as `numpy.cov`.

    A composition: `average` (weighted), `matmul` and arithmetic;
    differentiable in `m`, `y` and `aweights` (`fweights` are integer
    counts).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.cov([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])
        array([[ 1., -1.],
               [-1.,  1.]])
    """
    if not _any_node(m, y, aweights):
        return _np.cov(m, y, rowvar, bias, ddof, fweights, aweights, dtype=dtype)
    if ddof is not None and ddof != int(ddof):
        raise _OpError(f"funcgrad.numpy.cov: ddof must be an integer, got {ddof!r}")
    x = _rows(m, rowvar)
    if y is not None:
        x = _sh.concatenate(x, _rows(y, rowvar), axis=0)
    x = _cast(x, _np.result_type(_dtype(x), _np.float64) if dtype is None else dtype)
    if ddof is None:
        ddof = 1 if not bias else 0
    w: Any = None
    if fweights is not None:
        fw = _np.asarray(_value(fweights))
        if fw.ndim > 1 or _np.any(fw != _np.around(fw)) or _np.any(fw < 0):
            raise _OpError(
                "funcgrad.numpy.cov: fweights must be a 1-d array of non-negative integers"
            )
        w = fw.astype(_dtype(x))
    if aweights is not None:
        aw = _arr(aweights)
        if _ndim(aw) > 1 or _np.any(_value(aw) < 0):
            raise _OpError(
                "funcgrad.numpy.cov: aweights must be a 1-d array of non-negative numbers"
            )
        w = aw if w is None else _ew.multiply(w, aw)
    n_obs = x.shape[1]
    if w is not None and w.shape[0] != n_obs:
        raise _OpError(f"funcgrad.numpy.cov: {w.shape[0]} weights for {n_obs} observations")
    if w is None:
        avg = _reduce.mean(x, axis=1, keepdims=True)
        fact: Any = n_obs - ddof
    else:
        avg, w_sum = _average(x, axis=1, weights=w, returned=True)
        avg, w_sum = _sh.reshape(avg, shape=(-1, 1)), _getitem(w_sum, index=(0,))
        if ddof == 0:
            fact = w_sum
        elif aweights is None:
            fact = w_sum - ddof
        else:
            fact = (
                w_sum - ddof * _reduce.sum_(w * _arr(aweights), axis=None, keepdims=False) / w_sum
            )
    if _value(fact) <= 0:
        fact = 0.0
    centered = x - avg
    weighted = centered if w is None else centered * w
    with _np.errstate(divide="ignore", invalid="ignore"):
        c = _matmul(centered, _sh.transpose(weighted, axes=(1, 0))) / fact
    if c.shape == (1, 1):
        return _sh.reshape(c, shape=())
    return c


def corrcoef(
    x: Any,
    y: Any = None,
    rowvar: bool = True,
    bias: Any = None,
    ddof: Any = None,
    *,
    dtype: Any = None,
):
    """Return the Pearson correlation coefficients of the variables in `x` (and `y`).

    A composition: `cov(x, y, rowvar) / sqrt(d_i d_j)` with `d` its
    diagonal, clipped to [-1, 1] as in NumPy (`clip`: the gradient passes at
    the bounds, so the diagonal's is the exact 0 up to rounding).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.corrcoef([[0.0, 1.0, 2.0], [2.0, 1.0, 0.5]]).round(4)
        array([[ 1.   , -0.982],
               [-0.982,  1.   ]])
    """
    if not _any_node(x, y):
        return _np.corrcoef(x, y, rowvar, dtype=dtype)
    c = cov(x, y, rowvar, dtype=dtype)
    if _is_node(c) is False and not hasattr(c, "shape"):
        c = _np.asarray(c)
    if _ndim(c) == 0:
        return c / c
    n = c.shape[0]
    d = _getitem(c, index=(_np.arange(n), _np.arange(n)))
    std = _ew.sqrt(d)
    c = c / _sh.reshape(std, shape=(n, 1)) / _sh.reshape(std, shape=(1, n))
    return _ew.clip(c, a_min=-1.0, a_max=1.0)


# --- calculus ------------------------------------------------------------------------------


def _slice(f: Any, axis: int, start: Any, stop: Any) -> Any:
    return _getitem(f, index=_at(_ndim(f), axis, slice(start, stop)))


def _one_axis_gradient(f: Any, h: Any, axis: int, edge_order: int) -> Any:
    """NumPy's second-order central differences along `axis`, one-sided at the ends."""
    n = f.shape[axis]
    ndim = _ndim(f)
    s = lambda start, stop: _slice(f, axis, start, stop)  # noqa: E731
    if not hasattr(h, "shape") or _ndim(h) == 0:  # uniform spacing
        interior = (s(2, None) - s(None, -2)) / (2.0 * h)
        if edge_order == 1:
            first = (s(1, 2) - s(0, 1)) / h
            last = (s(n - 1, n) - s(n - 2, n - 1)) / h
        else:
            first = (s(0, 1) * -1.5 + s(1, 2) * 2.0 - s(2, 3) * 0.5) / h
            last = (s(n - 3, n - 2) * 0.5 - s(n - 2, n - 1) * 2.0 + s(n - 1, n) * 1.5) / h
    else:  # the steps between coordinates
        place = [1] * ndim
        place[axis] = -1

        def step(start: Any, stop: Any) -> Any:
            return _sh.reshape(_getitem(h, index=(slice(start, stop),)), shape=tuple(place))

        dx1, dx2 = step(None, -1), step(1, None)
        a = -dx2 / (dx1 * (dx1 + dx2))
        b = (dx2 - dx1) / (dx1 * dx2)
        c = dx1 / (dx2 * (dx1 + dx2))
        interior = a * s(None, -2) + b * s(1, -1) + c * s(2, None)
        if edge_order == 1:
            first = (s(1, 2) - s(0, 1)) / step(0, 1)
            last = (s(n - 1, n) - s(n - 2, n - 1)) / step(-1, None)
        else:
            dx1, dx2 = step(0, 1), step(1, 2)
            a = -(2.0 * dx1 + dx2) / (dx1 * (dx1 + dx2))
            b = (dx1 + dx2) / (dx1 * dx2)
            c = -dx1 / (dx2 * (dx1 + dx2))
            first = a * s(0, 1) + b * s(1, 2) + c * s(2, 3)
            dx1, dx2 = step(-2, -1), step(-1, None)
            a = dx2 / (dx1 * (dx1 + dx2))
            b = -(dx2 + dx1) / (dx1 * dx2)
            c = (2.0 * dx2 + dx1) / (dx2 * (dx1 + dx2))
            last = a * s(n - 3, n - 2) + b * s(n - 2, n - 1) + c * s(n - 1, n)
    return _sh.concatenate(first, interior, last, axis=axis)


def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1):
    """Return the gradient of the sampled function `f` by central differences (`numpy.gradient`).

    A composition of `getitem` (slices), arithmetic and `concatenate`, so it
    is differentiable in `f` and in the spacings (scalars or coordinate
    arrays, one per axis), which may be nodes.

    Args:
        f: An array or a graph node.
        *varargs: Nothing (spacing 1), one spacing for every axis, or one
            per axis: a number or the 1-d coordinates along that axis.
        axis: None (all axes), an int or a tuple of ints.
        edge_order: 1 or 2: the order of the one-sided differences at the ends.

    Returns:
        One array (one axis) or a tuple of them (several axes).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.gradient([1.0, 2.0, 4.0, 7.0])
        array([1. , 1.5, 2.5, 3. ])
    """
    if not _any_node(f, *varargs):
        return _numpy.gradient(f, *varargs, axis=axis, edge_order=edge_order)
    f = _arr(f)
    ndim = _ndim(f)
    axes = tuple(range(ndim)) if axis is None else _normalize_axis(_as_axes(axis), ndim, "gradient")
    if edge_order not in (1, 2):
        raise _OpError(f"funcgrad.numpy.gradient: edge_order must be 1 or 2, got {edge_order!r}")
    if not varargs:
        spacing: list[Any] = [1.0] * len(axes)
    elif len(varargs) == 1 and _ndim(_arr(varargs[0])) == 0:
        spacing = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        spacing = list(varargs)
    else:
        raise _OpError(
            f"funcgrad.numpy.gradient: {len(varargs)} spacings for {len(axes)} axes; give none, "
            f"one, or one per axis"
        )
    if _dtype(f).kind not in "fc":
        f = _cast(f, _F64)
    results = []
    for ax, h in zip(axes, spacing, strict=True):
        n = f.shape[ax]
        if n < edge_order + 1:
            raise _OpError(
                f"funcgrad.numpy.gradient: axis {ax} of shape {f.shape} has {n} entries; "
                f"edge_order={edge_order} needs at least {edge_order + 1}"
            )
        if not _is_node(h) and _np.ndim(h) == 0:
            h = float(h)  # a number: weak, as NumPy's result keeps f's dtype
        else:
            h = _arr(h)
        if not isinstance(h, float) and _ndim(h) == 1:
            if h.shape[0] != n:
                raise _OpError(
                    f"funcgrad.numpy.gradient: {h.shape[0]} coordinates along axis {ax} of "
                    f"length {n}"
                )
            h = _getitem(h, index=(slice(1, None),)) - _getitem(h, index=(slice(None, -1),))
        elif not isinstance(h, float) and _ndim(h) != 0:
            raise _OpError("funcgrad.numpy.gradient: a spacing is a number or 1-d coordinates")
        results.append(_cast(_one_axis_gradient(f, h, ax, edge_order), _dtype(f)))
    return results[0] if len(results) == 1 else tuple(results)


def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1):
    """Return the integral of `y` along `axis` by the trapezoidal rule (`numpy.trapezoid`).

    A composition: `sum(d * (y[1:] + y[:-1]) / 2)` with `d` the steps of
    `x` (or `dx`); differentiable in `y`, `x` and `dx`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.trapezoid([1.0, 2.0, 3.0], x=[0.0, 1.0, 3.0])
        np.float64(6.5)
    """
    if not _any_node(y, x, dx):
        return _np.trapezoid(y, x, dx, axis)
    y = _arr(y)
    ndim = _ndim(y)
    ax = _normalize_axis(axis, ndim, "trapezoid")[0]
    if x is None:
        d: Any = dx
    else:
        x = _arr(x)
        if _ndim(x) == 1:
            d = _getitem(x, index=(slice(1, None),)) - _getitem(x, index=(slice(None, -1),))
            place = [1] * ndim
            place[ax] = d.shape[0]
            d = _sh.reshape(d, shape=tuple(place))
        else:
            xa = _normalize_axis(axis, _ndim(x), "trapezoid")[0]
            d = _slice(x, xa, 1, None) - _slice(x, xa, None, -1)
    pairs = _slice(y, ax, 1, None) + _slice(y, ax, None, -1)
    return _reduce.sum_(d * pairs / 2.0, axis=ax, keepdims=False)


def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None):
    """Return the differences of consecutive entries of `ary` flattened, with `to_begin` and `to_end` around them.

    A composition of `getitem`, subtraction and `concatenate`;
    differentiable in all three arguments.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.ediff1d([1.0, 2.0, 4.0], to_begin=0.0)
        array([0., 1., 2.])
    """
    if not _any_node(ary, to_end, to_begin):
        return _np.ediff1d(ary, to_end, to_begin)
    flat = _flat(_arr(ary))
    parts = [_getitem(flat, index=(slice(1, None),)) - _getitem(flat, index=(slice(None, -1),))]
    dtype = _dtype(flat)
    if to_begin is not None:
        parts.insert(
            0, _flat(_arr(to_begin) if _is_node(to_begin) else _np.asarray(to_begin, dtype))
        )
    if to_end is not None:
        parts.append(_flat(_arr(to_end) if _is_node(to_end) else _np.asarray(to_end, dtype)))
    return _sh.concatenate(*parts, axis=0) if len(parts) > 1 else parts[0]


def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None):
    """Return the piecewise linear interpolant through `(xp, fp)` at `x` (`numpy.interp`).

    A composition: `getitem` of the interval's ends (found by
    `searchsorted` on the values), arithmetic and `where`; differentiable in
    `x`, `xp`, `fp`, `left` and `right`. At a knot the slope is the right
    interval's (the left one's at the last knot), as in JAX; outside
    `[xp[0], xp[-1]]` the result is `left` / `right` and its gradient in `x`
    is 0.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.interp(1.5, [1.0, 2.0, 3.0], [10.0, 20.0, 40.0])
        np.float64(15.0)
    """
    if not _any_node(x, xp, fp, left, right, period):
        return _np.interp(x, xp, fp, left, right, period)
    x, xp, fp = (_cast(_arr(a), _F64) for a in (x, xp, fp))  # NumPy computes in float64
    if _ndim(xp) != 1 or _ndim(fp) != 1 or xp.shape != fp.shape or xp.shape[0] == 0:
        raise _OpError(
            f"funcgrad.numpy.interp: xp and fp must be 1-d of the same nonzero length, got "
            f"shapes {xp.shape} and {fp.shape}"
        )
    if period is not None:
        if _value(period) == 0:
            raise _OpError("funcgrad.numpy.interp: period must be a non-zero value")
        period = abs(period) if not _is_node(period) else _ew.absolute(period)
        left = right = None
        x = _mod(x, period)
        xp = _mod(xp, period)
        order = _np.argsort(_value(xp), kind="stable")
        xp, fp = _getitem(xp, index=(order,)), _getitem(fp, index=(order,))
        xp = _sh.concatenate(
            _getitem(xp, index=(slice(-1, None),)) - period,
            xp,
            _getitem(xp, index=(slice(0, 1),)) + period,
            axis=0,
        )
        fp = _sh.concatenate(
            _getitem(fp, index=(slice(-1, None),)), fp, _getitem(fp, index=(slice(0, 1),)), axis=0
        )
    n = xp.shape[0]
    x_v, xp_v = _values(x), _values(xp)
    if n == 1:
        result: Any = _ew.where(_np.ones(x_v.shape, dtype=bool), _getitem(fp, index=(0,)), 0.0)
    else:
        i = _np.clip(_np.searchsorted(xp_v, x_v, side="right"), 1, n - 1)
        x_lo, x_hi = _getitem(xp, index=(i - 1,)), _getitem(xp, index=(i,))
        f_lo, f_hi = _getitem(fp, index=(i - 1,)), _getitem(fp, index=(i,))
        width = x_hi - x_lo
        flat = _np.equal(_value(width), 0)
        t = (x - x_lo) / _ew.where(flat, 1.0, width)
        result = _ew.where(flat, f_hi, f_lo + t * (f_hi - f_lo))
    below = x_v < xp_v[0]
    above = x_v > xp_v[-1]
    if _np.any(below):
        result = _ew.where(below, _getitem(fp, index=(0,)) if left is None else left, result)
    if _np.any(above):
        result = _ew.where(above, _getitem(fp, index=(-1,)) if right is None else right, result)
    return result


def unwrap(p: Any, discont: Any = None, axis: int = -1, *, period: float = 2 * _math.pi):
    """Return `p` with jumps larger than `discont` unwrapped by multiples of `period` (`numpy.unwrap`).

    A composition: `p` plus NumPy's correction, a constant (piecewise
    constant in `p`), so the gradient is 1.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.unwrap([0.0, 6.0]).round(4)
        array([ 0.    , -0.2832])
    """
    if not _is_node(p):
        return _np.unwrap(p, discont, axis, period=period)
    p_v = _value(p)
    unwrapped = _np.unwrap(p_v, discont, axis, period=period)
    return p + (unwrapped - p_v).astype(p.dtype)


# --- convolution ---------------------------------------------------------------------------


# The most entries the sliding windows of a convolution may hold (32 MiB of float64).
_WINDOW_LIMIT = 1 << 22


def _full_convolution(
    a: Any, v: Any, starts: tuple[int, ...], sizes: tuple[int, ...], correlate: bool = False
) -> Any:
    """Return the part `[starts, starts + sizes)` of the full N-d convolution of `a` and `v`.

    With `correlate`, of `a` and `v` flipped along every axis: the full
    cross-correlation.

    A composition: `a` padded with zeros (`pad`), its sliding windows
    (`getitem` with broadcast integer indices, shape `sizes + v.shape`), and
    `matmul` with `v` flipped; differentiable in both. The work is
    `prod(sizes) * v.size` (direct convolution); where the windows would
    hold more than `_WINDOW_LIMIT` entries, it sums the shifted slices of
    `a` times each entry of `v` instead (memory `prod(sizes)` per term).
    """
    ndim = _ndim(a)
    kernel = v.shape
    padded = _sh.pad(a, pad_width=tuple((k - 1, k - 1) for k in kernel), constant_values=0.0)
    flipped = v if correlate or not ndim else _sh.flip(v, axis=tuple(range(ndim)))
    k = int(_np.prod(kernel, dtype=_np.int64))
    size = int(_np.prod(sizes, dtype=_np.int64))
    if size * k > _WINDOW_LIMIT:
        # NOTE: the windows would not fit: a sum over the kernel's taps of shifted
        # slices of `a` times the tap, O(size) memory per term instead.
        out: Any = None
        for tap in _np.ndindex(*kernel):
            part = tuple(
                slice(s + j, s + j + n) for s, j, n in zip(starts, tap, sizes, strict=True)
            )
            term = _getitem(padded, index=part) * _getitem(flipped, index=tap)
            out = term if out is None else out + term
        return out
    index = []
    for d in range(ndim):
        out_place = [1] * (2 * ndim)
        out_place[d] = sizes[d]
        k_place = [1] * (2 * ndim)
        k_place[ndim + d] = kernel[d]
        index.append(
            _np.arange(starts[d], starts[d] + sizes[d]).reshape(out_place)
            + _np.arange(kernel[d]).reshape(k_place)
        )
    windows = _getitem(padded, index=tuple(index))
    out = _matmul(_sh.reshape(windows, shape=(size, k)), _sh.reshape(flipped, shape=(k,)))
    return _sh.reshape(out, shape=tuple(sizes))


def _convolve1d(name: str, a: Any, v: Any, mode: str, flip: bool) -> Any:
    a, v = _arr(a), _arr(v)
    if _ndim(a) > 1 or _ndim(v) > 1:
        raise _OpError(
            f"funcgrad.numpy.{name}: a and v must be 1-d (got shapes {a.shape}, {v.shape}); "
            f"funcgrad.scipy.signal.{name} takes N-d arrays"
        )
    a, v = _sh.reshape(a, shape=(-1,)), _sh.reshape(v, shape=(-1,))
    n, m = a.shape[0], v.shape[0]
    if n == 0 or m == 0:
        raise _OpError(f"funcgrad.numpy.{name}: {'a' if n == 0 else 'v'} cannot be empty")
    short = min(n, m)
    if mode == "full":
        start, size = 0, n + m - 1
    elif mode == "same":
        start = (short - 1) // 2
        if flip and n < m:  # numpy.correlate swaps and reverses its inputs then
            start = short - 1 - start
        size = max(n, m)
    elif mode == "valid":
        start, size = short - 1, max(n, m) - short + 1
    else:
        raise _OpError(
            f"funcgrad.numpy.{name}: mode must be 'full', 'same' or 'valid', got {mode!r}"
        )
    return _full_convolution(a, v, (start,), (size,), correlate=flip)


def convolve(a: Any, v: Any, mode: str = "full"):
    """Return the discrete linear convolution of the 1-d arrays `a` and `v` (`numpy.convolve`).

    A composition (see `full_convolution`): sliding windows of `a` padded,
    times `v` flipped; differentiable in both. Modes `'full'`, `'same'`,
    `'valid'`, as NumPy.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.convolve([1.0, 2.0, 3.0], [0.0, 1.0, 0.5])
        array([0. , 1. , 2.5, 4. , 1.5])
    """
    if not _any_node(a, v):
        return _numpy.convolve(a, v, mode)
    return _convolve1d("convolve", a, v, mode, flip=False)


def correlate(a: Any, v: Any, mode: str = "valid"):
    """Return the cross-correlation of the 1-d arrays `a` and `v` (`numpy.correlate`, real values).

    `convolve(a, v[::-1], mode)` with NumPy's placement of `'same'`;
    differentiable in both.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.correlate([1.0, 2.0, 3.0], [0.0, 1.0, 0.5])
        array([3.5])
    """
    if not _any_node(a, v):
        return _numpy.correlate(a, v, mode)
    return _convolve1d("correlate", a, v, mode, flip=True)


# --- counting with weights -----------------------------------------------------------------


def bincount(x: Any, weights: Any = None, minlength: int = 0):
    """Return how many times each non-negative integer occurs in `x`, or the sum of its `weights`.

    The counts have no gradient. With node `weights` the sums are the
    `scatter_add` of the weights (differentiable in them); they keep the
    weights' float dtype, where NumPy gives float64.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.bincount([0, 1, 1, 3])
        array([1, 2, 0, 1])
    """
    x_v = _np.asarray(_value(x))
    if not _is_node(weights):
        return _np.bincount(x_v, weights=weights, minlength=minlength)
    counts = _np.bincount(x_v, minlength=minlength)  # NumPy's checks, and the length
    w = _arr(weights)
    if w.shape != x_v.shape:
        raise _OpError(
            f"funcgrad.numpy.bincount: weights of shape {w.shape} for x of shape {x_v.shape}"
        )
    return _scatter_add(_cast(w, _F64), index=(x_v.astype(_np.intp),), shape=counts.shape)


def _bin_index(values: Any, edges: Any) -> Any:
    """NumPy's bin of each value (the last bin closed), -1 outside the edges."""
    index = _np.searchsorted(edges, values, side="right") - 1
    index = _np.where(values == edges[-1], len(edges) - 2, index)
    return _np.where((values < edges[0]) | (values > edges[-1]) | _np.isnan(values), -1, index)


def _weighted_counts(weights: Any, bins: list[Any], shape: tuple[int, ...]) -> Any:
    """Sum node `weights` (flattened) into the bins of flat index `bins` (-1: left out)."""
    inside = _np.ones(bins[0].shape, dtype=bool)
    for b in bins:
        inside &= b >= 0
    flat = _np.ravel_multi_index(tuple(b[inside] for b in bins), shape) if bins[0].size else bins[0]
    w = _getitem(_flat(weights), index=(inside,))
    total = _scatter_add(w, index=(flat.astype(_np.intp),), shape=(int(_np.prod(shape)),))
    return _sh.reshape(total, shape=shape)


def histogram(
    a: Any,
    bins: Any = 10,
    range: Any = None,  # noqa: A002
    density: Any = None,
    weights: Any = None,
):
    """Return the counts of `a` in bins, and the bin edges (`numpy.histogram`).

    The counts are piecewise constant in `a` (no gradient). With node
    `weights` they are the sums of the weights in each bin (`scatter_add`,
    differentiable in the weights). The edges, with a node `a` and a number
    of bins, run from `a.min()` to `a.max()` and are differentiable in
    them (as in JAX), and so is `density=True` through the bin widths.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> counts, edges = fnp.histogram([0.0, 1.0, 4.0], bins=2)
        >>> counts, edges
        (array([2, 1]), array([0., 2., 4.]))
    """
    a_v, bins_v, w_v = _value(a), _value(bins), _value(weights)
    counts, edges = _numpy.histogram(a_v, bins_v, range, None, w_v)
    if _is_node(weights):
        index = _bin_index(_np.asarray(a_v).ravel(), edges)
        counts = _weighted_counts(weights, [index], (len(edges) - 1,))
    data_edges = (
        type(a) is _Node
        and a.size > 0
        and range is None
        and _np.ndim(bins) == 0
        and not isinstance(bins, str)
    )
    if data_edges:
        edges = _edges_from_data(a, bins)
    if density:
        widths = _getitem(edges, index=(slice(1, None),)) - _getitem(
            edges, index=(slice(None, -1),)
        )
        counts, widths = _cast(_arr(counts), _F64), _cast(_arr(widths), _F64)  # as NumPy's
        with _np.errstate(divide="ignore", invalid="ignore"):
            counts = counts / widths / _reduce.sum_(counts, axis=None, keepdims=False)
    return counts, edges


def histogramdd(
    sample: Any, bins: Any = 10, range: Any = None, density: Any = None, weights: Any = None
):  # noqa: A002
    """Return the multidimensional histogram of `sample` and its edges (`numpy.histogramdd`).

    Value-only in `sample` (the counts are piecewise constant; the edges
    are plain arrays here). With node `weights` the counts are the sums of
    the weights in each bin (`scatter_add`), differentiable in the weights.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> hist, edges = fnp.histogramdd([[0.0, 1.0], [0.0, 1.0]], bins=2)  # x and y
        >>> hist
        array([[1., 0.],
               [0., 1.]])
    """
    s_v = _value(sample)
    if not hasattr(s_v, "shape"):  # a sequence of D coordinate arrays, as NumPy reads it
        s_v = [_value(s) for s in s_v]
    hist, edges = _numpy.histogramdd(s_v, bins, range, density, _value(weights))
    if not _is_node(weights):
        return hist, edges
    points = _np.asarray(s_v, dtype=float)
    points = points if hasattr(s_v, "shape") and points.ndim == 2 else _np.atleast_2d(points).T
    index = [_bin_index(points[:, i], e) for i, e in enumerate(edges)]
    shape = tuple(len(e) - 1 for e in edges)
    counts = _weighted_counts(_cast(_arr(weights), _F64), index, shape)
    if density:
        total = _reduce.sum_(counts, axis=None, keepdims=False)
        for i, e in enumerate(edges):
            place = [1] * len(edges)
            place[i] = -1
            counts = counts / _np.diff(e).reshape(place)
        counts = counts / total
    return counts, edges


def histogram2d(
    x: Any, y: Any, bins: Any = 10, range: Any = None, density: Any = None, weights: Any = None
):  # noqa: A002
    """Return the 2-d histogram of the points `(x, y)` and its edges (`numpy.histogram2d`).

    Value-only in `x` and `y`; with node `weights` the counts are the sums
    of the weights in each bin, differentiable in the weights (see
    `histogramdd`).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> hist, xedges, yedges = fnp.histogram2d([0.0, 1.0], [0.0, 1.0], bins=2)
        >>> hist
        array([[1., 0.],
               [0., 1.]])
    """
    x_v, y_v = _np.asarray(_value(x)), _np.asarray(_value(y))
    hist, xedges, yedges = _numpy.histogram2d(x_v, y_v, bins, range, density, _value(weights))
    if not _is_node(weights):
        return hist, xedges, yedges
    index = [_bin_index(x_v.ravel(), xedges), _bin_index(y_v.ravel(), yedges)]
    counts = _weighted_counts(_cast(_arr(weights), _F64), index, (len(xedges) - 1, len(yedges) - 1))
    if density:
        total = _reduce.sum_(counts, axis=None, keepdims=False)
        counts = counts / _np.diff(xedges).reshape(-1, 1) / _np.diff(yedges).reshape(1, -1) / total
    return counts, xedges, yedges

"""Differential cases of the statistics, cumulative, calculus and signal functions (issue #13).

HIPS autograd 1.9.1 has most of these names but no VJP for them (cumprod,
nanvar, median, quantile, cov, interp, convolve, ... raise
NotImplementedError): those are compared with NumPy's values and central
differences (the "fd" entries of `functional_differences.DIFFERENCES`).
autograd differentiates `gradient` (axis= only), `partition` (1-d only)
and `sort`: those forms are compared with autograd.
"""

from __future__ import annotations

import numpy as np

from tests.differential.functional_cases import AXIS_KINDS, Example, case

QUANTILE_METHODS = (
    "linear",
    "lower",
    "higher",
    "nearest",
    "midpoint",
    "hazen",
    "weibull",
    "median_unbiased",
    "normal_unbiased",
    "interpolated_inverted_cdf",
    "inverted_cdf",
    "averaged_inverted_cdf",
    "closest_observation",
)


def _reduce_axis(g, ndim):
    """An axis for a reduction over a non-empty set of axes (no empty tuple)."""
    return g.axis(ndim, g.choice(AXIS_KINDS), allow_empty_tuple=False)


def _with_nans(g, shape):
    """An array of `shape` (sides >= 3) with NaN at index 0 of every axis: each slice keeps 2 numbers."""
    x = g.array(shape)
    if x.ndim:
        x[(0,) * x.ndim] = np.nan
    return x


# --- cumulative sums and products ----------------------------------------------------


@case("cumprod", smooth=True)
def _cumprod(g):
    x = g.array(g.shape())
    if x.ndim == 0 or g.boolean():
        return Example((x,), lambda m, x: m.cumprod(x))
    axis = g.integers(-x.ndim, x.ndim - 1)
    return Example((x,), lambda m, x: m.cumprod(x, axis=axis), f"axis={axis}")


for _name in ("cumulative_sum", "cumulative_prod"):

    @case(_name, smooth=True)
    def _cumulative(g, _name=_name):
        x = g.array(g.shape(min_dims=1))
        axis = g.integers(-x.ndim, x.ndim - 1)
        initial = g.boolean()
        return Example(
            (x,),
            lambda m, x: getattr(m, _name)(x, axis=axis, include_initial=initial),
            f"axis={axis}, include_initial={initial}",
        )


for _name, _fill in (("nancumsum", 0.0), ("nancumprod", 1.0)):

    @case(_name, smooth=True)
    def _nancumulative(g, _name=_name):
        x = _with_nans(g, g.shape(min_dims=1, empty=False))
        axis = None if g.boolean() else g.integers(-x.ndim, x.ndim - 1)
        return Example((x,), lambda m, x: getattr(m, _name)(x, axis=axis), f"axis={axis}")


# --- NaN-ignoring reductions -----------------------------------------------------------


@case("nanprod", smooth=True)
def _nanprod(g):
    shape = tuple(g.integers(3, 4) for _ in range(g.integers(1, 3)))
    x = _with_nans(g, shape)
    axis = _reduce_axis(g, x.ndim)
    keepdims = g.boolean()
    return Example((x,), lambda m, x: m.nanprod(x, axis=axis, keepdims=keepdims), f"axis={axis!r}")


for _name in ("nanvar", "nanstd"):

    @case(_name)
    def _nanmoment(g, _name=_name):
        shape = tuple(g.integers(3, 4) for _ in range(g.integers(1, 3)))
        x = _with_nans(g, shape) if g.boolean() else g.array(shape)
        axis = _reduce_axis(g, x.ndim)
        ddof, keepdims = g.integers(0, 1), g.boolean()
        return Example(
            (x,),
            lambda m, x: getattr(m, _name)(x, axis=axis, ddof=ddof, keepdims=keepdims),
            f"axis={axis!r}, ddof={ddof}, keepdims={keepdims}",
        )


# --- order statistics ----------------------------------------------------------------


for _name, _scale in (("quantile", 1.0), ("percentile", 100.0)):

    @case(_name)
    def _quantile(g, _name=_name, _scale=_scale):
        x = g.array(g.shape(min_dims=1, empty=False))
        axis = _reduce_axis(g, x.ndim)
        method = g.choice(QUANTILE_METHODS)
        q = [g.scalar(0.0, 1.0, pool=(0.0, 0.5, 1.0)) * _scale for _ in range(g.integers(0, 2))]
        q = q[0] if len(q) == 1 else q or 0.5 * _scale
        keepdims = g.boolean()
        return Example(
            (x,),
            lambda m, x: getattr(m, _name)(x, q, axis=axis, method=method, keepdims=keepdims),
            f"q={q!r}, axis={axis!r}, method={method!r}, keepdims={keepdims}",
        )


for _name, _scale in (("nanquantile", 1.0), ("nanpercentile", 100.0)):

    @case(_name)
    def _nanquantile(g, _name=_name, _scale=_scale):
        shape = tuple(g.integers(3, 4) for _ in range(g.integers(1, 3)))
        x = _with_nans(g, shape)
        axis = _reduce_axis(g, x.ndim)
        method = g.choice(QUANTILE_METHODS[:5])
        q = g.scalar(0.0, 1.0, pool=(0.0, 0.5, 1.0)) * _scale
        return Example(
            (x,),
            lambda m, x: getattr(m, _name)(x, q, axis=axis, method=method),
            f"q={q!r}, axis={axis!r}, method={method!r}",
        )


@case("median")
def _median(g):
    x = g.array(g.shape(min_dims=1, empty=False))
    axis = _reduce_axis(g, x.ndim)
    keepdims = g.boolean()
    return Example((x,), lambda m, x: m.median(x, axis=axis, keepdims=keepdims), f"axis={axis!r}")


@case("nanmedian")
def _nanmedian(g):
    shape = tuple(g.integers(3, 4) for _ in range(g.integers(1, 3)))
    x = _with_nans(g, shape)
    axis = _reduce_axis(g, x.ndim)
    return Example((x,), lambda m, x: m.nanmedian(x, axis=axis), f"axis={axis!r}")


@case("partition")
def _partition(g):
    x = g.array((g.integers(1, 5),))
    kth = g.integers(0, x.shape[0] - 1)
    return Example((x,), lambda m, x: m.partition(x, kth), f"kth={kth}")


@case("partition", "n-d")
def _partition_nd(g):
    x = g.array(g.shape(min_dims=2, empty=False))
    axis = g.integers(-x.ndim, x.ndim - 1)
    kth = g.integers(0, x.shape[axis] - 1)
    return Example((x,), lambda m, x: m.partition(x, kth, axis=axis), f"kth={kth}, axis={axis}")


@case("sort_complex")
def _sort_complex(g):
    x = g.array(g.shape(min_dims=1, max_dims=1))
    # its result is complex: the real part, which grad can take (it is the sorted x)
    return Example((x,), lambda m, x: m.real(m.sort_complex(x)))


# --- covariance --------------------------------------------------------------------------


@case("cov", smooth=True)
def _cov(g):
    shape = (g.integers(1, 3), g.integers(3, 5))
    rowvar = g.boolean()
    x = g.array(shape if rowvar else shape[::-1])
    if g.boolean():
        x = x[0] if rowvar else x[:, 0]  # one variable: a 0-d result
    bias = g.boolean()
    ddof = g.choice((None, 0, 2))
    return Example(
        (x,),
        lambda m, x: m.cov(x, rowvar=rowvar, bias=bias, ddof=ddof),
        f"rowvar={rowvar}, bias={bias}, ddof={ddof}",
    )


@case("cov", "weights", smooth=True)
def _cov_weights(g):
    x = g.array((g.integers(1, 3), g.integers(3, 5)))
    y = g.array((1, x.shape[1]))
    aw = g.array((x.shape[1],), 0.5, 2.0)
    fw = np.asarray(g.rng().integers(1, 3, size=x.shape[1]))
    ddof = g.choice((None, 0, 1))
    return Example(
        (x, y, aw),
        lambda m, x, y, aw: m.cov(x, y, fweights=fw, aweights=aw, ddof=ddof),
        f"fweights={fw!r}, ddof={ddof}",
    )


@case("corrcoef")
def _corrcoef(g):
    x = g.array((g.integers(2, 3), g.integers(3, 5)))
    rowvar = g.boolean()
    x = x if rowvar else x.T
    return Example((x,), lambda m, x: m.corrcoef(x, rowvar=rowvar), f"rowvar={rowvar}")


# --- calculus ----------------------------------------------------------------------------


@case("gradient", smooth=True)
def _gradient(g):
    # sides of 4 or more: autograd's gradient VJP fails on 2 (IndexError) and 3 (broadcasting)
    x = g.array(tuple(g.integers(4, 5) for _ in range(g.integers(1, 2))))
    axis = g.integers(-x.ndim, x.ndim - 1)
    return Example((x,), lambda m, x: m.gradient(x, axis=axis), f"axis={axis}")


@case("gradient", "spacing", smooth=True)
def _gradient_spacing(g):
    shape = tuple(g.integers(3, 4) for _ in range(g.integers(1, 3)))
    f = g.array(shape)
    edge_order = g.integers(1, 2)
    coords = tuple(np.cumsum(g.rng().uniform(0.5, 1.5, size=n)) for n in shape)
    h = g.scalar(0.5, 2.0, pool=(0.5, 1.0, 2.0))
    kind = g.choice(("scalar", "coordinates", "mixed"))
    if kind == "scalar":
        spacing = (h,)
    elif kind == "coordinates":
        spacing = coords
    else:
        spacing = (coords[0],) + (h,) * (len(shape) - 1)
    return Example(
        (f,),
        lambda m, f: m.gradient(f, *spacing, edge_order=edge_order),
        f"{kind} spacing {spacing!r}, edge_order={edge_order}",
    )


@case("gradient", "coordinates", smooth=True)
def _gradient_coordinates(g):
    n = g.integers(3, 5)
    f = g.array((n,))
    x = np.asarray(np.cumsum(g.rng().uniform(0.5, 1.5, size=n)), dtype=g.dtype)
    edge_order = g.integers(1, 2)
    return Example(
        (f, x), lambda m, f, x: m.gradient(f, x, edge_order=edge_order), f"edge_order={edge_order}"
    )


@case("trapezoid", smooth=True)
def _trapezoid(g):
    y = g.array(g.shape(min_dims=1, empty=False))
    axis = g.integers(-y.ndim, y.ndim - 1)
    if g.boolean():
        dx = g.scalar(0.5, 2.0)
        return Example((y,), lambda m, y: m.trapezoid(y, dx=dx, axis=axis), f"dx={dx}, axis={axis}")
    x = g.array((y.shape[axis],) if g.boolean() else y.shape)
    return Example((y, x), lambda m, y, x: m.trapezoid(y, x, axis=axis), f"axis={axis}")


@case("ediff1d", smooth=True)
def _ediff1d(g):
    x = g.array(g.shape(min_dims=1, empty=False))
    begin = g.array((g.integers(0, 2),))
    end = g.array(())
    return Example((x, begin, end), lambda m, x, b, e: m.ediff1d(x, to_end=e, to_begin=b))


@case("interp")
def _interp(g):
    n = g.integers(2, 5)
    xp = np.asarray(np.cumsum(g.rng().uniform(0.5, 1.5, size=n)), dtype=g.dtype)
    fp = g.array((n,))
    x = g.array(g.shape(), xp[0] - 1.0, xp[-1] + 1.0)
    left, right = (None, None) if g.boolean() else (g.scalar(), g.scalar())
    return Example(
        (x, xp, fp),
        lambda m, x, xp, fp: m.interp(x, xp, fp, left=left, right=right),
        f"left={left}, right={right}",
    )


@case("interp", "period")
def _interp_period(g):
    n = g.integers(2, 5)
    xp = np.asarray(g.rng().uniform(-3.0, 3.0, size=n), dtype=g.dtype)
    fp = g.array((n,))
    x = g.array(g.shape(), -5.0, 5.0)
    period = g.choice((2.0, 2 * np.pi))
    return Example(
        (x, fp), lambda m, x, fp: m.interp(x, xp, fp, period=period), f"xp={xp!r}, period={period}"
    )


for _name in ("convolve", "correlate"):

    @case(_name, smooth=True)
    def _convolve(g, _name=_name):
        a = g.array((g.integers(1, 5),))
        v = g.array((g.integers(1, 5),))
        mode = g.choice(("full", "same", "valid"))
        return Example((a, v), lambda m, a, v: getattr(m, _name)(a, v, mode), f"mode={mode!r}")


@case("unwrap", smooth=True)
def _unwrap(g):
    x = g.array(g.shape(min_dims=1), -8.0, 8.0)
    axis = g.integers(-x.ndim, x.ndim - 1)
    return Example((x,), lambda m, x: m.unwrap(x, axis=axis), f"axis={axis}")


# --- counting ----------------------------------------------------------------------------


@case("histogram", "weights", smooth=True)
def _histogram_weights(g):
    a = np.asarray(g.rng().uniform(-2.0, 2.0, size=g.integers(1, 6)), dtype=g.dtype)
    density = g.boolean()
    w = g.array(a.shape, 0.5, 2.0) if density else g.array(a.shape)  # density: a nonzero total
    bins = g.choice((3, np.array([-2.5, -1.0, 0.0, 0.5, 2.5])))
    return Example(
        (w,),
        lambda m, w: m.histogram(a, bins=bins, weights=w, density=density)[0],
        f"a={a!r}, bins={bins!r}, density={density}",
    )


@case("histogram2d", differentiable=False)
def _histogram2d(g):
    x = g.array((g.integers(1, 5),))
    y = g.array(x.shape)
    return Example((x, y), lambda m, x, y: m.histogram2d(x, y, bins=3))


@case("histogram2d", "weights", smooth=True)
def _histogram2d_weights(g):
    x, y = (np.asarray(g.rng().uniform(-2, 2, size=4), dtype=g.dtype) for _ in range(2))
    density = g.boolean()
    w = g.array(x.shape, 0.5, 2.0) if density else g.array(x.shape)
    return Example(
        (w,),
        lambda m, w: m.histogram2d(x, y, bins=2, weights=w, density=density)[0],
        f"x={x!r}, y={y!r}, density={density}",
    )


@case("histogramdd", differentiable=False)
def _histogramdd(g):
    sample = g.array((g.integers(1, 5), g.integers(1, 3)))
    return Example((sample,), lambda m, s: m.histogramdd(s, bins=2))


@case("histogramdd", "weights", smooth=True)
def _histogramdd_weights(g):
    sample = np.asarray(g.rng().uniform(-2, 2, size=(5, g.integers(1, 3))), dtype=g.dtype)
    density = g.boolean()
    w = g.array((5,), 0.5, 2.0) if density else g.array((5,))
    return Example(
        (w,),
        lambda m, w: m.histogramdd(sample, bins=2, weights=w, density=density)[0],
        f"sample={sample!r}, density={density}",
    )

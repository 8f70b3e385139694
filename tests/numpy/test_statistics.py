"""funcgrad.numpy's statistics, cumulative, calculus and signal functions (`_statistics.py`).

Values on graph nodes against NumPy's on arrays, derivatives against central
differences (`funcgrad.check_grads`, first and second order), and the
conventions at kinks against PyTorch 2.13: `torch.quantile` at ties, and
`torch.cumprod` at zeros.
"""

# ruff: noqa: B023  (the lambdas in loops are called at once, inside their iteration)

from __future__ import annotations

import itertools

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.errors import AxisError, FuncgradError
from tests.references import requires

RNG = np.random.default_rng(1234)
X = RNG.normal(size=(3, 4, 5))
METHODS = (
    "linear",
    "lower",
    "higher",
    "nearest",
    "midpoint",
    "inverted_cdf",
    "averaged_inverted_cdf",
    "closest_observation",
    "interpolated_inverted_cdf",
    "hazen",
    "weibull",
    "median_unbiased",
    "normal_unbiased",
)


def on_nodes(f, *args):
    """`f` evaluated with its arguments as graph nodes (its value, from `funcgrad.vjp`)."""
    out, _ = fg.vjp(f, *args)
    return out


def assert_like_numpy(got, want, rtol=1e-12):
    if isinstance(want, tuple | list):
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert_like_numpy(g, w, rtol)
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-13, equal_nan=True)


def with_nans(x):
    x = x.copy()
    x[(0,) * x.ndim] = np.nan
    x.flat[7] = np.nan
    return x


AXES = (None, 0, -1, (0, 2), (-1, 1), (0, 1, 2))


# --- values against NumPy -------------------------------------------------------------


@pytest.mark.parametrize(("axis", "keepdims"), itertools.product(AXES, (False, True)))
@pytest.mark.parametrize("method", METHODS)
def test_quantile_values_match_numpy(method, axis, keepdims):
    for q in (0.0, 0.37, 1.0, [0.05, 0.5, 0.95], np.array([[0.2], [0.8]])):
        got = on_nodes(lambda x: fnp.quantile(x, q, axis=axis, method=method, keepdims=keepdims), X)
        assert_like_numpy(got, np.quantile(X, q, axis=axis, method=method, keepdims=keepdims))
    got = on_nodes(
        lambda x: fnp.percentile(x, 40.0, axis=axis, method=method, keepdims=keepdims), X
    )
    assert_like_numpy(got, np.percentile(X, 40.0, axis=axis, method=method, keepdims=keepdims))


# q as NumPy 2 sees it: Python numbers are weak, NumPy floats keep their dtype
QS = {
    "quantile": (0.3, 1, [0.2, 0.9], np.float64(0.4), np.float32(0.4), np.array([0, 1])),
    "percentile": (30.0, 40, np.array([10.0, 75.0], dtype=np.float32), np.array([10, 50])),
    "nanquantile": (0.6, np.array([0.2, 0.7], dtype=np.float32), np.array([0.25, 0.8])),
}


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("name", list(QS))
def test_quantile_dtype_follows_numpy(name, dtype):
    # float32 data and a float32 (or Python) q stay float32 on nodes, as in NumPy
    x = X[0].astype(dtype)
    for method in ("linear", "lower", "midpoint", "hazen"):
        for q in QS[name]:
            fn = getattr(fnp, name)
            got = on_nodes(lambda x: fn(x, q, axis=-1, method=method), x)
            want = getattr(np, name)(x, q, axis=-1, method=method)
            assert got.dtype == want.dtype, (q, method, got.dtype, want.dtype)
            rtol = 1e-2 if dtype == np.float16 else 1e-6
            np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
            assert fg.grad(lambda x: fnp.sum(fn(x, q, method=method)))(x).dtype == dtype


@pytest.mark.parametrize(("axis", "keepdims"), itertools.product(AXES, (False, True)))
def test_nan_order_statistics_match_numpy(axis, keepdims):
    x = with_nans(X)
    for method in ("linear", "lower", "nearest", "midpoint", "hazen"):
        for q in (0.25, [0.0, 0.6, 1.0]):
            got = on_nodes(
                lambda x: fnp.nanquantile(x, q, axis=axis, method=method, keepdims=keepdims), x
            )
            want = np.nanquantile(x, q, axis=axis, method=method, keepdims=keepdims)
            assert_like_numpy(got, want)
    got = on_nodes(lambda x: fnp.nanpercentile(x, 70, axis=axis, keepdims=keepdims), x)
    assert_like_numpy(got, np.nanpercentile(x, 70, axis=axis, keepdims=keepdims))
    assert_like_numpy(
        on_nodes(lambda x: fnp.nanmedian(x, axis=axis, keepdims=keepdims), x),
        np.nanmedian(x, axis=axis, keepdims=keepdims),
    )
    # a slice with NaN gives NaN without nan-
    assert_like_numpy(
        on_nodes(lambda x: fnp.median(x, axis=axis, keepdims=keepdims), x),
        np.median(x, axis=axis, keepdims=keepdims),
    )


def test_all_nan_slice_gives_nan():
    x = X.copy()
    x[0] = np.nan
    with pytest.warns(RuntimeWarning):
        want = np.nanmedian(x, axis=(1, 2))
    assert_like_numpy(on_nodes(lambda x: fnp.nanmedian(x, axis=(1, 2)), x), want)


@pytest.mark.parametrize(("axis", "keepdims"), itertools.product(AXES, (False, True)))
def test_nan_reductions_match_numpy(axis, keepdims):
    x = with_nans(X)
    for ddof in (0, 1):
        for f in ("nanvar", "nanstd"):
            for a in (x, X):
                got = on_nodes(
                    lambda a: getattr(fnp, f)(a, axis=axis, ddof=ddof, keepdims=keepdims), a
                )
                want = getattr(np, f)(a, axis=axis, ddof=ddof, keepdims=keepdims)
                assert_like_numpy(got, want)
    got = on_nodes(lambda a: fnp.nanprod(a, axis=axis, keepdims=keepdims), x)
    assert_like_numpy(got, np.nanprod(x, axis=axis, keepdims=keepdims))


def test_cumulative_functions_match_numpy():
    x = with_nans(X)
    for axis in (None, 0, 1, -1):
        for f in ("cumsum", "cumprod", "nancumsum", "nancumprod"):
            a = X if f.startswith("cum") else x
            assert_like_numpy(
                on_nodes(lambda a: getattr(fnp, f)(a, axis=axis), a), getattr(np, f)(a, axis=axis)
            )
    for f in ("cumulative_sum", "cumulative_prod"):
        for axis, initial in itertools.product((0, 1, -1), (False, True)):
            got = on_nodes(lambda a: getattr(fnp, f)(a, axis=axis, include_initial=initial), X)
            assert_like_numpy(got, getattr(np, f)(X, axis=axis, include_initial=initial))
        v = X[0, 0]
        assert_like_numpy(on_nodes(lambda v: getattr(fnp, f)(v), v), getattr(np, f)(v))
        with pytest.raises(FuncgradError, match=f):  # NumPy also wants an axis for n-d
            on_nodes(lambda a: getattr(fnp, f)(a), X)


def test_cumprod_float32_and_0d():
    x = X[0].astype(np.float32)
    got = on_nodes(lambda x: fnp.cumprod(x, axis=1), x)
    assert got.dtype == np.float32
    grad = fg.grad(lambda x: fnp.sum(fnp.cumprod(x, axis=0)))(x)
    assert grad.dtype == np.float32


@pytest.mark.parametrize("rowvar", [True, False])
@pytest.mark.parametrize("bias", [True, False])
def test_cov_and_corrcoef_match_numpy(rowvar, bias):
    m = X[0] if rowvar else X[0].T
    y = X[1, :2] if rowvar else X[1, :2].T
    fw = np.array([1, 2, 0, 3, 1])
    aw = RNG.uniform(0.5, 2.0, size=5)
    for ddof in (None, 0, 2):
        for kw in ({}, {"fweights": fw}, {"aweights": aw}, {"fweights": fw, "aweights": aw}):
            got = on_nodes(
                lambda m, y: fnp.cov(m, y, rowvar=rowvar, bias=bias, ddof=ddof, **kw), m, y
            )
            assert_like_numpy(got, np.cov(m, y, rowvar=rowvar, bias=bias, ddof=ddof, **kw))
    assert_like_numpy(on_nodes(lambda v: fnp.cov(v), X[0, 0]), np.cov(X[0, 0]))
    assert_like_numpy(
        on_nodes(lambda m: fnp.corrcoef(m, rowvar=rowvar), m), np.corrcoef(m, rowvar=rowvar)
    )
    got = on_nodes(lambda m, y: fnp.corrcoef(m, y, rowvar=rowvar), m, y)
    assert_like_numpy(got, np.corrcoef(m, y, rowvar=rowvar))
    # float32 in: NumPy computes in float64, and so does funcgrad (the gradient is float32)
    m32 = m.astype(np.float32)
    assert_like_numpy(on_nodes(fnp.cov, m32), np.cov(m32), rtol=1e-6)
    assert fg.grad(lambda m: fnp.sum(fnp.cov(m)))(m32).dtype == np.float32


def test_average_has_a_gradient_in_the_weights():
    w = RNG.uniform(0.5, 2.0, size=5)
    avg, total = on_nodes(lambda x, w: fnp.average(x, axis=1, weights=w, returned=True), X[0], w)
    want = np.average(X[0], axis=1, weights=w, returned=True)
    assert_like_numpy((avg, total), want)
    fg.check_grads(lambda x, w: fnp.average(x, axis=1, weights=w), (X[0], w), order=2)


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_matches_numpy(edge_order):
    x0 = np.cumsum(RNG.uniform(0.5, 1.5, size=3))
    x2 = np.cumsum(RNG.uniform(0.5, 1.5, size=5))
    for spacing, axis in (
        ((), None),
        ((0.5,), None),
        ((x0, 2.0, x2), None),
        ((x2,), -1),
        ((x0, x2), (0, 2)),
        ((1.5,), 1),
    ):
        got = on_nodes(lambda f: fnp.gradient(f, *spacing, axis=axis, edge_order=edge_order), X)
        assert_like_numpy(got, np.gradient(X, *spacing, axis=axis, edge_order=edge_order))
    x32 = X.astype(np.float32)
    got = on_nodes(lambda f: fnp.gradient(f, 0.5, x2, axis=(0, 2)), x32)
    assert_like_numpy(got, np.gradient(x32, 0.5, x2, axis=(0, 2)), rtol=1e-6)
    with pytest.raises(FuncgradError, match="edge_order"):
        on_nodes(lambda f: fnp.gradient(f[:, :2], axis=1, edge_order=2), X)


def test_calculus_and_signal_functions_match_numpy():
    xs = np.array([0.0, 1.0, 3.0, 4.0, 7.0])
    cases = [
        (lambda y: fnp.trapezoid(y, x=xs), lambda y: np.trapezoid(y, x=xs)),
        (lambda y: fnp.trapezoid(y, dx=0.3, axis=0), lambda y: np.trapezoid(y, dx=0.3, axis=0)),
        (lambda y: fnp.trapezoid(y, x=y**2, axis=1), lambda y: np.trapezoid(y, x=y**2, axis=1)),
        (lambda y: fnp.ediff1d(y), np.ediff1d),
        (lambda y: fnp.ediff1d(y, [1.0], [2.0, 3.0]), lambda y: np.ediff1d(y, [1.0], [2.0, 3.0])),
        (lambda y: fnp.unwrap(3 * y), lambda y: np.unwrap(3 * y)),
        (
            lambda y: fnp.unwrap(3 * y, axis=0, period=4.0),
            lambda y: np.unwrap(3 * y, axis=0, period=4.0),
        ),
        (lambda y: fnp.partition(y, 2, axis=1), lambda y: np.partition(y, 2, axis=1)),
        (
            lambda y: fnp.partition(y, (0, 3), axis=None),
            lambda y: np.partition(y, (0, 3), axis=None),
        ),
    ]
    for f, ref in cases:
        assert_like_numpy(on_nodes(f, X), ref(X))
    for mode, n, m in itertools.product(("full", "same", "valid"), (1, 2, 5), (1, 3, 6)):
        a, v = RNG.normal(size=n), RNG.normal(size=m)
        for f in ("convolve", "correlate"):
            got = on_nodes(lambda a, v: getattr(fnp, f)(a, v, mode), a, v)
            assert_like_numpy(got, getattr(np, f)(a, v, mode))
    assert_like_numpy(fnp.sort_complex(X[0, 0]), np.sort_complex(X[0, 0]))


def test_interp_matches_numpy():
    xp = np.array([-1.0, 0.0, 0.5, 2.0])
    fp = np.array([1.0, -2.0, 0.5, 3.0])
    x = np.concatenate([RNG.uniform(-2.0, 3.0, size=20), xp])
    for kw in ({}, {"left": -7.0, "right": 9.0}, {"period": 2.5}, {"period": -3.0}):
        got = on_nodes(lambda x, xp, fp: fnp.interp(x, xp, fp, **kw), x, xp, fp)
        assert_like_numpy(got, np.interp(x, xp, fp, **kw))
    x32 = x.astype(np.float32)
    assert_like_numpy(on_nodes(lambda x: fnp.interp(x, xp, fp), x32), np.interp(x32, xp, fp))


def test_interp_slopes_at_knots_are_the_right_intervals():
    xp = np.array([0.0, 1.0, 3.0])
    fp = np.array([0.0, 2.0, 3.0])
    knots = np.array([-1.0, 0.0, 1.0, 3.0, 4.0])
    slope = fg.grad(lambda x: fnp.sum(fnp.interp(x, xp, fp)))(knots)
    np.testing.assert_array_equal(slope, [0.0, 2.0, 0.5, 0.5, 0.0])
    # in fp: the interpolation weights
    w = fg.grad(lambda fp: fnp.interp(0.25, xp, fp))(fp)
    np.testing.assert_allclose(w, [0.75, 0.25, 0.0])


def test_bincount_and_histograms_with_weights():
    ints = np.array([0, 3, 3, 1, 5])
    w = RNG.normal(size=5)
    assert_like_numpy(
        on_nodes(lambda w: fnp.bincount(ints, w, minlength=8), w), np.bincount(ints, w, minlength=8)
    )
    # each weight's gradient is the weight of its bin in the objective
    c = RNG.normal(size=6)
    np.testing.assert_allclose(fg.grad(lambda w: fnp.sum(fnp.bincount(ints, w) * c))(w), c[ints])
    a = RNG.uniform(-2.0, 2.0, size=30)
    wa = RNG.uniform(0.5, 2.0, size=30)
    for bins, density, rng_ in itertools.product(
        (4, [-3.0, -0.5, 0.0, 1.0, 1.5]), (False, True), (None, (-1.0, 1.0))
    ):
        got = on_nodes(lambda w: fnp.histogram(a, bins, rng_, density, w)[0], wa)
        assert_like_numpy(got, np.histogram(a, bins, rng_, density, wa)[0])
        fg.check_grads(lambda w: fnp.histogram(a, bins, rng_, density, w)[0], (wa,), order=2)
    pts = RNG.uniform(-1.0, 1.0, size=(30, 3))
    for density in (False, True):
        got = on_nodes(lambda w: fnp.histogramdd(pts, (2, 3, 2), weights=w, density=density)[0], wa)
        assert_like_numpy(got, np.histogramdd(pts, (2, 3, 2), weights=wa, density=density)[0])
        got = on_nodes(
            lambda w: fnp.histogram2d(pts[:, 0], pts[:, 1], 3, weights=w, density=density)[0], wa
        )
        assert_like_numpy(
            got, np.histogram2d(pts[:, 0], pts[:, 1], 3, weights=wa, density=density)[0]
        )
    # value-only in the data: the counts of a node are NumPy's, with no gradient
    counts, edges = fnp.histogramdd(pts)
    assert_like_numpy(counts, np.histogramdd(pts)[0])


# --- derivatives against central differences -----------------------------------------------


def test_order_statistics_derivatives():
    x = RNG.permutation(np.linspace(-2.0, 2.0, 60)).reshape(3, 4, 5)  # no ties
    for method in METHODS:
        fg.check_grads(
            lambda x: fnp.quantile(x, [0.1, 0.63], axis=(0, 2), method=method), (x,), order=2
        )
    fg.check_grads(lambda x: fnp.median(x, axis=1, keepdims=True), (x,), order=2)
    fg.check_grads(
        lambda x: fnp.nanpercentile(fnp.where(np.isnan(with_nans(X)), np.nan, x), 35.0, axis=-1),
        (x,),
        order=2,
    )
    fg.check_grads(lambda x: fnp.partition(x, 1, axis=0), (x,), order=2)
    # in q too, for the interpolating methods
    for method in ("linear", "hazen", "weibull", "median_unbiased"):
        fg.check_grads(
            lambda q: fnp.quantile(x, q, axis=1, method=method), (np.array([0.21, 0.77]),), order=2
        )
    fg.check_grads(lambda q: fnp.percentile(x, q), (np.array(37.0),), order=2)


def test_moments_and_cumulative_derivatives():
    x = X[:, :, :4]
    xn = with_nans(X)
    fg.check_grads(lambda x: fnp.nanvar(x, axis=(0, 2), ddof=1), (xn,), order=2)
    fg.check_grads(lambda x: fnp.nanstd(x, axis=1, keepdims=True), (xn,), order=2)
    fg.check_grads(lambda x: fnp.nanprod(x, axis=0), (xn,), order=2)
    fg.check_grads(lambda x: fnp.nancumprod(x, axis=1), (xn,), order=2)
    fg.check_grads(lambda x: fnp.nancumsum(x), (xn,), order=2)
    fg.check_grads(lambda x: fnp.cumulative_prod(x, axis=2, include_initial=True), (x,), order=2)
    fg.check_grads(lambda x: fnp.cumulative_sum(x, axis=0, include_initial=True), (x,), order=2)
    m, w = X[0], RNG.uniform(0.5, 2.0, size=5)
    fg.check_grads(lambda m, w: fnp.cov(m, aweights=w, fweights=[1, 2, 1, 1, 3]), (m, w), order=2)
    fg.check_grads(lambda m, y: fnp.corrcoef(m, y, rowvar=False), (m.T, X[1, :1].T), order=2)


def test_calculus_derivatives():
    f, x = X[0], np.cumsum(RNG.uniform(0.5, 1.5, size=5))
    for edge_order in (1, 2):
        fg.check_grads(lambda f, x: fnp.gradient(f, 2.0, x, edge_order=edge_order), (f, x), order=2)
        fg.check_grads(
            lambda f, h: fnp.gradient(f, h, axis=0, edge_order=edge_order),
            (f, np.array(0.7)),
            order=2,
        )
    fg.check_grads(lambda y, x: fnp.trapezoid(y, x), (f, x), order=2)
    fg.check_grads(lambda y, dx: fnp.trapezoid(y, dx=dx, axis=0), (f, np.array(0.3)), order=2)
    fg.check_grads(lambda y, b, e: fnp.ediff1d(y, e, b), (f, X[1, 0, :2], X[1, 1, 0]), order=2)
    # points at least 0.05 from every knot and its periodic images: a central difference
    # across a kink (or left=-1.0's jump at xp[0]) is no derivative; a local generator, so
    # the points do not depend on which tests ran before in this process
    xp, fp = np.array([-0.5, 0.3, 1.0, 2.5]), X[2, 0, :4]
    xs = np.random.default_rng(5).uniform(-1.0, 3.0, size=40)
    gap = np.abs((xs[:, None] - xp[None, :] + 0.85) % 1.7 - 0.85).min(axis=1)
    xs = xs[(gap > 0.05) & (np.abs(xs[:, None] - xp).min(axis=1) > 0.05)][:9]
    fg.check_grads(lambda x, xp, fp: fnp.interp(x, xp, fp, left=-1.0), (xs, xp, fp), order=2)
    fg.check_grads(lambda x, fp: fnp.interp(x, xp, fp, period=1.7), (xs, fp), order=2)
    for mode in ("full", "same", "valid"):
        fg.check_grads(lambda a, v: fnp.convolve(a, v, mode), (X[0, 0], X[0, 1, :3]), order=2)
        fg.check_grads(lambda a, v: fnp.correlate(a, v, mode), (X[0, 0, :2], X[0, 1]), order=2)


def test_unwrap_passes_the_gradient_through():
    p = np.cumsum(RNG.uniform(1.0, 3.0, size=12))
    assert_like_numpy(on_nodes(fnp.unwrap, p), np.unwrap(p))
    np.testing.assert_array_equal(fg.grad(lambda p: fnp.sum(fnp.unwrap(p) * p))(p), 2 * p)
    fg.check_grads(fnp.unwrap, (p,), order=2)


def test_errors_name_the_function():
    with pytest.raises(FuncgradError, match="quantile.*range"):
        on_nodes(lambda x: fnp.quantile(x, 1.5), X)
    with pytest.raises(FuncgradError, match="percentile.*method"):
        on_nodes(lambda x: fnp.percentile(x, 50, method="bogus"), X)
    with pytest.raises(FuncgradError, match="median.*out="):
        on_nodes(lambda x: fnp.median(x, out=np.empty(())), X)
    with pytest.raises(FuncgradError, match="convolve.*1-d"):
        on_nodes(lambda x: fnp.convolve(x, x), X)
    with pytest.raises(FuncgradError, match="interp.*period"):
        on_nodes(lambda x: fnp.interp(x, [0.0, 1.0], [1.0, 2.0], period=0.0), X)
    with pytest.raises(FuncgradError, match="bincount.*weights"):
        on_nodes(lambda w: fnp.bincount([0, 1], w), X[0, 0])


# --- against PyTorch: ties and zeros ----------------------------------------------------------


def test_quantile_gradient_at_ties_matches_torch_quantile():
    torch = requires("torch")
    cases = [
        (np.array([2.0, 1.0, 2.0, 3.0, 2.0]), 0.3),
        (np.array([2.0, 1.0, 2.0, 3.0, 2.0]), 0.6),
        (np.array([3.0, 2.0, 2.0, 1.0, 2.0, 2.0]), 0.5),
        (np.array([1.0, 1.0, 1.0, 1.0]), [0.1, 0.5, 0.9]),
        (np.array([[0.0, 0.0, 1.0, 0.0], [5.0, -1.0, 5.0, 5.0]]), 0.4),
    ]
    for x, q in cases:
        c = RNG.normal(size=np.shape(np.quantile(x, q, axis=-1)))
        got = fg.grad(lambda x: fnp.sum(fnp.quantile(x, q, axis=-1) * c))(x)
        t = torch.tensor(x, requires_grad=True)
        out = torch.quantile(t, torch.tensor(q, dtype=t.dtype), dim=-1)
        (want,) = torch.autograd.grad((out * torch.tensor(c)).sum(), t)
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-12, atol=1e-15)
        # nanquantile and median (NumPy's median is quantile(0.5), not torch.median)
        got = fg.grad(lambda x: fnp.sum(fnp.median(x, axis=-1)))(x)
        (want,) = torch.autograd.grad(torch.quantile(t, 0.5, dim=-1).sum(), t)
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-12)
    x = np.array([np.nan, 2.0, 1.0, 2.0, 2.0])
    got = fg.grad(lambda x: fnp.nanquantile(x, 0.55))(x)
    t = torch.tensor(x, requires_grad=True)
    (want,) = torch.autograd.grad(torch.nanquantile(t, 0.55), t)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-12)


def test_cumprod_gradients_at_zeros_match_torch():
    torch = requires("torch")
    x = np.array([[2.0, 0.0, 3.0, 0.0, 5.0], [1.5, -2.0, 0.5, 4.0, 0.0], [0.0, 0.0, 1.0, 2.0, 3.0]])
    c = RNG.normal(size=x.shape)
    v = RNG.normal(size=x.shape)
    for axis in (0, 1, -1):

        def f(x):
            return fnp.sum(fnp.cumprod(x, axis=axis) * c)

        t = torch.tensor(x, requires_grad=True)
        (g_t,) = torch.autograd.grad(
            (torch.cumprod(t, dim=axis) * torch.tensor(c)).sum(), t, create_graph=True
        )
        (h_t,) = torch.autograd.grad((g_t * torch.tensor(v)).sum(), t)
        np.testing.assert_allclose(fg.grad(f)(x), g_t.detach().numpy(), rtol=1e-12, atol=1e-14)
        hvp = fg.grad(lambda x: fnp.sum(fg.grad(f)(x) * v))(x)
        np.testing.assert_allclose(hvp, h_t.numpy(), rtol=1e-12, atol=1e-14)
        _, tangent = fg.jvp(lambda x: fnp.cumprod(x, axis=axis), (x,), (v,))
        _, t_t = torch.func.jvp(
            lambda t: torch.cumprod(t, dim=axis), (torch.tensor(x),), (torch.tensor(v),)
        )
        np.testing.assert_allclose(tangent, t_t.numpy(), rtol=1e-12, atol=1e-14)
    fg.check_grads(lambda x: fnp.cumprod(x, axis=1), (x,), order=3)
    fg.check_grads(lambda x: fnp.cumprod(x), (x,), order=2)


def test_sort_and_partition_gradients_follow_the_entries():
    x = np.array([[3.0, 1.0, 2.0, 1.0], [0.0, -1.0, 4.0, 2.0]])
    c = np.arange(8.0).reshape(2, 4)
    for f, picks in (
        (lambda x: fnp.sort(x, axis=1), np.argsort(x, axis=1, kind="stable")),
        (lambda x: fnp.partition(x, 1, axis=1), np.argpartition(x, 1, axis=1)),
    ):
        np.testing.assert_array_equal(on_nodes(f, x), np.take_along_axis(x, picks, axis=1))
        want = np.zeros_like(x)
        np.put_along_axis(want, picks, c, axis=1)  # output position k came from entry picks[k]
        np.testing.assert_array_equal(fg.grad(lambda x: fnp.sum(f(x) * c))(x), want)


def test_sort_complex_and_real_if_close_are_differentiable():
    # sort_complex moves entries (its gradient follows them, as sort's); real_if_close is
    # real(z) or z, read from the values: both checked by central differences (complex
    # directions: real and imaginary parts), values and dtypes as NumPy's
    z = np.array([[2 + 1j, 1 - 1j, 1.5 + 0.5j], [0.2 - 2j, -1 + 0j, 0.3 + 1j]])
    for a in (z, z.real.astype(np.float32), np.array([3, 1, 2])):
        assert_like_numpy(fnp.sort_complex(a), np.sort_complex(a))
    w = np.arange(1.0, 4.0)
    fg.check_grads(lambda z: fnp.abs(fnp.sort_complex(z) * w) ** 2, (z,), order=2)
    fg.check_grads(lambda x: fnp.real(fnp.sort_complex(x) * (1 + 2j)), (z.real,), order=2)
    with pytest.raises(AxisError, match="sort_complex"):
        fnp.sort_complex(np.array(1.0))
    for a, tol in ((z, 100), (z.real + 1e-15j, 100), (z.real + 1e-9j, 1e-8), (z.real, 100)):
        assert_like_numpy(fnp.real_if_close(a, tol=tol), np.real_if_close(a, tol=tol))
    near = z.real + 1e-15j
    g = fg.grad(lambda y: fnp.sum(fnp.real_if_close(y) * w))(near)
    np.testing.assert_array_equal(g, np.broadcast_to(w, z.shape))  # d Re(y) = the real part
    fg.check_grads(lambda y: fnp.abs(fnp.real_if_close(y)) ** 2, (z,), order=2)

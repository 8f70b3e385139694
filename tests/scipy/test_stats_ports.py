"""`funcgrad.scipy.stats.multivariate_normal` refuses the covariances SciPy (and so HIPS autograd) refuses.

autograd's `multivariate_normal.logpdf` is SciPy's, which tests `cov`
(eigenvalues of its lower triangle, with a tolerance of 1e6 * eps * the
largest) before computing; funcgrad's formula (solve and slogdet) would
return a number for a matrix that is no covariance. Found porting
autograd's bayesian_optimization example, whose Gaussian process hits a
numerically singular kernel matrix: autograd raised, funcgrad went on.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import funcgrad as fg
from funcgrad.errors import LinAlgError
from funcgrad.scipy.stats import multivariate_normal as fmvn
from tests.references import requires

stats = requires("scipy.stats")

REFUSED = {
    "indefinite": np.array([[1.0, 2.0], [2.0, 1.0]]),
    "singular": np.array([[1.0, 1.0], [1.0, 1.0]]),
    "singular within SciPy's tolerance": np.diag([1.0, 1e-11]),
    "negative definite": -np.eye(3),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_covariances_scipy_refuses_are_refused(name):
    cov = REFUSED[name]
    x = np.zeros(cov.shape[0])
    with pytest.raises((ValueError, np.linalg.LinAlgError)):
        stats.multivariate_normal.logpdf(x, x, cov)
    for f in (fmvn.logpdf, fmvn.pdf):
        # funcgrad's LinAlgError is both NumPy's LinAlgError and a ValueError: either except works
        with pytest.raises(LinAlgError, match=r"multivariate_normal.logpdf: cov \(shape"):
            f(x, x, cov)
    with pytest.raises(LinAlgError):
        fg.grad(lambda c: fmvn.logpdf(x, x, c))(cov)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_jit_replay_refuses_what_eager_refuses(name):
    # the test read values in Python: a replay traced on eye(d) gave the formula's number
    cov = REFUSED[name]
    d = cov.shape[0]
    x = np.zeros(d)
    lp = fg.jit(lambda c: fmvn.logpdf(x, x, c))
    np.testing.assert_allclose(
        lp(2.0 * np.eye(d)), stats.multivariate_normal.logpdf(x, x, 2.0 * np.eye(d))
    )
    with pytest.raises(LinAlgError, match=r"multivariate_normal.logpdf: cov \(shape"):
        lp(cov)
    np.testing.assert_allclose(
        lp(3.0 * np.eye(d)), stats.multivariate_normal.logpdf(x, x, 3.0 * np.eye(d))
    )


def test_vmap_over_covariances_gives_nan_for_refused_ones_and_scipys_values_else():
    # one example cannot stop a batch: NaN (value and gradient) for a cov SciPy refuses; the
    # valid ones against SciPy, their gradients against the closed form 0.5 (C^-1 x x^T C^-1 - C^-1)
    x, mean = np.array([1.0, -0.5]), np.zeros(2)
    good = [np.eye(2), np.array([[2.0, 0.3], [0.3, 1.0]]), 3.0 * np.eye(2)]
    covs = np.stack(
        [
            good[0],
            REFUSED["indefinite"],
            good[1],
            REFUSED["singular within SciPy's tolerance"],
            good[2],
        ]
    )
    lp = lambda c: fmvn.logpdf(x, mean, c)  # noqa: E731
    values = fg.vmap(lp)(covs)
    grads = fg.vmap(fg.grad(lp))(covs)
    for k, i in enumerate((0, 2, 4)):
        inv = np.linalg.inv(good[k])
        np.testing.assert_allclose(values[i], stats.multivariate_normal.logpdf(x, mean, good[k]))
        closed = 0.5 * (inv @ np.outer(x - mean, x - mean) @ inv - inv)
        np.testing.assert_allclose(grads[i], closed, rtol=1e-12, atol=1e-14)
    assert np.isnan(values[[1, 3]]).all() and np.isnan(grads[[1, 3]]).all()


def test_positive_definite_covariances_near_the_tolerance_are_accepted():
    rng = np.random.default_rng(0)
    for cov in (np.diag([1.0, 1e-8]), np.eye(3) * 1e-30, np.array([[2.0, 1.999], [1.999, 2.0]])):
        d = cov.shape[0]
        x, mean = rng.normal(size=(4, d)) * np.sqrt(np.diag(cov)), np.zeros(d)
        np.testing.assert_allclose(
            fmvn.logpdf(x, mean, cov), stats.multivariate_normal.logpdf(x, mean, cov), rtol=1e-9
        )


def test_float32_covariances_are_tested_in_float64_as_scipy():
    # SciPy converts cov to float64 before its eigenvalue test; float32's epsilon (1e6 of them:
    # 0.119 of the largest eigenvalue) refused diag(1, 0.05) and gave NaN for it under vmap.
    x = np.array([0.3, 0.1], np.float32)
    covs = np.stack([np.diag([1.0, 0.05]), np.diag([2.0, 1e-3])]).astype(np.float32)
    want = [stats.multivariate_normal.logpdf(x, cov=c) for c in covs]
    for k, cov in enumerate(covs):
        np.testing.assert_allclose(fmvn.logpdf(x, cov=cov), want[k], rtol=1e-6)
        np.testing.assert_allclose(fg.jit(lambda c: fmvn.logpdf(x, cov=c))(cov), want[k], rtol=1e-6)
        assert np.isfinite(fg.grad(lambda c: fmvn.logpdf(x, cov=c))(cov)).all()
    np.testing.assert_allclose(fg.vmap(lambda c: fmvn.logpdf(x, cov=c))(covs), want, rtol=1e-6)
    with pytest.raises(LinAlgError):
        fmvn.logpdf(x, cov=np.array([[1.0, 2.0], [2.0, 1.0]], np.float32))


def test_vmap_over_float32_covariances_stays_float32():
    # The vmapped logpdf (and pdf) over a batch of float32 covs came back float64: the NaN
    # factor for the covs that fail the test was where(ok, 1.0, nan), a float64 array.
    rng = np.random.default_rng(3)
    xs = rng.standard_normal((4, 3)).astype(np.float32)
    mean = np.full(3, 0.1, np.float32)
    covs = np.stack([np.eye(3) * (k + 1) + 0.1 for k in range(4)]).astype(np.float32)
    covs[2] = np.diag([1.0, 2.0, -1.0])  # no covariance: NaN for that example
    for fn in (fmvn.logpdf, fmvn.pdf):
        per = [fn(xs[k], mean, covs[k]) for k in (0, 1, 3)]
        assert all(p.dtype == np.float32 for p in per)
        for got in (
            fg.vmap(lambda c, fn=fn: fn(xs[0], mean, c))(covs),
            fg.vmap(lambda x, c, fn=fn: fn(x, mean, c))(xs, covs),
        ):
            assert got.dtype == np.float32, got.dtype
            assert np.isnan(got[2])
        ref = np.array(
            [
                getattr(stats.multivariate_normal, fn.__name__)(xs[k], mean, covs[k])
                for k in (0, 1, 3)
            ]
        )
        np.testing.assert_allclose(got[[0, 1, 3]], ref, rtol=2e-6)
        np.testing.assert_allclose(got[[0, 1, 3]], per, rtol=2e-6)
    g = fg.vmap(fg.grad(lambda c: fmvn.logpdf(xs[0], mean, c)))(covs)
    assert g.dtype == np.float32 and np.isnan(g[2]).all() and np.isfinite(g[[0, 1, 3]]).all()


def test_jit_of_vmap_over_covariances_follows_the_positive_definite_mask():
    # jit(vmap(logpdf)) over a batch of covs ran eagerly (JitWarning): slogdet's sign and the
    # NaN mask read the covs' values by code the trace did not follow. Now one plan whose
    # replays compute the mask: the NaN moves with the cov that is no covariance.
    from funcgrad.transforms.jit import JitWarning

    rng = np.random.default_rng(4)
    xs, mean = rng.standard_normal((4, 3)), np.full(3, 0.2)
    good = np.stack([np.eye(3) * (k + 1) + 0.1 for k in range(4)])
    logpdf = fg.jit(fg.vmap(lambda x, c: fmvn.logpdf(x, mean, c)))
    grad = fg.jit(fg.vmap(fg.grad(lambda c, x: fmvn.logpdf(x, mean, c))))
    eager_grad = fg.vmap(fg.grad(lambda c, x: fmvn.logpdf(x, mean, c)))
    for bad in (None, 1, 3):
        covs = good.copy()
        if bad is not None:
            covs[bad] = np.diag([1.0, 2.0, -1.0])
        with warnings.catch_warnings():
            warnings.simplefilter("error", JitWarning)
            values, grads = logpdf(xs, covs), grad(covs, xs)
        for k in range(4):
            if k == bad:
                assert np.isnan(values[k]) and np.isnan(grads[k]).all()
            else:
                want = stats.multivariate_normal.logpdf(xs[k], mean, covs[k])
                np.testing.assert_allclose(values[k], want, rtol=1e-12)
        np.testing.assert_array_equal(grads, eager_grad(covs, xs))
    assert logpdf.cache_info()["plans"] == 1
    # the gradient's zero-cotangent guard (all_finite) takes another path once NaN appears
    assert grad.cache_info()["plans"] == 2

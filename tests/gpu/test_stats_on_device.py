"""`funcgrad.scipy.stats.multivariate_normal` on a device: SciPy's values, and the results stay there.

Runs on `device` ("cpu" here, "cuda" in the GPU runs). Under `vmap` over a
batch of covariances, a cov SciPy refuses gives NaN (value and gradient) for
its example; the NaN factor is made of NumPy scalars, which go with a CuPy
mask (0-d NumPy arrays do not). Values against `scipy.stats` on the host,
gradients in `cov` against the closed form `0.5 (C^-1 d d^T C^-1 - C^-1)`.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import funcgrad as fg
from funcgrad.backend import to_device
from funcgrad.scipy.stats import multivariate_normal as fmvn
from tests.gpu.devices import assert_on, to_host


def _data(dtype):
    rng = np.random.default_rng(7)
    xs = rng.standard_normal((4, 3)).astype(dtype)
    mean = np.full(3, 0.1, dtype)
    covs = np.stack([np.eye(3) * (k + 1) + 0.1 for k in range(4)]).astype(dtype)
    covs[2] = np.diag([1.0, 2.0, -1.0])  # no covariance: NaN for that example
    return xs, mean, covs


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", ["logpdf", "pdf"])
def test_vmap_over_covariances(device, name, dtype):
    xs, mean, covs = _data(dtype)
    fn = getattr(fmvn, name)
    x_d, mean_d, covs_d = (to_device(a, device) for a in (xs, mean, covs))
    got = fg.vmap(lambda x, c: fn(x, mean_d, c))(x_d, covs_d)
    assert_on(got, device, f"vmap({name})")
    got = to_host(got)
    assert got.dtype == dtype
    want = [getattr(stats.multivariate_normal, name)(xs[k], mean, covs[k]) for k in (0, 1, 3)]
    np.testing.assert_allclose(got[[0, 1, 3]], want, rtol=1e-9 if dtype == np.float64 else 2e-5)
    assert np.isnan(got[2])


def test_vmap_of_the_gradient_in_cov(device):
    xs, mean, covs = _data(np.float64)
    mean_d, covs_d = to_device(mean, device), to_device(covs, device)
    x_d = to_device(xs[0], device)
    g = fg.vmap(fg.grad(lambda c: fmvn.logpdf(x_d, mean_d, c)))(covs_d)
    assert_on(g, device, "vmap(grad(logpdf))")
    g = to_host(g)
    d = xs[0] - mean
    for k in (0, 1, 3):
        inv = np.linalg.inv(covs[k])
        closed = 0.5 * (inv @ np.outer(d, d) @ inv - inv)
        np.testing.assert_allclose(g[k], closed, rtol=1e-10, atol=1e-13)
    assert np.isnan(g[2]).all()


def test_logpdf_of_one_cov(device):
    xs, mean, covs = _data(np.float64)
    got = fmvn.logpdf(*(to_device(a, device) for a in (xs, mean, covs[1])))
    assert_on(got, device, "logpdf")
    want = stats.multivariate_normal.logpdf(xs, mean, covs[1])
    np.testing.assert_allclose(to_host(got), want, rtol=1e-12)


def test_the_defaults_are_made_on_the_values_device(device):
    # mean=None (zeros) and a scalar cov (times an identity) are constants on x's / cov's device
    xs, _, _ = _data(np.float32)
    got = fmvn.logpdf(to_device(xs, device), cov=to_device(np.array(2.0, np.float32), device))
    assert_on(got, device, "logpdf(x, cov=2.0)")
    want = stats.multivariate_normal.logpdf(xs, np.zeros(3), 2.0 * np.eye(3))
    np.testing.assert_allclose(to_host(got), want, rtol=2e-6)
    ent = fmvn.entropy(to_device(np.zeros(3), device), to_device(np.array(2.0), device))
    assert_on(ent, device, "entropy(mean, 2.0)")
    np.testing.assert_allclose(to_host(ent), stats.multivariate_normal.entropy(cov=2.0 * np.eye(3)))

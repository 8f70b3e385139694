"""`funcgrad.scipy.stats.multivariate_normal` on CuPy values, run on the CPU with the stand-in `cupy`.

The stand-in (tests/gpu/stand_in.py) is NumPy arrays of a subclass that
says it lives on GPU 0, in `sys.modules["cupy"]`, so a NumPy array meeting
one in an operation is a `DeviceError`, as it is on a GPU; its `linalg`
gives stand-in arrays for stand-in arrays (NumPy's would give plain ones).
`tests/gpu/test_stats_on_device.py` runs the same on a real GPU.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import funcgrad as fg
from funcgrad.scipy.stats import multivariate_normal as fmvn
from tests.gpu.stand_in import GpuArray, on_gpu
from tests.gpu.stand_in import one_gpu as one_gpu  # noqa: F401  (the fixture `gpu`)

_gpu = on_gpu


def _covs(dtype):
    covs = np.stack([np.eye(3) * (k + 1) + 0.1 for k in range(4)]).astype(dtype)
    covs[2] = np.diag([1.0, 2.0, -1.0])  # no covariance: NaN for that example
    return covs


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", ["logpdf", "pdf"])
def test_vmap_over_cupy_covariances_matches_scipy(gpu, name, dtype):
    rng = np.random.default_rng(4)
    xs = rng.standard_normal((4, 3)).astype(dtype)
    mean = np.full(3, 0.1, dtype)
    covs = _covs(dtype)
    fn = getattr(fmvn, name)
    got = fg.vmap(lambda x, c: fn(x, _gpu(mean), c))(_gpu(xs), _gpu(covs))
    assert isinstance(got, GpuArray) and got.dtype == dtype
    want = [getattr(stats.multivariate_normal, name)(xs[k], mean, covs[k]) for k in (0, 1, 3)]
    np.testing.assert_allclose(got.view(np.ndarray)[[0, 1, 3]], want, rtol=2e-6)
    assert np.isnan(got[2])


def test_the_defaults_are_made_on_the_values_gpu(gpu):
    # mean=None (zeros) and a scalar cov (times an identity) were NumPy constants next to CuPy x
    xs = np.random.default_rng(5).standard_normal((4, 3))
    got = fmvn.logpdf(_gpu(xs), cov=_gpu(np.array(2.0)))
    assert isinstance(got, GpuArray)
    want = stats.multivariate_normal.logpdf(xs, np.zeros(3), 2.0 * np.eye(3))
    np.testing.assert_allclose(got.view(np.ndarray), want, rtol=1e-12)
    ent = fmvn.entropy(_gpu(np.zeros(3)), _gpu(np.array(2.0)))
    assert isinstance(ent, GpuArray)
    np.testing.assert_allclose(ent, stats.multivariate_normal.entropy(cov=2.0 * np.eye(3)))

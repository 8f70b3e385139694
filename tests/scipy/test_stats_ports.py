"""`funcgrad.scipy.stats.multivariate_normal` refuses the covariances SciPy (and so HIPS autograd) refuses.

autograd's `multivariate_normal.logpdf` is SciPy's, which tests `cov`
(eigenvalues of its lower triangle, with a tolerance of 1e6 * eps * the
largest) before computing; funcgrad's formula (solve and slogdet) would
return a number for a matrix that is no covariance. Found porting
autograd's bayesian_optimization example, whose Gaussian process hits a
numerically singular kernel matrix: autograd raised, funcgrad went on.
"""

from __future__ import annotations

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


def test_positive_definite_covariances_near_the_tolerance_are_accepted():
    rng = np.random.default_rng(0)
    for cov in (np.diag([1.0, 1e-8]), np.eye(3) * 1e-30, np.array([[2.0, 1.999], [1.999, 2.0]])):
        d = cov.shape[0]
        x, mean = rng.normal(size=(4, d)) * np.sqrt(np.diag(cov)), np.zeros(d)
        np.testing.assert_allclose(
            fmvn.logpdf(x, mean, cov), stats.multivariate_normal.logpdf(x, mean, cov), rtol=1e-9
        )

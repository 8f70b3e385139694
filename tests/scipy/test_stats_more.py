"""funcgrad.scipy.stats: every function the issue lists, the log distribution functions of t and the discrete ones."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.scipy.stats as fst
from tests.references import requires
from tests.scipy.test_stats import _compare

ss = requires("scipy.stats")

CONTINUOUS = ["norm", "t", "gamma", "beta", "chi2", "expon", "laplace", "cauchy", "logistic"]
DISCRETE = ["poisson", "bernoulli", "binom"]
FUNCTIONS = {
    **{d: ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"] for d in CONTINUOUS},
    **{d: ["logpmf", "pmf", "cdf", "logcdf", "sf", "logsf"] for d in DISCRETE},
    "dirichlet": ["logpdf", "pdf"],
    "multivariate_normal": ["logpdf", "pdf", "cdf"],
}


@pytest.mark.parametrize("dist", sorted(FUNCTIONS))
def test_every_listed_function_is_provided_with_scipys_name(dist):
    ours, theirs = getattr(fst, dist), getattr(ss, dist)
    for fname in FUNCTIONS[dist]:
        assert hasattr(theirs, fname), f"scipy.stats.{dist} has no {fname}"
        assert callable(getattr(ours, fname, None)), f"funcgrad.scipy.stats.{dist}.{fname}"
        assert fname in ours.__all__


@pytest.mark.parametrize(
    ("dist", "fname", "args", "positions"),
    [
        ("poisson", "logcdf", (np.array([0.0, 1.5, 3.0, 7.0]), 2.5), [1]),
        ("poisson", "logsf", (np.array([0.0, 1.5, 3.0, 7.0]), 2.5), [1]),
        ("bernoulli", "logcdf", (np.array([0.0, 0.5]), 0.3), [1]),
        ("bernoulli", "sf", (np.array([-1.0, 0.0, 0.5]), 0.3), [1]),
        ("bernoulli", "logsf", (np.array([-1.0, 0.0, 0.5]), 0.3), [1]),
        ("binom", "logcdf", (np.array([0.0, 2.0, 5.5]), 7.0, 0.35), [2]),
        ("binom", "logsf", (np.array([0.0, 2.0, 5.5]), 7.0, 0.35), [2]),
    ],
)
def test_discrete_log_distribution_functions(dist, fname, args, positions):
    _compare(dist, fname, args, positions)


def test_bernoulli_log_distribution_functions_off_support():
    k = np.array([-1.0, 2.0])
    np.testing.assert_array_equal(fst.bernoulli.logcdf(k, 0.3), ss.bernoulli.logcdf(k, 0.3))
    np.testing.assert_array_equal(fst.bernoulli.logsf(k, 0.3), ss.bernoulli.logsf(k, 0.3))


def test_t_log_distribution_functions_in_the_tails():
    # where cdf rounds to 1 (or sf to 0), log1p(-tail) keeps the digits log(cdf) loses;
    # the gradients are compared with the exact d/dx log cdf = pdf / cdf (and -pdf / sf)
    x, df, loc, scale = np.array([-400.0, -25.0, 0.0, 25.0, 400.0]), 2.5, 0.2, 1.3
    pdf = ss.t.pdf(x, df, loc, scale)
    exact = {
        "logcdf": pdf / ss.t.cdf(x, df, loc, scale),
        "logsf": -pdf / ss.t.sf(x, df, loc, scale),
    }
    for fname, d_dx in exact.items():
        ours = getattr(fst.t, fname)
        np.testing.assert_allclose(
            ours(x, df, loc, scale), getattr(ss.t, fname)(x, df, loc, scale), rtol=1e-10
        )
        g_x, g_loc, g_scale = fg.grad(
            lambda x, loc, scale, f=ours: f(x, df, loc, scale).sum(), argnums=(0, 1, 2)
        )(x, loc, scale)
        np.testing.assert_allclose(g_x, d_dx, rtol=1e-9, err_msg=fname)
        assert g_loc == pytest.approx(-d_dx.sum(), rel=1e-9)
        assert g_scale == pytest.approx(-(d_dx * (x - loc) / scale).sum(), rel=1e-9)

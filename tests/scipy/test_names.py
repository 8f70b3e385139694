"""Which scipy.special / scipy.stats names funcgrad.scipy provides: issue #13's list, checked."""

import pytest

import funcgrad.scipy.special as fsp
import funcgrad.scipy.stats as fst
from tests.references import requires

# Issue #13, "funcgrad.scipy": every name here must be provided.
SPECIAL = """
gammaln gamma digamma psi polygamma multigammaln beta betaln betainc gammainc gammaincc
erf erfc erfinv erfcinv expit logit logsumexp softmax log_softmax xlogy xlog1py entr
i0 i1 i0e i1e j0 j1 y0 y1 jn yn rgamma ndtr ndtri log_ndtr
""".split()
# Provided beyond the list: used by the rules of the ones above (iv, ive); what HIPS
# autograd also has (gammasgn); the complex log gamma (loggamma).
SPECIAL_EXTRA = ["iv", "ive", "gammasgn", "loggamma"]
STATS = {
    "norm": "logpdf pdf cdf logcdf sf logsf ppf",
    "t": "logpdf pdf cdf logcdf sf logsf",
    "multivariate_normal": "logpdf pdf cdf entropy",
    "gamma": "logpdf pdf cdf logcdf sf logsf",
    "beta": "logpdf pdf cdf logcdf sf logsf",
    "dirichlet": "logpdf pdf",
    "poisson": "logpmf pmf cdf logcdf sf logsf",
    "chi2": "logpdf pdf cdf logcdf sf logsf",
    "expon": "logpdf pdf cdf logcdf sf logsf",
    "laplace": "logpdf pdf cdf logcdf sf logsf",
    "cauchy": "logpdf pdf cdf logcdf sf logsf",
    "logistic": "logpdf pdf cdf logcdf sf logsf",
    "bernoulli": "logpmf pmf cdf logcdf sf logsf",
    "binom": "logpmf pmf cdf logcdf sf logsf",
}


def test_special_provides_the_issue_list():
    missing = [n for n in SPECIAL if not callable(getattr(fsp, n, None))]
    assert not missing, f"funcgrad.scipy.special lacks {missing}"
    assert sorted(fsp.__all__) == sorted(SPECIAL + SPECIAL_EXTRA), "update the lists here"


def test_special_names_are_scipy_names():
    sp = requires("scipy.special")
    assert [n for n in fsp.__all__ if not hasattr(sp, n)] == []


@pytest.mark.parametrize("dist", sorted(STATS))
def test_stats_provides_the_issue_list(dist):
    ss = requires("scipy.stats")
    module = getattr(fst, dist)
    names = STATS[dist].split()
    assert sorted(module.__all__) == sorted(names), f"{dist}: update the list here"
    for n in names:
        assert hasattr(getattr(ss, dist), n), f"scipy.stats.{dist} has no {n}"
    assert sorted(fst.__all__) == sorted(STATS)

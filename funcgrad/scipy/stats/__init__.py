"""`funcgrad.scipy.stats`: SciPy's distributions as modules of differentiable functions.

Each distribution is a module, as in `jax.scipy.stats` and
`autograd.scipy.stats` (`from funcgrad.scipy.stats import norm`), with
SciPy's call signatures (`norm.logpdf(x, loc=0, scale=1)`). Densities and
probabilities (`logpdf`, `pdf`, `logpmf`, `pmf`) are differentiable in the
data and every parameter; distribution functions (`cdf`, `logcdf`, `sf`,
`logsf`) in the data, `loc` and `scale` (and a parameter that enters the
special function as its `x`: `poisson.cdf` in `mu`, `binom.cdf` in `p`).
Shape parameters of the incomplete gamma and beta functions raise
`NotDifferentiableError` when differentiated.
"""

from funcgrad.scipy.stats import (
    bernoulli,
    beta,
    binom,
    cauchy,
    chi2,
    dirichlet,
    expon,
    gamma,
    laplace,
    logistic,
    multivariate_normal,
    norm,
    poisson,
    t,
)

__all__ = [
    "bernoulli",
    "beta",
    "binom",
    "cauchy",
    "chi2",
    "dirichlet",
    "expon",
    "gamma",
    "laplace",
    "logistic",
    "multivariate_normal",
    "norm",
    "poisson",
    "t",
]

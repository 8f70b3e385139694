"""The Dirichlet distribution, `scipy.stats.dirichlet`: differentiable in `x` and `alpha`."""

from funcgrad.ops import elementwise as _ew
from funcgrad.ops import reduce as _reduce
from funcgrad.ops import shape as _shape
from funcgrad.ops import special as _sp
from funcgrad.scipy.stats._common import promote as _promote
from funcgrad.scipy.stats._common import value as _value

__all__ = ["logpdf", "pdf"]


def logpdf(x, alpha):
    """Return the log of the Dirichlet density at `x`, as `scipy.stats.dirichlet.logpdf`.

    `sum((alpha - 1) log(x)) + gammaln(sum(alpha)) - sum(gammaln(alpha))`,
    summed over the components, which are the *first* axis of `x` (SciPy's
    convention: `x` of shape `(K,)` or `(K, N)` for `N` points).

    Args:
        x: Points on the simplex: an array or graph node of shape `(K, ...)`.
        alpha: The concentrations, shape `(K,)` (positive).

    Returns:
        A number for one point, else an array of shape `x.shape[1:]` (a node
        if an argument is a node).

    Examples:
        >>> import numpy as np
        >>> from funcgrad.scipy.stats import dirichlet
        >>> dirichlet.logpdf(np.array([0.2, 0.3, 0.5]), np.array([1.0, 2.0, 3.0]))
        np.float64(1.5040773967762...)
    """
    x, alpha = _promote(x, alpha)
    extra = _value(x).ndim - 1
    a = _shape.reshape(alpha, shape=(*_value(alpha).shape, *(1,) * extra))
    log_norm = _ew.subtract(
        _sp.gammaln(_reduce.sum_(alpha, axis=0, keepdims=False)),
        _reduce.sum_(_sp.gammaln(alpha), axis=0, keepdims=False),
    )
    terms = _reduce.sum_(_sp.xlogy(_ew.subtract(a, 1.0), x), axis=0, keepdims=False)
    return _ew.add(terms, log_norm)


def pdf(x, alpha):
    """Return the Dirichlet density at `x` (see `logpdf`)."""
    return _ew.exp(logpdf(x, alpha))

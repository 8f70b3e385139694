"""The Poisson distribution, `scipy.stats.poisson`: differentiable in the rate `mu`."""

import numpy as _np

from funcgrad.ops import elementwise as _ew
from funcgrad.ops import special as _sp
from funcgrad.scipy.stats._common import on_support as _on_support
from funcgrad.scipy.stats._common import promote as _promote
from funcgrad.scipy.stats._common import value as _value

__all__ = ["cdf", "logcdf", "logpmf", "logsf", "pmf", "sf"]


def logpmf(k, mu, loc=0):
    """Return the log of the Poisson probability of `k`, as `scipy.stats.poisson.logpmf`.

    `k log(mu) - mu - gammaln(k + 1)` at `k - loc` in 0, 1, 2, ...; `-inf`
    elsewhere. Differentiable in `mu` (`k` is a count: no gradient).

    Args:
        k: Counts: an array or a number.
        mu: The rate (positive): an array, a number, or a graph node.
        loc: A shift of `k`.

    Returns:
        An array (a node if `mu` is a node), broadcast from the arguments.

    Examples:
        >>> import numpy as np, funcgrad as fg
        >>> from funcgrad.scipy.stats import poisson
        >>> poisson.logpmf(np.array([0.0, 3.0]), 2.0)
        array([-2.        , -1.71231793])
        >>> fg.grad(lambda mu: poisson.logpmf(3.0, mu))(2.0)
        0.5
    """
    k, mu, loc = _promote(k, mu, loc)
    k = _ew.subtract(k, loc)
    k_v = _value(k)
    inside = (k_v >= 0) & (k_v == _np.floor(k_v))
    k_in = _ew.where(inside, k, 0.0)
    body = _ew.subtract(_sp.xlogy(k_in, mu), _ew.add(mu, _sp.gammaln(_ew.add(k_in, 1.0))))
    return _on_support(inside, body)


def pmf(k, mu, loc=0):
    """Return the Poisson probability of `k` (see `logpmf`)."""
    return _ew.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    """Return the Poisson distribution function `gammaincc(floor(k) + 1, mu)`, differentiable in `mu`."""
    k, mu, loc = _promote(k, mu, loc)
    k_v = _np.floor(_value(k) - _value(loc))
    inside = k_v >= 0
    out = _sp.gammaincc(_np.where(inside, k_v, 0.0) + 1.0, mu)
    return _ew.where(inside, out, 0.0)


def logcdf(k, mu, loc=0):
    """Return the log of the Poisson distribution function (see `cdf`)."""
    return _ew.log(cdf(k, mu, loc))


def sf(k, mu, loc=0):
    """Return the Poisson survival function `gammainc(floor(k) + 1, mu)`, differentiable in `mu`."""
    k, mu, loc = _promote(k, mu, loc)
    k_v = _np.floor(_value(k) - _value(loc))
    inside = k_v >= 0
    out = _sp.gammainc(_np.where(inside, k_v, 0.0) + 1.0, mu)
    return _ew.where(inside, out, 1.0)


def logsf(k, mu, loc=0):
    """Return the log of the Poisson survival function (see `sf`)."""
    return _ew.log(sf(k, mu, loc))

"""The binomial distribution, `scipy.stats.binom`: differentiable in `p` (and `n` in `logpmf`)."""

import numpy as _np

from funcgrad.ops import elementwise as _ew
from funcgrad.ops import special as _sp
from funcgrad.scipy.stats._common import on_support as _on_support
from funcgrad.scipy.stats._common import promote as _promote
from funcgrad.scipy.stats._common import value as _value

__all__ = ["cdf", "logcdf", "logpmf", "logsf", "pmf", "sf"]


def logpmf(k, n, p, loc=0):
    """Return the log of the binomial probability of `k`, as `scipy.stats.binom.logpmf`.

    `log C(n, k) + k log(p) + (n - k) log(1 - p)` at `k - loc` in 0, ..., n;
    `-inf` elsewhere. Differentiable in `p`, and in `n` through
    `gammaln` (the continuous extension).

    Args:
        k: Counts: an array or a number.
        n: The number of trials.
        p: The success probability: an array, a number, or a graph node.
        loc: A shift of `k`.

    Returns:
        An array (a node if `n` or `p` is a node), broadcast from the arguments.

    Examples:
        >>> import numpy as np
        >>> from funcgrad.scipy.stats import binom
        >>> binom.logpmf(np.array([0.0, 2.0]), 5, 0.5)
        array([-3.4657359 , -1.16315081])
    """
    k, n, p, loc = _promote(k, n, p, loc)
    k = _ew.subtract(k, loc)
    k_v = _value(k)
    inside = (k_v >= 0) & (k_v <= _value(n)) & (k_v == _np.floor(k_v))
    k_in = _ew.where(inside, k, 0.0)
    n_k = _ew.subtract(n, k_in)
    log_choose = _ew.subtract(
        _sp.gammaln(_ew.add(n, 1.0)),
        _ew.add(_sp.gammaln(_ew.add(k_in, 1.0)), _sp.gammaln(_ew.add(n_k, 1.0))),
    )
    body = _ew.add(_sp.xlogy(k_in, p), _sp.xlog1py(n_k, _ew.negative(p)))
    return _on_support(inside, _ew.add(log_choose, body))


def pmf(k, n, p, loc=0):
    """Return the binomial probability of `k` (see `logpmf`)."""
    return _ew.exp(logpmf(k, n, p, loc))


def cdf(k, n, p, loc=0):
    """Return the binomial distribution function `betainc(n - k, k + 1, 1 - p)` at `k = floor(k)`.

    Differentiable in `p`; `n` must be a constant.
    """
    k, n, p, loc = _promote(k, n, p, loc)
    k_v = _np.floor(_value(k) - _value(loc))
    n_v = _value(n)
    inside = (k_v >= 0) & (k_v < n_v)
    k_in = _np.where(inside, k_v, 0.0)
    out = _sp.betainc(n_v - k_in, k_in + 1.0, _ew.subtract(1.0, p))
    return _ew.where(inside, out, _np.where(k_v < 0, 0.0, 1.0).astype(k_v.dtype))


def logcdf(k, n, p, loc=0):
    """Return the log of the binomial distribution function (see `cdf`)."""
    return _ew.log(cdf(k, n, p, loc))


def sf(k, n, p, loc=0):
    """Return the binomial survival function `betainc(k + 1, n - k, p)` at `k = floor(k)`."""
    k, n, p, loc = _promote(k, n, p, loc)
    k_v = _np.floor(_value(k) - _value(loc))
    n_v = _value(n)
    inside = (k_v >= 0) & (k_v < n_v)
    k_in = _np.where(inside, k_v, 0.0)
    out = _sp.betainc(k_in + 1.0, n_v - k_in, p)
    return _ew.where(inside, out, _np.where(k_v < 0, 1.0, 0.0).astype(k_v.dtype))


def logsf(k, n, p, loc=0):
    """Return the log of the binomial survival function (see `sf`)."""
    return _ew.log(sf(k, n, p, loc))

"""The Bernoulli distribution, `scipy.stats.bernoulli`: differentiable in `p`."""

import numpy as _np

from funcgrad.ops import elementwise as _ew
from funcgrad.ops import special as _sp
from funcgrad.scipy.stats._common import on_support as _on_support
from funcgrad.scipy.stats._common import promote as _promote
from funcgrad.scipy.stats._common import value as _value

__all__ = ["cdf", "logcdf", "logpmf", "logsf", "pmf", "sf"]


def logpmf(k, p, loc=0):
    """Return the log of the Bernoulli probability of `k`, as `scipy.stats.bernoulli.logpmf`.

    `k log(p) + (1 - k) log(1 - p)` at `k - loc` in {0, 1}; `-inf` elsewhere.

    Args:
        k: Outcomes: an array or a number.
        p: The probability of 1: an array, a number, or a graph node.
        loc: A shift of `k`.

    Returns:
        An array (a node if `p` is a node), broadcast from the arguments.

    Examples:
        >>> import numpy as np
        >>> from funcgrad.scipy.stats import bernoulli
        >>> bernoulli.logpmf(np.array([0.0, 1.0, 2.0]), 0.25)
        array([-0.28768207, -1.38629436,        -inf])
    """
    k, p, loc = _promote(k, p, loc)
    k = _ew.subtract(k, loc)
    k_v = _value(k)
    inside = (k_v == 0) | (k_v == 1)
    k_in = _ew.where(inside, k, 0.0)
    body = _ew.add(_sp.xlogy(k_in, p), _sp.xlog1py(_ew.subtract(1.0, k_in), _ew.negative(p)))
    return _on_support(inside, body)


def pmf(k, p, loc=0):
    """Return the Bernoulli probability of `k` (see `logpmf`)."""
    return _ew.exp(logpmf(k, p, loc))


def cdf(k, p, loc=0):
    """Return the Bernoulli distribution function: 0 below 0, `1 - p` in [0, 1), 1 from 1."""
    k, p, loc = _promote(k, p, loc)
    k_v = _value(k) - _value(loc)
    return _ew.where(k_v < 0, 0.0, _ew.where(k_v < 1, _ew.subtract(1.0, p), 1.0))


def sf(k, p, loc=0):
    """Return the Bernoulli survival function `1 - cdf(k)`."""
    k, p, loc = _promote(k, p, loc)
    k_v = _value(k) - _value(loc)
    return _ew.where(k_v < 0, 1.0, _ew.where(k_v < 1, p, 0.0))


def logcdf(k, p, loc=0):
    """Return the log of the Bernoulli distribution function: `-inf`, `log1p(-p)`, then 0.

    Differentiable in `p`.

    Examples:
        >>> import numpy as np
        >>> from funcgrad.scipy.stats import bernoulli
        >>> bernoulli.logcdf(np.array([-1.0, 0.0, 1.0]), 0.25)
        array([       -inf, -0.28768207,  0.        ])
    """
    k, p, loc = _promote(k, p, loc)
    k_v = _value(k) - _value(loc)
    return _ew.where(k_v < 0, -_np.inf, _ew.where(k_v < 1, _ew.log1p(_ew.negative(p)), 0.0))


def logsf(k, p, loc=0):
    """Return the log of the Bernoulli survival function: 0, `log(p)`, then `-inf` (in `p`)."""
    k, p, loc = _promote(k, p, loc)
    k_v = _value(k) - _value(loc)
    return _ew.where(k_v < 0, 0.0, _ew.where(k_v < 1, _ew.log(p), -_np.inf))

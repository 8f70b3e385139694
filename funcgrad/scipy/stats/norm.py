"""The normal distribution, `scipy.stats.norm`: differentiable in `x`, `loc` and `scale`."""

import math as _math

from funcgrad.ops import elementwise as _ew
from funcgrad.ops import special as _sp
from funcgrad.scipy.stats._common import promote as _promote
from funcgrad.scipy.stats._common import standardize as _standardize

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]

_HALF_LOG_2PI = 0.5 * _math.log(2.0 * _math.pi)


def logpdf(x, loc=0.0, scale=1.0):
    """Return the log of the normal density at `x`, as `scipy.stats.norm.logpdf`.

    Args:
        x: Points: an array, a number, or a graph node.
        loc: The mean.
        scale: The standard deviation (positive).

    Returns:
        An array (a node if an argument is a node), broadcast from the arguments.

    Examples:
        >>> import numpy as np, funcgrad as fg
        >>> from funcgrad.scipy.stats import norm
        >>> norm.logpdf(np.array([0.0, 1.0]))
        array([-0.91893853, -1.41893853])
        >>> fg.grad(norm.logpdf, argnums=(0, 1, 2))(1.0, 0.5, 2.0)
        (-0.125, 0.125, -0.46875)
    """
    x, loc, scale = _promote(x, loc, scale)
    z = _standardize(x, loc, scale)
    return _ew.subtract(
        _ew.multiply(-0.5, _ew.multiply(z, z)), _ew.add(_ew.log(scale), _HALF_LOG_2PI)
    )


def pdf(x, loc=0.0, scale=1.0):
    """Return the normal density at `x`, as `scipy.stats.norm.pdf` (see `logpdf`)."""
    return _ew.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    """Return the normal distribution function at `x`, as `scipy.stats.norm.cdf`."""
    x, loc, scale = _promote(x, loc, scale)
    return _sp.ndtr(_standardize(x, loc, scale))


def logcdf(x, loc=0.0, scale=1.0):
    """Return the log of the normal distribution function, accurate far in the left tail."""
    x, loc, scale = _promote(x, loc, scale)
    return _sp.log_ndtr(_standardize(x, loc, scale))


def sf(x, loc=0.0, scale=1.0):
    """Return the normal survival function `1 - cdf(x)`, computed without cancellation."""
    x, loc, scale = _promote(x, loc, scale)
    return _sp.ndtr(_ew.negative(_standardize(x, loc, scale)))


def logsf(x, loc=0.0, scale=1.0):
    """Return the log of the normal survival function, accurate far in the right tail."""
    x, loc, scale = _promote(x, loc, scale)
    return _sp.log_ndtr(_ew.negative(_standardize(x, loc, scale)))


def ppf(q, loc=0.0, scale=1.0):
    """Return the normal quantile function (the inverse of `cdf`) at `q`."""
    q, loc, scale = _promote(q, loc, scale)
    return _ew.add(loc, _ew.multiply(scale, _sp.ndtri(q)))

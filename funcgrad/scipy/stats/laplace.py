"""The Laplace distribution, `scipy.stats.laplace`: differentiable in `x`, `loc` and `scale`."""

import math as _math

from funcgrad.ops import elementwise as _ew
from funcgrad.scipy.stats._common import promote as _promote
from funcgrad.scipy.stats._common import standardize as _standardize
from funcgrad.scipy.stats._common import value as _value

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]

_LOG_2 = _math.log(2.0)


def logpdf(x, loc=0.0, scale=1.0):
    """Return the log of the Laplace density at `x`, as `scipy.stats.laplace.logpdf`.

    `-|x - loc| / scale - log(2 scale)` (the gradient in `x` at `loc` is 0).

    Args:
        x: Points: an array, a number, or a graph node.
        loc: The location (the median).
        scale: The scale (positive).

    Returns:
        An array (a node if an argument is a node), broadcast from the arguments.

    Examples:
        >>> import numpy as np
        >>> from funcgrad.scipy.stats import laplace
        >>> laplace.logpdf(np.array([0.0, 1.5]))
        array([-0.69314718, -2.19314718])
    """
    x, loc, scale = _promote(x, loc, scale)
    z = _standardize(x, loc, scale)
    return _ew.subtract(_ew.negative(_ew.absolute(z)), _ew.add(_ew.log(scale), _LOG_2))


def pdf(x, loc=0.0, scale=1.0):
    """Return the Laplace density at `x` (see `logpdf`)."""
    return _ew.exp(logpdf(x, loc, scale))


def _cdf(z):
    # 0.5 exp(z) below 0, 1 - 0.5 exp(-z) above (each branch evaluated where it is small)
    below = _value(z) < 0
    e = _ew.exp(_ew.negative(_ew.absolute(z)))
    return _ew.where(below, _ew.multiply(0.5, e), _ew.subtract(1.0, _ew.multiply(0.5, e)))


def cdf(x, loc=0.0, scale=1.0):
    """Return the Laplace distribution function at `x`."""
    x, loc, scale = _promote(x, loc, scale)
    return _cdf(_standardize(x, loc, scale))


def logcdf(x, loc=0.0, scale=1.0):
    """Return the log of the Laplace distribution function (see `cdf`)."""
    return _ew.log(cdf(x, loc, scale))


def sf(x, loc=0.0, scale=1.0):
    """Return the Laplace survival function `1 - cdf(x)` (by symmetry, without cancellation)."""
    x, loc, scale = _promote(x, loc, scale)
    return _cdf(_ew.negative(_standardize(x, loc, scale)))


def logsf(x, loc=0.0, scale=1.0):
    """Return the log of the Laplace survival function (see `sf`)."""
    return _ew.log(sf(x, loc, scale))

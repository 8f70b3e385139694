"""The Cauchy distribution, `scipy.stats.cauchy`: differentiable in `x`, `loc` and `scale`."""

import math as _math

from funcgrad.ops import elementwise as _ew
from funcgrad.scipy.stats._common import promote as _promote
from funcgrad.scipy.stats._common import standardize as _standardize

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]

_LOG_PI = _math.log(_math.pi)


def logpdf(x, loc=0.0, scale=1.0):
    """Return the log of the Cauchy density at `x`, as `scipy.stats.cauchy.logpdf`.

    Args:
        x: Points: an array, a number, or a graph node.
        loc: The location (the median).
        scale: The scale (positive).

    Returns:
        An array (a node if an argument is a node), broadcast from the arguments.

    Examples:
        >>> import numpy as np
        >>> from funcgrad.scipy.stats import cauchy
        >>> cauchy.logpdf(np.array([0.0, 1.0]))
        array([-1.14472989, -1.83787707])
    """
    x, loc, scale = _promote(x, loc, scale)
    z = _standardize(x, loc, scale)
    return _ew.negative(_ew.add(_ew.add(_ew.log1p(_ew.multiply(z, z)), _ew.log(scale)), _LOG_PI))


def pdf(x, loc=0.0, scale=1.0):
    """Return the Cauchy density at `x` (see `logpdf`)."""
    return _ew.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    """Return the Cauchy distribution function `1/2 + arctan((x - loc) / scale) / pi`."""
    x, loc, scale = _promote(x, loc, scale)
    return _ew.add(0.5, _ew.divide(_ew.arctan(_standardize(x, loc, scale)), _math.pi))


def logcdf(x, loc=0.0, scale=1.0):
    """Return the log of the Cauchy distribution function (see `cdf`)."""
    return _ew.log(cdf(x, loc, scale))


def sf(x, loc=0.0, scale=1.0):
    """Return the Cauchy survival function `1/2 - arctan((x - loc) / scale) / pi`."""
    x, loc, scale = _promote(x, loc, scale)
    return _ew.subtract(0.5, _ew.divide(_ew.arctan(_standardize(x, loc, scale)), _math.pi))


def logsf(x, loc=0.0, scale=1.0):
    """Return the log of the Cauchy survival function (see `sf`)."""
    return _ew.log(sf(x, loc, scale))

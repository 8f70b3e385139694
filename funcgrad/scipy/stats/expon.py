"""The exponential distribution, `scipy.stats.expon`: differentiable in `x`, `loc` and `scale`."""

from funcgrad.ops import elementwise as _ew
from funcgrad.scipy.stats._common import on_support as _on_support
from funcgrad.scipy.stats._common import promote as _promote
from funcgrad.scipy.stats._common import standardize as _standardize
from funcgrad.scipy.stats._common import value as _value

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def _z(x, loc, scale):
    x, loc, scale = _promote(x, loc, scale)
    z = _standardize(x, loc, scale)
    inside = _value(z) >= 0
    return _ew.where(inside, z, 0.0), inside, scale


def logpdf(x, loc=0.0, scale=1.0):
    """Return the log of the exponential density at `x`, as `scipy.stats.expon.logpdf`.

    `-(x - loc) / scale - log(scale)`, and `-inf` (zero gradient) below `loc`.

    Args:
        x: Points: an array, a number, or a graph node.
        loc: The location (the start of the support).
        scale: The scale, `1 / rate` (positive).

    Returns:
        An array (a node if an argument is a node), broadcast from the arguments.

    Examples:
        >>> import numpy as np
        >>> from funcgrad.scipy.stats import expon
        >>> expon.logpdf(np.array([-1.0, 0.5]), scale=2.0)
        array([       -inf, -0.94314718])
    """
    z, inside, scale = _z(x, loc, scale)
    return _on_support(inside, _ew.subtract(_ew.negative(z), _ew.log(scale)))


def pdf(x, loc=0.0, scale=1.0):
    """Return the exponential density at `x` (see `logpdf`)."""
    return _ew.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    """Return the exponential distribution function `1 - exp(-(x - loc) / scale)`."""
    z, _, _ = _z(x, loc, scale)
    return _ew.negative(_ew.expm1(_ew.negative(z)))


def logcdf(x, loc=0.0, scale=1.0):
    """Return the log of the exponential distribution function (see `cdf`)."""
    return _ew.log(cdf(x, loc, scale))


def sf(x, loc=0.0, scale=1.0):
    """Return the exponential survival function `exp(-(x - loc) / scale)`."""
    z, _, _ = _z(x, loc, scale)
    return _ew.exp(_ew.negative(z))


def logsf(x, loc=0.0, scale=1.0):
    """Return the log of the exponential survival function, `-(x - loc) / scale`."""
    z, _, _ = _z(x, loc, scale)
    return _ew.negative(z)

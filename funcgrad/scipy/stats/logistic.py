"""The logistic distribution, `scipy.stats.logistic`: differentiable in `x`, `loc` and `scale`."""

from funcgrad.ops import elementwise as _ew
from funcgrad.scipy.stats._common import promote as _promote
from funcgrad.scipy.stats._common import standardize as _standardize

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, loc=0.0, scale=1.0):
    """Return the log of the logistic density at `x`, as `scipy.stats.logistic.logpdf`.

    `-z - 2 softplus(-z) - log(scale)` for `z = (x - loc) / scale`: stable for large `|z|`.

    Args:
        x: Points: an array, a number, or a graph node.
        loc: The location (the median).
        scale: The scale (positive).

    Returns:
        An array (a node if an argument is a node), broadcast from the arguments.

    Examples:
        >>> import numpy as np
        >>> from funcgrad.scipy.stats import logistic
        >>> logistic.logpdf(np.array([0.0, 800.0]))
        array([  -1.38629436, -800.        ])
    """
    x, loc, scale = _promote(x, loc, scale)
    z = _standardize(x, loc, scale)
    return _ew.negative(
        _ew.add(_ew.add(z, _ew.multiply(2.0, _ew.softplus(_ew.negative(z)))), _ew.log(scale))
    )


def pdf(x, loc=0.0, scale=1.0):
    """Return the logistic density at `x` (see `logpdf`)."""
    return _ew.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    """Return the logistic distribution function `expit((x - loc) / scale)`."""
    x, loc, scale = _promote(x, loc, scale)
    return _ew.sigmoid(_standardize(x, loc, scale))


def logcdf(x, loc=0.0, scale=1.0):
    """Return the log of the logistic distribution function, `-softplus(-z)`, stable."""
    x, loc, scale = _promote(x, loc, scale)
    return _ew.negative(_ew.softplus(_ew.negative(_standardize(x, loc, scale))))


def sf(x, loc=0.0, scale=1.0):
    """Return the logistic survival function `expit(-(x - loc) / scale)`."""
    x, loc, scale = _promote(x, loc, scale)
    return _ew.sigmoid(_ew.negative(_standardize(x, loc, scale)))


def logsf(x, loc=0.0, scale=1.0):
    """Return the log of the logistic survival function, `-softplus(z)`, stable."""
    x, loc, scale = _promote(x, loc, scale)
    return _ew.negative(_ew.softplus(_standardize(x, loc, scale)))

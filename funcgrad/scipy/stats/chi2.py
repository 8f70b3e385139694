"""The chi-squared distribution, `scipy.stats.chi2`: gamma with shape `df / 2` and scale 2."""

from funcgrad.ops import elementwise as _ew
from funcgrad.scipy.stats import gamma as _gamma
from funcgrad.scipy.stats._common import promote as _promote

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, df, loc=0.0, scale=1.0):
    """Return the log of the chi-squared density at `x`, as `scipy.stats.chi2.logpdf`.

    Differentiable in `x`, `df`, `loc` and `scale`.

    Args:
        x: Points: an array, a number, or a graph node.
        df: Degrees of freedom (positive).
        loc: The location.
        scale: The scale (positive).

    Returns:
        An array (a node if an argument is a node), broadcast from the arguments.

    Examples:
        >>> import numpy as np
        >>> from funcgrad.scipy.stats import chi2
        >>> chi2.logpdf(np.array([0.5, 2.0]), 3.0)
        array([-1.51551212, -1.57236494])
    """
    x, df, loc, scale = _promote(x, df, loc, scale)
    return _gamma.logpdf(x, _ew.multiply(df, 0.5), loc, _ew.multiply(scale, 2.0))


def pdf(x, df, loc=0.0, scale=1.0):
    """Return the chi-squared density at `x` (see `logpdf`)."""
    return _ew.exp(logpdf(x, df, loc, scale))


def cdf(x, df, loc=0.0, scale=1.0):
    """Return the chi-squared distribution function; `df` must be a constant."""
    x, df, loc, scale = _promote(x, df, loc, scale)
    return _gamma.cdf(x, _ew.multiply(df, 0.5), loc, _ew.multiply(scale, 2.0))


def logcdf(x, df, loc=0.0, scale=1.0):
    """Return the log of the chi-squared distribution function (see `cdf`)."""
    return _ew.log(cdf(x, df, loc, scale))


def sf(x, df, loc=0.0, scale=1.0):
    """Return the chi-squared survival function; `df` must be a constant."""
    x, df, loc, scale = _promote(x, df, loc, scale)
    return _gamma.sf(x, _ew.multiply(df, 0.5), loc, _ew.multiply(scale, 2.0))


def logsf(x, df, loc=0.0, scale=1.0):
    """Return the log of the chi-squared survival function (see `sf`)."""
    return _ew.log(sf(x, df, loc, scale))

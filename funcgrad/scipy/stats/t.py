"""Student's t distribution, `scipy.stats.t`: densities differentiable in every argument."""

import math as _math

from funcgrad.ops import elementwise as _ew
from funcgrad.ops import special as _sp
from funcgrad.scipy.stats._common import promote as _promote
from funcgrad.scipy.stats._common import standardize as _standardize
from funcgrad.scipy.stats._common import value as _value

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]

_HALF_LOG_PI = 0.5 * _math.log(_math.pi)


def logpdf(x, df, loc=0.0, scale=1.0):
    """Return the log of Student's t density at `x`, as `scipy.stats.t.logpdf`.

    Differentiable in `x`, `df`, `loc` and `scale`.

    Args:
        x: Points: an array, a number, or a graph node.
        df: Degrees of freedom (positive, need not be an integer).
        loc: The location.
        scale: The scale (positive).

    Returns:
        An array (a node if an argument is a node), broadcast from the arguments.

    Examples:
        >>> import numpy as np
        >>> from funcgrad.scipy.stats import t
        >>> t.logpdf(np.array([0.0, 1.0]), 3.0)
        array([-1.00088885, -1.57625299])
    """
    x, df, loc, scale = _promote(x, df, loc, scale)
    z = _standardize(x, loc, scale)
    half_df1 = _ew.multiply(_ew.add(df, 1.0), 0.5)
    norm_const = _ew.subtract(
        _ew.subtract(_sp.gammaln(half_df1), _sp.gammaln(_ew.multiply(df, 0.5))),
        _ew.add(_ew.multiply(0.5, _ew.log(df)), _HALF_LOG_PI),
    )
    tail = _ew.multiply(half_df1, _ew.log1p(_ew.divide(_ew.multiply(z, z), df)))
    return _ew.subtract(_ew.subtract(norm_const, tail), _ew.log(scale))


def pdf(x, df, loc=0.0, scale=1.0):
    """Return Student's t density at `x`, as `scipy.stats.t.pdf` (see `logpdf`)."""
    return _ew.exp(logpdf(x, df, loc, scale))


def _tail(z, df):
    """The probability beyond `|z|` on one side: `betainc(df / 2, 1 / 2, df / (df + z^2)) / 2`."""
    return _ew.multiply(
        0.5,
        _sp.betainc(_ew.multiply(df, 0.5), 0.5, _ew.divide(df, _ew.add(df, _ew.multiply(z, z)))),
    )


def cdf(x, df, loc=0.0, scale=1.0):
    """Return Student's t distribution function, as `scipy.stats.t.cdf`.

    Differentiable in `x`, `loc` and `scale`; `df` must be a constant (its
    gradient raises `NotDifferentiableError`, through `betainc`).
    """
    x, df, loc, scale = _promote(x, df, loc, scale)
    z = _standardize(x, loc, scale)
    tail = _tail(z, df)
    return _ew.where(_value(z) > 0, _ew.subtract(1.0, tail), tail)


def logcdf(x, df, loc=0.0, scale=1.0):
    """Return the log of Student's t distribution function, as `scipy.stats.t.logcdf`.

    Accurate in both tails: `log(tail)` below the median and
    `log1p(-tail)` above it, the tail being at most 1/2. Differentiable in
    `x`, `loc` and `scale` (see `cdf`).

    Examples:
        >>> import numpy as np
        >>> from funcgrad.scipy.stats import t
        >>> t.logcdf(np.array([-30.0, 0.0, 30.0]), 4.0)
        array([-1.25135689e+01, -6.93147181e-01, -3.67643481e-06])
    """
    x, df, loc, scale = _promote(x, df, loc, scale)
    z = _standardize(x, loc, scale)
    tail = _tail(z, df)
    return _ew.where(_value(z) > 0, _ew.log1p(_ew.negative(tail)), _ew.log(tail))


def sf(x, df, loc=0.0, scale=1.0):
    """Return Student's t survival function `1 - cdf(x)` (by symmetry, without cancellation)."""
    x, df, loc, scale = _promote(x, df, loc, scale)
    return cdf(_ew.negative(_standardize(x, loc, scale)), df)


def logsf(x, df, loc=0.0, scale=1.0):
    """Return the log of Student's t survival function, as `scipy.stats.t.logsf` (see `logcdf`)."""
    x, df, loc, scale = _promote(x, df, loc, scale)
    return logcdf(_ew.negative(_standardize(x, loc, scale)), df)

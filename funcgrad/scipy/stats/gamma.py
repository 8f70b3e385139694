"""The gamma distribution, `scipy.stats.gamma`: densities differentiable in every argument."""

from funcgrad.ops import elementwise as _ew
from funcgrad.ops import special as _sp
from funcgrad.scipy.stats._common import on_support as _on_support
from funcgrad.scipy.stats._common import promote as _promote
from funcgrad.scipy.stats._common import standardize as _standardize
from funcgrad.scipy.stats._common import value as _value

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, a, loc=0.0, scale=1.0):
    """Return the log of the gamma density at `x`, as `scipy.stats.gamma.logpdf`.

    Differentiable in `x`, `a`, `loc` and `scale`; `-inf` (zero gradient)
    below `loc`.

    Args:
        x: Points: an array, a number, or a graph node.
        a: The shape (positive).
        loc: The location.
        scale: The scale (positive).

    Returns:
        An array (a node if an argument is a node), broadcast from the arguments.

    Examples:
        >>> import numpy as np
        >>> from funcgrad.scipy.stats import gamma
        >>> gamma.logpdf(np.array([0.5, 2.0]), 2.0)
        array([-1.19314718, -1.30685282])
    """
    x, a, loc, scale = _promote(x, a, loc, scale)
    z = _standardize(x, loc, scale)
    inside = _value(z) >= 0
    z_in = _ew.where(inside, z, 1.0)
    body = _ew.subtract(_sp.xlogy(_ew.subtract(a, 1.0), z_in), _ew.add(z_in, _sp.gammaln(a)))
    return _on_support(inside, _ew.subtract(body, _ew.log(scale)))


def pdf(x, a, loc=0.0, scale=1.0):
    """Return the gamma density at `x`, as `scipy.stats.gamma.pdf` (see `logpdf`)."""
    return _ew.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0.0, scale=1.0):
    """Return the gamma distribution function, `gammainc(a, (x - loc) / scale)`.

    Differentiable in `x`, `loc` and `scale`; `a` must be a constant (its
    gradient raises `NotDifferentiableError`).
    """
    x, a, loc, scale = _promote(x, a, loc, scale)
    z = _standardize(x, loc, scale)
    return _sp.gammainc(a, _ew.where(_value(z) >= 0, z, 0.0))


def logcdf(x, a, loc=0.0, scale=1.0):
    """Return the log of the gamma distribution function (see `cdf`)."""
    return _ew.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0.0, scale=1.0):
    """Return the gamma survival function, `gammaincc(a, (x - loc) / scale)` (see `cdf`)."""
    x, a, loc, scale = _promote(x, a, loc, scale)
    z = _standardize(x, loc, scale)
    return _sp.gammaincc(a, _ew.where(_value(z) >= 0, z, 0.0))


def logsf(x, a, loc=0.0, scale=1.0):
    """Return the log of the gamma survival function (see `sf`)."""
    return _ew.log(sf(x, a, loc, scale))

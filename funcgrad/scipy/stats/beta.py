"""The beta distribution, `scipy.stats.beta`: densities differentiable in every argument."""

from funcgrad.ops import elementwise as _ew
from funcgrad.ops import special as _sp
from funcgrad.scipy.stats._common import on_support as _on_support
from funcgrad.scipy.stats._common import promote as _promote
from funcgrad.scipy.stats._common import standardize as _standardize
from funcgrad.scipy.stats._common import value as _value

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, a, b, loc=0.0, scale=1.0):
    """Return the log of the beta density at `x`, as `scipy.stats.beta.logpdf`.

    Differentiable in `x`, `a`, `b`, `loc` and `scale`; `-inf` (zero
    gradient) outside `[loc, loc + scale]`.

    Args:
        x: Points: an array, a number, or a graph node.
        a: The first shape (positive).
        b: The second shape (positive).
        loc: The location.
        scale: The scale (positive).

    Returns:
        An array (a node if an argument is a node), broadcast from the arguments.

    Examples:
        >>> import numpy as np
        >>> from funcgrad.scipy.stats import beta
        >>> beta.logpdf(np.array([0.25, 0.5]), 2.0, 3.0)
        array([0.52324814, 0.40546511])
    """
    x, a, b, loc, scale = _promote(x, a, b, loc, scale)
    z = _standardize(x, loc, scale)
    z_v = _value(z)
    inside = (z_v >= 0) & (z_v <= 1)
    z_in = _ew.where(inside, z, 0.5)
    body = _ew.add(
        _sp.xlogy(_ew.subtract(a, 1.0), z_in),
        _sp.xlog1py(_ew.subtract(b, 1.0), _ew.negative(z_in)),
    )
    return _on_support(inside, _ew.subtract(body, _ew.add(_sp.betaln(a, b), _ew.log(scale))))


def pdf(x, a, b, loc=0.0, scale=1.0):
    """Return the beta density at `x`, as `scipy.stats.beta.pdf` (see `logpdf`)."""
    return _ew.exp(logpdf(x, a, b, loc, scale))


def cdf(x, a, b, loc=0.0, scale=1.0):
    """Return the beta distribution function, `betainc(a, b, (x - loc) / scale)`.

    Differentiable in `x`, `loc` and `scale`; `a` and `b` must be constants
    (their gradients raise `NotDifferentiableError`).
    """
    x, a, b, loc, scale = _promote(x, a, b, loc, scale)
    z = _standardize(x, loc, scale)
    return _sp.betainc(a, b, _ew.clip(z, a_min=0.0, a_max=1.0))


def logcdf(x, a, b, loc=0.0, scale=1.0):
    """Return the log of the beta distribution function (see `cdf`)."""
    return _ew.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0.0, scale=1.0):
    """Return the beta survival function `1 - cdf(x)` (see `cdf`)."""
    return _ew.subtract(1.0, cdf(x, a, b, loc, scale))


def logsf(x, a, b, loc=0.0, scale=1.0):
    """Return the log of the beta survival function (see `sf`)."""
    return _ew.log1p(_ew.negative(cdf(x, a, b, loc, scale)))

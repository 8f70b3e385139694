"""The multivariate normal distribution, `scipy.stats.multivariate_normal`.

`logpdf`, `pdf` and `entropy` are differentiable in `x`, `mean` and `cov`; `cdf` is
value-only (SciPy's numerical integration) and refuses to be differentiated.
"""

import math as _math

import numpy as _np

import funcgrad.numpy as _fnp
from funcgrad.backend import constant_like as _constant_like
from funcgrad.errors import LinAlgError as _LinAlgError
from funcgrad.errors import NotDifferentiableError as _NotDifferentiableError
from funcgrad.graph import Node as _Node
from funcgrad.numpy import linalg as _linalg
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import linalg as _la
from funcgrad.ops import reduce as _reduce
from funcgrad.ops import shape as _shape
from funcgrad.ops._util import value_of as _value_of
from funcgrad.scipy.stats._common import promote as _promote
from funcgrad.scipy.stats._common import value as _value

__all__ = ["cdf", "entropy", "logpdf", "pdf"]

_LOG_2PI = _math.log(2.0 * _math.pi)


def logpdf(x, mean=None, cov=1, allow_singular=False):
    """Return the log of the multivariate normal density at `x`, as SciPy's.

    `-(d log(2 pi) + log det(cov) + (x - mean)^T cov^-1 (x - mean)) / 2`,
    through `solve` and `slogdet` (so differentiable in `x`, `mean` and
    `cov`; `cov`'s gradient is that of the formula, not symmetrized).

    Args:
        x: Points: the last axis holds the `d` coordinates (a single point
            may be given as shape `(d,)`).
        mean: The mean, shape `(d,)`; None: zeros.
        cov: The covariance matrix `(d, d)`, or a number (times the identity).
        allow_singular: Accepted for SciPy's signature; a singular `cov`
            is not supported either way.

    Returns:
        One log density per point: shape `x.shape[:-1]` (a node if an
        argument is a node).

    Raises:
        LinAlgError: If `cov` is not positive definite: SciPy's test (the
            eigenvalues of its lower triangle, with SciPy's tolerance), so
            where SciPy raises (`ValueError` for a matrix that is not
            positive semidefinite, `LinAlgError` for a singular one; this
            error is both) funcgrad does too, instead of returning the
            formula's number for a matrix that is no covariance. Under
            `jit` the test is a guard (a replay on such a cov traces again
            and raises); under `vmap` one example cannot stop the batch, so
            it gets NaN (its gradient too), as JAX gives (an exactly
            singular cov in a batch makes the batched solve raise).

    Examples:
        >>> import numpy as np
        >>> from funcgrad.scipy.stats import multivariate_normal
        >>> multivariate_normal.logpdf(np.array([[0.0, 0.0], [1.0, 1.0]]), cov=np.eye(2))
        array([-1.83787707, -2.83787707])
    """
    x_v = _value(x)
    d = x_v.shape[-1] if x_v.ndim else 1
    if mean is None:
        mean = _constant_like(_np.zeros(d, dtype=_np.result_type(x_v.dtype, 1.0)), x_v)
    x, mean, cov = _promote(x, mean, cov)
    if _value(cov).ndim < 2:
        cov_v = _value(cov)
        cov = _ew.multiply(cov, _constant_like(_np.eye(d, dtype=cov_v.dtype), cov_v))
    ok = _check_positive_definite(cov, "funcgrad.scipy.stats.multivariate_normal.logpdf")
    diff = _ew.subtract(x, mean)
    batch = _value(diff).shape[:-1]
    flat = _shape.reshape(diff, shape=(-1, d) if batch else (1, d))  # (n, d)
    sol = _linalg.solve(cov, _shape.transpose(flat, axes=None))  # (d, n)
    maha = _reduce.sum_(
        _ew.multiply(_shape.transpose(flat, axes=None), sol), axis=0, keepdims=False
    )
    maha = _shape.reshape(maha, shape=batch)
    logdet = _la.logabsdet(cov)
    out = _ew.multiply(-0.5, _ew.add(maha, _ew.add(logdet, d * _LOG_2PI)))
    if ok is None:
        return out
    # vmap: NaN where cov is no covariance, its gradient too (a where would give 0 there);
    # the factor in out's dtype (where(ok, 1.0, nan) is float64: float32 became float64),
    # and NumPy scalars, not 0-d arrays: they go with a CuPy mask (0-d NumPy arrays do not)
    one = _value(out).dtype.type
    return _ew.multiply(out, _ew.where(ok, one(1.0), one(_np.nan)))


def _batched(a):
    """Whether `a` (or the value of the node `a`) is one of `funcgrad.vmap`'s batches."""
    return hasattr(type(a), "__funcgrad_apply__") or (
        type(a) is _Node and hasattr(type(a.value), "__funcgrad_apply__")
    )


# SciPy's `_eigvalsh_to_eps` on the float64 array it makes of any cov: 1e6 float64 epsilons
# of the largest eigenvalue (float32's epsilon refused cov = diag(1, 0.05), which SciPy takes).
_EPS = 1e6 * float(_np.finfo(_np.float64).eps)


def _check_positive_definite(cov, op):
    """Raise where SciPy's `multivariate_normal` refuses `cov` (its `_PSD` test, lower triangle).

    On an array, NumPy tests it. On a graph node (`grad`, `jit`) funcgrad's
    ops test it and Python reads the verdict, which `jit` keeps as a guard
    (a replay on a cov that fails the test traces again, and raises). Under
    `vmap`, where one example cannot stop the batch, it returns the
    per-example verdict (a boolean batch) for `logpdf` to give NaN where it
    is False; else None.
    """
    if type(cov) is _np.ndarray:
        _refuse(cov, op)
        return None
    # a test (no gradient through it) in float64, as SciPy's (it converts cov to float)
    # (a NumPy scalar goes with a CuPy cov, a 0-d NumPy array does not; it batches, astype not)
    c = _fnp.multiply(_fnp.stop_gradient(cov), _np.float64(1.0))
    eigenvalues = _linalg.eigvalsh(c, UPLO="L")
    largest = _fnp.max(_fnp.abs(eigenvalues), axis=-1)
    eps = _fnp.multiply(_EPS, largest)
    margin = _fnp.subtract(_fnp.min(eigenvalues, axis=-1), eps)
    if _batched(margin):  # NaN or inf entries: the formula's NaN, as an array's solve names them
        return _not_refused(margin)
    if margin <= 0:  # a node's comparison: under jit, a guard
        _refuse(_value(cov), op)
    return None


def _not_refused(margin):
    """Where the eigenvalue test passes (or gives NaN): a mask of vmap's examples.

    NOTE: `funcgrad.jit` follows this function's read of the margin's values (a step of the
    plan, `transforms/jit.py`'s `_FOLLOWED_READERS`), so `jit(vmap(logpdf))` over a batch
    of covs is not sent to eager.
    """
    return _np.logical_not(_np.less_equal(_value_of(margin), 0.0))


def _refuse(cov, op):
    """Raise SciPy's refusals of the array `cov`."""
    if cov.ndim != 2 or cov.shape[0] != cov.shape[1] or not _np.isfinite(cov).all():
        return  # the solve names the shape, or the inf/NaN entries
    eigenvalues = _np.linalg.eigvalsh(cov.astype(_np.float64), UPLO="L")  # SciPy's float64
    largest = _np.max(_np.abs(eigenvalues)) if eigenvalues.size else 0.0
    eps = _EPS * largest
    smallest = _np.min(eigenvalues) if eigenvalues.size else 1.0
    if smallest < -eps:
        raise _LinAlgError(
            f"{op}: cov (shape {cov.shape}) is not positive semidefinite (its smallest "
            f"eigenvalue is {smallest:.6g}), so it is no covariance matrix; SciPy raises too"
        )
    if smallest <= eps:
        raise _LinAlgError(
            f"{op}: cov (shape {cov.shape}) is singular (its smallest eigenvalue {smallest:.6g} "
            f"is within {eps:.3g} of 0); funcgrad's multivariate normal needs a positive definite "
            f"cov (SciPy's allow_singular=True is not supported): add a small multiple of the "
            f"identity"
        )


def pdf(x, mean=None, cov=1, allow_singular=False):
    """Return the multivariate normal density at `x` (see `logpdf`)."""
    return _ew.exp(logpdf(x, mean, cov, allow_singular))


def entropy(mean=None, cov=1):
    """Return the differential entropy `(d log(2 pi e) + log det(cov)) / 2`, as SciPy's.

    Differentiable in `cov` (through `slogdet`; not symmetrized, as `logpdf`);
    it does not depend on `mean`.

    Args:
        mean: The mean, shape `(d,)` (only its length is read); None: from `cov`.
        cov: The covariance matrix `(d, d)`, or a number (then `d` is `mean`'s length, or 1).

    Examples:
        >>> import numpy as np
        >>> from funcgrad.scipy.stats import multivariate_normal
        >>> float(multivariate_normal.entropy(cov=np.eye(2)))
        2.8378770664093453
    """
    cov_v = _value(cov)
    if cov_v.ndim < 2:
        d = 1 if mean is None else max(_np.size(_value(mean)), 1)
        eye = _np.eye(d, dtype=_np.result_type(cov_v.dtype, 1.0))
        cov = _ew.multiply(cov, _constant_like(eye, cov_v))
    d = _value(cov).shape[-1]
    logdet = _la.logabsdet(cov)
    return _ew.multiply(0.5, _ew.add(logdet, d * (_LOG_2PI + 1.0)))


def cdf(x, mean=None, cov=1, allow_singular=False, **kwargs):
    """Return the multivariate normal distribution function, by SciPy: values only.

    Raises:
        NotDifferentiableError: If an argument is a graph node (being
            differentiated): SciPy integrates numerically, and funcgrad has
            no rule for that integral.
    """
    import scipy.stats as _stats

    for name, a in (("x", x), ("mean", mean), ("cov", cov)):
        if type(a) is _Node:
            raise _NotDifferentiableError(
                f"funcgrad.scipy.stats.multivariate_normal.cdf: no gradient in {name}: the "
                f"cdf is SciPy's numerical integral, computed on values only. Pass arrays, "
                f"or differentiate a Monte Carlo estimate instead"
            )
    return _stats.multivariate_normal.cdf(
        x, mean=mean, cov=cov, allow_singular=allow_singular, **kwargs
    )

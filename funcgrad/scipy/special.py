"""`funcgrad.scipy.special`: SciPy's special functions, differentiable.

The functions that apply one primitive each (`gammaln`, `erf`, `jn`, ...)
are generated from the primitive records (`_generated_special.py`, by
`scripts/generate_surfaces.py`); the compositions (`logsumexp` with `b=`,
`multigammaln`, ...) are written here. Arguments are arrays, numbers or
graph nodes; on nodes the result is a node.

Shape parameters of `gammainc`, `gammaincc` and `betainc` and integer
orders (`polygamma`'s `n`, `jn`'s `n`) have no gradient: differentiating
the incomplete functions in their shape parameters raises
`NotDifferentiableError`.
"""

import math as _math

import numpy as _np

from funcgrad.backend import as_value as _as_value
from funcgrad.backend import device_of as _device_of
from funcgrad.backend import on_device as _on_device
from funcgrad.backend import xp_of as _xp_of
from funcgrad.graph import Node as _Node
from funcgrad.numpy._adapters import axes as _as_axes
from funcgrad.numpy._kinds import zero_gradient as _zero_gradient
from funcgrad.ops import elementwise as _elementwise
from funcgrad.ops import nn as _nn
from funcgrad.ops import reduce as _reduce
from funcgrad.ops import shape as _shape
from funcgrad.ops import special as _special
from funcgrad.ops._util import value_of as _value_of
from funcgrad.scipy._generated_special import *  # noqa: F403
from funcgrad.scipy._generated_special import __all__ as _generated_all

__all__ = [
    *_generated_all,
    "expit",
    "gammasgn",
    "log_softmax",
    "logsumexp",
    "multigammaln",
    "softmax",
]


def _value(x):
    # a node's value, an array as it is (NumPy or CuPy), a number as a NumPy array
    # NOTE: value_of, read by a function jit follows: what is computed from it (logsumexp's
    # shift and sign, gammasgn) is computed by a jit plan, not baked from the traced call
    return _value_of(x) if type(x) is _Node else _as_value(x)


def expit(x):
    """Return the logistic sigmoid `1 / (1 + exp(-x))`, stable for large `|x|`.

    The same primitive as `funcgrad.sigmoid`.

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import numpy as np, funcgrad.scipy.special as fsp
        >>> fsp.expit(np.array([-1000.0, 0.0, 2.0]))
        array([0.        , 0.5       , 0.88079708])
    """
    return _elementwise.sigmoid(x)


@_zero_gradient
def gammasgn(x):
    """Return the sign of the gamma function (SciPy's `gammasgn`): piecewise constant.

    Its derivative is zero wherever it has one, so on a graph node the
    result is a plain array (nothing flows back), as HIPS autograd's.

    Args:
        x: An array, a number, or a graph node (real).

    Returns:
        An array of `x`'s floating-point dtype: 1, -1 (or NaN at the poles,
        as SciPy's).

    Examples:
        >>> import numpy as np, funcgrad.scipy.special as fsp
        >>> fsp.gammasgn(np.array([0.5, -0.5, -1.5]))
        array([ 1., -1.,  1.])
    """
    v = _value(x)
    return _special._call(_xp_of(v), "gammasgn", v)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """Return `log(sum(b * exp(a)))` over `axis`, computed stably, as `scipy.special.logsumexp`.

    Differentiable in `a` and in `b`. Without `b` this is the primitive
    `logsumexp` (also `funcgrad.logsumexp`); with `b` it is a composition
    shifted by the maximum of `a` (a constant: the result does not depend
    on it).

    Args:
        a: An array, a number, or a graph node.
        axis: None (all axes), an int or a tuple of ints.
        b: Weights broadcast against `a` (may be negative), or None.
        keepdims: If true, the reduced axes stay, with size 1.
        return_sign: If true, return `(log(abs(s)), sign(s))` for the sum
            `s`; else a negative sum gives NaN, as in SciPy.

    Returns:
        An array (a node if `a` or `b` is a node), or the pair with its sign
        (a plain array) if `return_sign`.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.scipy.special as fsp
        >>> fsp.logsumexp(np.array([1.0, 2.0]), b=np.array([1.0, -1.0]), return_sign=True)
        (np.float64(1.5413248546129181), np.float64(-1.0))
        >>> fg.grad(fsp.logsumexp)(np.array([0.0, np.log(3.0)]))
        array([0.25, 0.75])
    """
    axis = _as_axes(axis)
    if b is None:
        out = _nn.logsumexp(a, axis=axis, keepdims=keepdims)
        if not return_sign:
            return out
        v = _value(out)
        return out, _xp_of(v).where(v == -_np.inf, 0.0, 1.0).astype(v.dtype)[()]
    a_v = _value(a)
    # NOTE: a Python number b stays weak (NEP 50), as in SciPy: float32 a with b=2.0 is float32
    b_dtype = b if type(b) in (int, float, complex) else _value(b).dtype
    xp = _xp_of(a_v)
    if a_v.size:
        m = xp.max(a_v, axis=axis, keepdims=True)
    else:
        with _on_device(_device_of(a_v)):
            m = xp.zeros((1,) * a_v.ndim)
    m = xp.where(xp.isfinite(m), m, 0.0).astype(_np.result_type(a_v.dtype, b_dtype, 1.0))
    s = _reduce.sum_(
        _elementwise.multiply(b, _elementwise.exp(_elementwise.subtract(a, m))),
        axis=axis,
        keepdims=True,
    )
    s_v = _value(s)
    if return_sign:
        out = _elementwise.add(_elementwise.log(_elementwise.absolute(s)), m)
        sign = xp.sign(s_v)
    else:
        out = _elementwise.add(_elementwise.log(s), m)
    if not keepdims:
        kept = s_v.shape
        squeezed = tuple(n for i, n in enumerate(kept) if i not in _reduced(axis, len(kept)))
        out = _shape.reshape(out, shape=squeezed)
        if return_sign:
            sign = sign.reshape(squeezed)
    if type(out) is not _Node:
        out = out[()]  # a scalar, as SciPy's
    if return_sign:
        return out, sign[()]
    return out


def _reduced(axis, ndim):
    if axis is None:
        return set(range(ndim))
    axes = (axis,) if isinstance(axis, int) else axis
    return {a % ndim for a in axes}


def softmax(x, axis=None):
    """Return `exp(x) / sum(exp(x))` over `axis` (all axes by default, as SciPy), stable.

    Args:
        x: An array, a number, or a graph node.
        axis: None (all axes), an int or a tuple of ints.

    Returns:
        An array shaped like `x`, or a node if `x` is a node.

    Examples:
        >>> import numpy as np, funcgrad.scipy.special as fsp
        >>> fsp.softmax(np.array([0.0, np.log(3.0)]))
        array([0.25, 0.75])
    """
    return _nn.softmax(x, axis=_as_axes(axis))


def log_softmax(x, axis=None):
    """Return `x - logsumexp(x)` over `axis` (all axes by default, as SciPy), stable.

    Args:
        x: An array, a number, or a graph node.
        axis: None (all axes), an int or a tuple of ints.

    Returns:
        An array shaped like `x`, or a node if `x` is a node.

    Examples:
        >>> import numpy as np, funcgrad.scipy.special as fsp
        >>> np.exp(fsp.log_softmax(np.array([0.0, np.log(3.0)])))
        array([0.25, 0.75])
    """
    return _nn.log_softmax(x, axis=_as_axes(axis))


def multigammaln(a, d):
    """Return the log of the multivariate gamma function of dimension `d`, as SciPy.

    `d (d - 1) / 4 log(pi) + sum(gammaln(a - j / 2) for j in range(d))`,
    differentiable in `a`.

    Args:
        a: An array, a number, or a graph node; every entry must exceed `(d - 1) / 2`.
        d: The dimension, a positive int (no gradient).

    Returns:
        An array shaped like `a`, or a node if `a` is a node.

    Raises:
        ValueError: If some entry of `a` is not above `(d - 1) / 2` (SciPy's check).

    Examples:
        >>> import numpy as np, funcgrad.scipy.special as fsp
        >>> fsp.multigammaln(np.array([2.0, 3.5]), 3)
        array([1.59631259, 3.89589848])
    """
    d = int(d)
    a_v = _value(a)  # under funcgrad.jit, a traced value: the check is a guard of the plan
    if bool((a_v <= 0.5 * (d - 1)).any()):
        raise ValueError(
            f"funcgrad.scipy.special.multigammaln: condition a ({_np.array(a_v)!r}) > (d-1)/2 = "
            f"{0.5 * (d - 1)} not met"
        )
    dtype = _np.result_type(a_v.dtype, 1.0)
    with _on_device(_device_of(a_v)):  # the constant where a is (NumPy or a GPU)
        half_j = _xp_of(a_v).arange(d, dtype=dtype) / 2
    expanded = _shape.reshape(a, shape=(*a_v.shape, 1))
    terms = _special.gammaln(_elementwise.subtract(expanded, half_j))
    total = _reduce.sum_(terms, axis=-1, keepdims=False)
    return _elementwise.add(total, d * (d - 1) / 4 * _math.log(_math.pi))

"""Hand-written elementwise functions of `funcgrad.numpy`: other signatures, several outputs.

The functions that apply one primitive each (`exp`, `add`, `log2`, `hypot`
...) are generated from the primitive records into `_generated.py`. Here are
those whose signature is their own: `clip` (array bounds), `where` (its
condition is converted to a boolean array first), `float_power` (`dtype=`),
`ldexp` (an integer exponent), the ufuncs with two outputs (`frexp`, `modf`, `divmod`: one differentiable
output built from a primitive, the other piecewise constant), and the
comparisons, which have no gradient and return plain boolean arrays.

Unlike the generated ufuncs (which take NumPy's ufunc keywords: see
`_ufunc_keywords.py`), these take no `out=` or `where=` yet: a result is a
new array or node, never written into another.
"""

from __future__ import annotations

from typing import Any

import numpy as _np

from funcgrad.graph import Node as _Node
from funcgrad.numpy import _kinds
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import ufuncs as _uf
from funcgrad.ops._util import value_of as _value_of

__all__ = [
    "clip",
    "divmod",
    "equal",
    "float_power",
    "frexp",
    "greater",
    "greater_equal",
    "isfinite",
    "isnan",
    "ldexp",
    "less",
    "less_equal",
    "modf",
    "not_equal",
    "where",
]


def _dtype_source(a: Any) -> Any:
    """Return what `numpy.result_type` takes for argument `a`: a number, or something with a dtype."""
    v = _value_of(a)
    return v if isinstance(v, (int, float, complex)) or hasattr(v, "dtype") else _np.asarray(v)


def float_power(x1, x2, dtype=None):
    """Return `x1 ** x2` computed in float64 (complex128 for complex input), as NumPy's.

    Unlike `power`, integers and float32 are promoted first, so the result
    (and the gradient of a float32 input, before it is cast back to
    float32) is computed in float64. The gradients are `power`'s
    (`x2 * x1 ** (x2 - 1)` and `log(x1) * x1 ** x2`, with its conventions
    at `x2 == 0` and `x1 == 0`).

    Args:
        x1: The bases: an array, a number or a graph node.
        x2: The exponents.
        dtype: The dtype to compute in (float64, longdouble or a complex
            dtype); None: NumPy's choice.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.float_power(np.float32(2.0), 3).dtype
        dtype('float64')
        >>> fg.grad(lambda x: fnp.float_power(x, 3.0))(np.float32(2.0))
        np.float32(12.0)
    """
    if dtype is None:
        dtype = _np.result_type(_dtype_source(x1), _dtype_source(x2), _np.float64)
    return _uf.float_power(x1, x2, dtype=_np.dtype(dtype).name)


def ldexp(x1, x2):
    """Return `x1 * 2 ** x2` for integers `x2`, exactly (NumPy's `ldexp`).

    Differentiable in `x1` (gradient `2 ** x2`); the integer exponents `x2`
    are constants (NumPy refuses floating-point exponents, and so does this).

    Args:
        x1: The mantissas: an array, a number or a graph node.
        x2: The integer exponents (an int, a list or an integer array).

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.ldexp(np.array([1.5, -3.0]), [2, -1])
        array([ 6. , -1.5])
        >>> fg.grad(lambda x: fnp.sum(fnp.ldexp(x, [2, -1])))(np.array([1.5, -3.0]))
        array([4. , 0.5])
    """
    if isinstance(x2, (list, tuple)):
        x2 = _np.asarray(x2)
    return _uf.ldexp(x1, x2)


def frexp(x):
    """Return the mantissas and the exponents of `x`: `x == mantissa * 2 ** exponent`.

    The mantissa (in `[0.5, 1)` in magnitude, or 0) is differentiable: it
    is `ldexp(x, -exponent)`, with gradient `2 ** -exponent`; the integer
    exponent has none.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.frexp(np.array([8.0, -3.0]))
        (array([ 0.5 , -0.75]), array([4, 2], dtype=int32))
        >>> fg.grad(lambda x: fnp.sum(fnp.frexp(x)[0]))(np.array([8.0, -3.0]))
        array([0.0625, 0.25  ])
    """
    if type(x) is not _Node:
        return _np.frexp(x)
    exponent = _np.frexp(x.value)[1]
    return _uf.ldexp(x, -exponent), exponent


def modf(x):
    """Return the fractional and the integral parts of `x`, both with the sign of `x`.

    The fractional part has gradient 1 (0 where `x` is infinite, where it
    is a constant 0); the integral part is piecewise constant: a node with
    a zero gradient.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.modf(np.array([2.5, -1.25]))
        (array([ 0.5 , -0.25]), array([ 2., -1.]))
        >>> fg.grad(lambda x: fnp.sum(fnp.modf(x)[0] + fnp.modf(x)[1]))(np.array([2.5, -1.25]))
        array([1., 1.])
    """
    if type(x) is not _Node:
        return _np.modf(x)
    fraction, integral = _np.modf(x.value)
    with _np.errstate(invalid="ignore"):  # fmod(inf, 1) is NaN: replaced below
        part = _uf.fmod(x, 1.0)  # exactly NumPy's fractional part, signed zeros too
    infinite = _np.isinf(x.value)
    if infinite.any():
        part = _ew.where(infinite, fraction, part)
    return part, _ew.where(_np.False_, x, integral)


def divmod(x1, x2):  # noqa: A001  (NumPy's name)
    """Return `(floor_divide(x1, x2), remainder(x1, x2))`, as NumPy's `divmod`.

    The quotient is piecewise constant (a zero gradient); the remainder is
    `remainder`'s, with gradient 1 in `x1` and `-floor(x1 / x2)` in `x2`.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.divmod(np.array([7.0, -7.0]), 2.0)
        (array([ 3., -4.]), array([1., 1.]))
        >>> fg.grad(lambda y: fnp.sum(fnp.divmod(np.array([7.0, -7.0]), y)[1]))(2.0)
        1.0
    """
    if type(x1) is not _Node and type(x2) is not _Node:
        return _np.divmod(x1, x2)
    quotient = _np.floor_divide(_value_of(x1), _value_of(x2))
    for x in (x1, x2):
        if type(x) is _Node:
            quotient = _ew.where(_np.False_, x, quotient)  # the value, a zero gradient into x
    return quotient, _uf.remainder(x1, x2)


def _is_scalar_bound(b):
    return b is None or type(b) in (int, float) or (isinstance(b, _np.generic) and b.ndim == 0)


def clip(a, a_min=None, a_max=None):
    """Return `a` limited to `[a_min, a_max]`, elementwise (either bound may be None).

    Number bounds are constants (the gradient goes to `a` inside the
    interval, including its ends). Array or node bounds are inputs with
    gradients, as in PyTorch's `clamp` with tensor bounds: the gradient goes
    to a bound where it is the result, and to `a` at ties; where
    `a_min > a_max` the result is `a_max`.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.clip(np.array([-2.0, 0.5, 3.0]), -1.0, 1.0)
        array([-1. ,  0.5,  1. ])
        >>> lo = fg.leaf(np.zeros(3))
        >>> fg.backward(fnp.sum(fnp.clip(np.array([-2.0, 0.5, 3.0]), lo, None)))[lo]
        array([1., 0., 0.])
    """
    if _is_scalar_bound(a_min) and _is_scalar_bound(a_max):
        return _ew.clip(a, a_min=a_min, a_max=a_max)
    if a_min is not None and a_max is not None:
        bounds = "both"
    else:
        bounds = "min" if a_min is not None else "max"
    lo = 0.0 if a_min is None else a_min
    hi = 0.0 if a_max is None else a_max
    return _ew.clamp(a, lo, hi, bounds=bounds, method="clamp")


def where(condition, x, y):
    """Return `x` where `condition` is true and `y` elsewhere, broadcasting all three.

    The gradient flows only into the selected branch: the other branch gets
    exact zeros, even where its own derivative is infinite or NaN.

    Args:
        condition: A boolean array (it gets no gradient).
        x: Values where `condition` is true.
        y: Values where it is false.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.where([True, False], [1.0, 2.0], 0.0)
        array([1., 0.])
    """
    condition = _value_of(condition)
    if hasattr(condition, "astype"):  # an array (NumPy or CuPy): stays on its device
        return _ew.where(condition.astype(bool, copy=False), x, y)
    return _ew.where(_np.asarray(condition, dtype=bool), x, y)


@_kinds.value_only
def greater(x1, x2):
    """Return `x1 > x2` on the values, as a boolean array (no gradient).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.greater([1.0, 3.0], 2.0)
        array([False,  True])
    """
    return _np.greater(_value_of(x1), _value_of(x2))


@_kinds.value_only
def greater_equal(x1, x2):
    """Return `x1 >= x2` on the values, as a boolean array (no gradient)."""
    return _np.greater_equal(_value_of(x1), _value_of(x2))


@_kinds.value_only
def less(x1, x2):
    """Return `x1 < x2` on the values, as a boolean array (no gradient)."""
    return _np.less(_value_of(x1), _value_of(x2))


@_kinds.value_only
def less_equal(x1, x2):
    """Return `x1 <= x2` on the values, as a boolean array (no gradient)."""
    return _np.less_equal(_value_of(x1), _value_of(x2))


@_kinds.value_only
def equal(x1, x2):
    """Return `x1 == x2` on the values, as a boolean array (no gradient).

    Use this rather than `==`, which compares graph nodes by identity.
    """
    return _np.equal(_value_of(x1), _value_of(x2))


@_kinds.value_only
def not_equal(x1, x2):
    """Return `x1 != x2` on the values, as a boolean array (no gradient)."""
    return _np.not_equal(_value_of(x1), _value_of(x2))


@_kinds.value_only
def isfinite(x):
    """Return where the values of `x` are finite, as a boolean array."""
    return _np.isfinite(_value_of(x))


@_kinds.value_only
def isnan(x):
    """Return where the values of `x` are NaN, as a boolean array."""
    return _np.isnan(_value_of(x))

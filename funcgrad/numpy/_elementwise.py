"""Hand-written elementwise functions of `funcgrad.numpy`: compositions, and `where`.

The functions that apply one primitive each (`exp`, `add`, ...) are
generated from the primitive records into `_generated.py`. Here are those
built from other primitives (`square`, `reciprocal`), `where` (its condition
is converted to a boolean array first) and the comparisons, which have no
gradient and return plain boolean arrays.
"""

from __future__ import annotations

import numpy as _np

from funcgrad.ops import elementwise as _ew
from funcgrad.ops._util import value_of as _value_of

__all__ = [
    "clip",
    "equal",
    "greater",
    "greater_equal",
    "isfinite",
    "isnan",
    "less",
    "less_equal",
    "not_equal",
    "reciprocal",
    "square",
    "where",
]


def square(x):
    """Return `x * x`, elementwise.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.square([3.0])
        array([9.])
    """
    return _ew.multiply(x, x)


def reciprocal(x):
    """Return `1 / x`, elementwise.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.reciprocal([4.0])
        array([0.25])
    """
    return _ew.divide(1.0, x)


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


def greater(x1, x2):
    """Return `x1 > x2` on the values, as a boolean array (no gradient).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.greater([1.0, 3.0], 2.0)
        array([False,  True])
    """
    return _np.greater(_value_of(x1), _value_of(x2))


def greater_equal(x1, x2):
    """Return `x1 >= x2` on the values, as a boolean array (no gradient)."""
    return _np.greater_equal(_value_of(x1), _value_of(x2))


def less(x1, x2):
    """Return `x1 < x2` on the values, as a boolean array (no gradient)."""
    return _np.less(_value_of(x1), _value_of(x2))


def less_equal(x1, x2):
    """Return `x1 <= x2` on the values, as a boolean array (no gradient)."""
    return _np.less_equal(_value_of(x1), _value_of(x2))


def equal(x1, x2):
    """Return `x1 == x2` on the values, as a boolean array (no gradient).

    Use this rather than `==`, which compares graph nodes by identity.
    """
    return _np.equal(_value_of(x1), _value_of(x2))


def not_equal(x1, x2):
    """Return `x1 != x2` on the values, as a boolean array (no gradient)."""
    return _np.not_equal(_value_of(x1), _value_of(x2))


def isfinite(x):
    """Return where the values of `x` are finite, as a boolean array."""
    return _np.isfinite(_value_of(x))


def isnan(x):
    """Return where the values of `x` are NaN, as a boolean array."""
    return _np.isnan(_value_of(x))

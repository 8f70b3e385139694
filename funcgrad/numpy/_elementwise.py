"""Elementwise functions of `funcgrad.numpy` (see the package docstring)."""

from __future__ import annotations
__all__ = ['negative', 'exp', 'log', 'log1p', 'expm1', 'sqrt', 'absolute', 'sign', 'sin', 'cos', 'tan', 'tanh', 'sinh', 'cosh', 'arcsin', 'arccos', 'arctan', 'add', 'subtract', 'multiply', 'divide', 'power', 'arctan2', 'maximum', 'minimum', 'abs', 'true_divide', 'square', 'reciprocal', 'clip', 'where', 'stop_gradient', 'greater', 'greater_equal', 'less', 'less_equal', 'equal', 'not_equal', 'isfinite', 'isnan']


from funcgrad.ops import elementwise as _ew

import numpy as _np

from funcgrad.ops._util import value_of as _value_of


def negative(x):
    """Return `-x`, elementwise.

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.negative([1.0, -2.0])
        array([-1.,  2.])
    """
    return _ew.negative(x)


def exp(x):
    """Return `e ** x`, elementwise.

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.exp([0.0, 1.0])
        array([1.        , 2.71828183])
    """
    return _ew.exp(x)


def log(x):
    """Return the natural logarithm of `x`, elementwise.

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.log([1.0, 1.0])
        array([0., 0.])
    """
    return _ew.log(x)


def log1p(x):
    """Return `log(1 + x)`, accurate for small `x`.

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.log1p([0.0])
        array([0.])
    """
    return _ew.log1p(x)


def expm1(x):
    """Return `exp(x) - 1`, accurate for small `x`.

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.expm1([0.0])
        array([0.])
    """
    return _ew.expm1(x)


def sqrt(x):
    """Return the non-negative square root of `x`, elementwise.

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.sqrt([4.0, 9.0])
        array([2., 3.])
    """
    return _ew.sqrt(x)


def absolute(x):
    """Return `|x|`, elementwise (the gradient at 0 is 0).

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.absolute([-1.5, 2.0])
        array([1.5, 2. ])
    """
    return _ew.absolute(x)


def sign(x):
    """Return -1, 0 or 1 by the sign of `x` (its gradient is zero).

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.sign([-2.0, 0.0, 3.0])
        array([-1.,  0.,  1.])
    """
    return _ew.sign(x)


def sin(x):
    """Return the sine of `x` (radians), elementwise.

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.sin([0.0])
        array([0.])
    """
    return _ew.sin(x)


def cos(x):
    """Return the cosine of `x` (radians), elementwise.

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.cos([0.0])
        array([1.])
    """
    return _ew.cos(x)


def tan(x):
    """Return the tangent of `x` (radians), elementwise.

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.tan([0.0])
        array([0.])
    """
    return _ew.tan(x)


def tanh(x):
    """Return the hyperbolic tangent of `x`, elementwise.

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.tanh([0.0])
        array([0.])
    """
    return _ew.tanh(x)


def sinh(x):
    """Return the hyperbolic sine of `x`, elementwise.

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.sinh([0.0])
        array([0.])
    """
    return _ew.sinh(x)


def cosh(x):
    """Return the hyperbolic cosine of `x`, elementwise.

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.cosh([0.0])
        array([1.])
    """
    return _ew.cosh(x)


def arcsin(x):
    """Return the inverse sine of `x`, elementwise.

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.arcsin([0.0])
        array([0.])
    """
    return _ew.arcsin(x)


def arccos(x):
    """Return the inverse cosine of `x`, elementwise.

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.arccos([1.0])
        array([0.])
    """
    return _ew.arccos(x)


def arctan(x):
    """Return the inverse tangent of `x`, elementwise.

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.arctan([0.0])
        array([0.])
    """
    return _ew.arctan(x)


def add(x, y):
    """Return `x + y`, broadcasting like NumPy.

    Args:
        x: An array, a number, or a graph node.
        y: An array, a number, or a graph node.

    Returns:
        An array, or a node if either argument is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.add([1.0, 2.0], 10.0)
        array([11., 12.])
    """
    return _ew.add(x, y)


def subtract(x, y):
    """Return `x - y`, broadcasting like NumPy.

    Args:
        x: An array, a number, or a graph node.
        y: An array, a number, or a graph node.

    Returns:
        An array, or a node if either argument is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.subtract([1.0, 2.0], 1.0)
        array([0., 1.])
    """
    return _ew.subtract(x, y)


def multiply(x, y):
    """Return `x * y`, broadcasting like NumPy.

    Args:
        x: An array, a number, or a graph node.
        y: An array, a number, or a graph node.

    Returns:
        An array, or a node if either argument is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.multiply([1.0, 2.0], 3.0)
        array([3., 6.])
    """
    return _ew.multiply(x, y)


def divide(x, y):
    """Return `x / y`, broadcasting like NumPy.

    Args:
        x: An array, a number, or a graph node.
        y: An array, a number, or a graph node.

    Returns:
        An array, or a node if either argument is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.divide([1.0, 2.0], 2.0)
        array([0.5, 1. ])
    """
    return _ew.divide(x, y)


def power(x, y):
    """Return `x ** y`, broadcasting like NumPy.

    Args:
        x: An array, a number, or a graph node.
        y: An array, a number, or a graph node.

    Returns:
        An array, or a node if either argument is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.power([2.0, 3.0], 2.0)
        array([4., 9.])
    """
    return _ew.power(x, y)


def arctan2(x1, x2):
    """Return the angle of the point `(x2, x1)`: `arctan(x1 / x2)` in the right quadrant.

    Args:
        x1: An array, a number, or a graph node.
        x2: An array, a number, or a graph node.

    Returns:
        An array, or a node if either argument is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.arctan2([0.0], 1.0)
        array([0.])
    """
    return _ew.arctan2(x1, x2)


def maximum(x, y):
    """Return the elementwise larger of `x` and `y` (ties split the gradient evenly).

    Args:
        x: An array, a number, or a graph node.
        y: An array, a number, or a graph node.

    Returns:
        An array, or a node if either argument is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.maximum([1.0, 5.0], 3.0)
        array([3., 5.])
    """
    return _ew.maximum(x, y)


def minimum(x, y):
    """Return the elementwise smaller of `x` and `y` (ties split the gradient evenly).

    Args:
        x: An array, a number, or a graph node.
        y: An array, a number, or a graph node.

    Returns:
        An array, or a node if either argument is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.minimum([1.0, 5.0], 3.0)
        array([1., 3.])
    """
    return _ew.minimum(x, y)



abs = absolute  # noqa: A001  (NumPy's alias)
true_divide = divide


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


def clip(a, a_min=None, a_max=None):
    """Return `a` limited to `[a_min, a_max]` (either bound may be None).

    The gradient is 1 where `a` is inside the bounds (ends included), 0 outside.

    Args:
        a: An array, a number, or a graph node.
        a_min: The lower bound (a number or a constant array), or None.
        a_max: The upper bound, or None.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.clip([-2.0, 0.5, 2.0], -1.0, 1.0)
        array([-1. ,  0.5,  1. ])
    """
    return _ew.clip(a, a_min=a_min, a_max=a_max)


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


def stop_gradient(x):
    """Return `x` unchanged, but let no gradient flow back through it.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> fg.grad(lambda x: x * fnp.stop_gradient(x))(3.0)
        3.0
    """
    return _ew.stop_gradient(x)




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

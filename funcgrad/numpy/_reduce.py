"""Reductions of `funcgrad.numpy` (see the package docstring)."""

from __future__ import annotations

from funcgrad.ops import reduce as _rd

__all__ = ["amax", "amin", "cumsum", "max", "mean", "min", "prod", "std", "sum", "var"]


def sum(a, axis=None, keepdims=False):  # noqa: A001  (NumPy's name)
    """Return the sum of the elements of `a` over the given axes.

    Args:
        a: An array, a number, or a graph node.
        axis: None (all axes), an int or a tuple of ints.
        keepdims: If true, the reduced axes stay, with size 1.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.sum([[1.0, 2.0], [3.0, 4.0]], axis=0)
        array([4., 6.])
    """
    return _rd.sum_(a, axis=axis, keepdims=keepdims)


def mean(a, axis=None, keepdims=False):
    """Return the arithmetic mean of the elements of `a` over the given axes.

    Args:
        a: An array, a number, or a graph node.
        axis: None (all axes), an int or a tuple of ints.
        keepdims: If true, the reduced axes stay, with size 1.

    Returns:
        An array, or a node if `a` is a node.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.mean([[1.0, 2.0], [3.0, 4.0]], axis=1)
        array([1.5, 3.5])
        >>> fg.grad(fnp.mean)(np.array([1.0, 2.0]))
        array([0.5, 0.5])
    """
    return _rd.mean(a, axis=axis, keepdims=keepdims)


def prod(a, axis=None, keepdims=False):
    """Return the product of the elements of `a` over the given axes.

    The gradient of each element is the product of the other elements of
    its slice, computed without dividing by the element, so it is exact
    where some elements are 0.

    Args:
        a: An array, a number, or a graph node.
        axis: None (all axes), an int or a tuple of ints.
        keepdims: If true, the reduced axes stay, with size 1.

    Returns:
        An array, or a node if `a` is a node.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.prod([[1.0, 2.0], [3.0, 4.0]], axis=1)
        array([ 2., 12.])
        >>> fg.grad(fnp.prod)(np.array([2.0, 0.0, 3.0]))
        array([0., 6., 0.])
    """
    return _rd.prod(a, axis=axis, keepdims=keepdims)


def max(a, axis=None, keepdims=False):  # noqa: A001  (NumPy's name)
    """Return the largest element of `a` over the given axes.

    The gradient goes to the elements equal to the maximum; `k` tied
    elements get `1/k` of it each (as in PyTorch's `amax` and JAX).

    Args:
        a: An array, a number, or a graph node (not empty along `axis`).
        axis: None (all axes), an int or a tuple of ints.
        keepdims: If true, the reduced axes stay, with size 1.

    Returns:
        An array, or a node if `a` is a node.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.max([[1.0, 5.0], [3.0, 4.0]], axis=0)
        array([3., 5.])
        >>> fg.grad(fnp.max)(np.array([1.0, 3.0, 3.0]))
        array([0. , 0.5, 0.5])
    """
    return _rd.max_(a, axis=axis, keepdims=keepdims)


def min(a, axis=None, keepdims=False):  # noqa: A001  (NumPy's name)
    """Return the smallest element of `a` over the given axes.

    The gradient goes to the elements equal to the minimum; `k` tied
    elements get `1/k` of it each.

    Args:
        a: An array, a number, or a graph node (not empty along `axis`).
        axis: None (all axes), an int or a tuple of ints.
        keepdims: If true, the reduced axes stay, with size 1.

    Returns:
        An array, or a node if `a` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.min([[1.0, 5.0], [3.0, 4.0]], axis=1)
        array([1., 3.])
    """
    return _rd.min_(a, axis=axis, keepdims=keepdims)


amax = max
amin = min


def var(a, axis=None, ddof=0, keepdims=False):
    """Return the variance of the elements of `a` over the given axes.

    The sum of squared deviations from the mean is divided by `n - ddof`,
    where `n` is the number of elements reduced (`ddof=1` gives the unbiased
    estimate).

    Args:
        a: An array, a number, or a graph node.
        axis: None (all axes), an int or a tuple of ints.
        ddof: Delta degrees of freedom.
        keepdims: If true, the reduced axes stay, with size 1.

    Returns:
        An array, or a node if `a` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.var([1.0, 2.0, 3.0, 4.0])
        np.float64(1.25)
        >>> fnp.var([1.0, 2.0, 3.0, 4.0], ddof=1)
        np.float64(1.6666666666666667)
    """
    return _rd.var(a, axis=axis, ddof=ddof, keepdims=keepdims)


def std(a, axis=None, ddof=0, keepdims=False):
    """Return the standard deviation of the elements of `a` over the given axes.

    The square root of `var(a, axis, ddof)`. Where it is 0 (all elements
    equal) the gradient is taken as 0, not 0 / 0.

    Args:
        a: An array, a number, or a graph node.
        axis: None (all axes), an int or a tuple of ints.
        ddof: Delta degrees of freedom.
        keepdims: If true, the reduced axes stay, with size 1.

    Returns:
        An array, or a node if `a` is a node.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.std([[1.0, 3.0], [2.0, 2.0]], axis=1)
        array([1., 0.])
        >>> fg.grad(fnp.std)(np.array([2.0, 2.0]))
        array([0., 0.])
    """
    return _rd.std(a, axis=axis, ddof=ddof, keepdims=keepdims)


def cumsum(a, axis=None):
    """Return the running sums of the elements of `a` along an axis.

    Args:
        a: An array, a number, or a graph node.
        axis: The axis to sum along; None sums the flattened array (the
            result is then 1-D).

    Returns:
        An array, or a node if `a` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.cumsum([[1.0, 2.0], [3.0, 4.0]], axis=1)
        array([[1., 3.],
               [3., 7.]])
        >>> fnp.cumsum([[1.0, 2.0], [3.0, 4.0]])
        array([ 1.,  3.,  6., 10.])
    """
    return _rd.cumsum(a, axis=axis)

"""Reductions of `funcgrad.numpy` (see the package docstring)."""

from __future__ import annotations

from funcgrad.ops import reduce as _rd

__all__ = ["sum"]


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

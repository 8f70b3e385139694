"""Shape functions of `funcgrad.numpy` (see the package docstring)."""

from __future__ import annotations

from funcgrad.ops import shape as _sh

__all__ = ["broadcast_to", "reshape"]


def reshape(a, newshape):
    """Return `a` with the same values in a new shape (one entry may be -1).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.reshape([1.0, 2.0, 3.0, 4.0], (2, 2))
        array([[1., 2.],
               [3., 4.]])
    """
    shape = (newshape,) if isinstance(newshape, int) else tuple(newshape)
    return _sh.reshape(a, shape=shape)


def broadcast_to(array, shape):
    """Return `array` broadcast to `shape`, as NumPy would broadcast it.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.broadcast_to([1.0, 2.0], (2, 2))
        array([[1., 2.],
               [1., 2.]])
    """
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return _sh.broadcast_to(array, shape=shape)

"""How `funcgrad.numpy` turns NumPy-style arguments into a primitive's static parameters.

The generated functions (`_generated.py`) convert each parameter with the
adapter that `scripts/generate_surfaces.py` declares for its name, once:
`axis` and `axes` with `axes`, `shape` with `shape`.
"""

from __future__ import annotations

from collections.abc import Iterable

from funcgrad.ops._util import index_of as _index_of


def axes(axis: int | Iterable[int] | None) -> int | tuple[int, ...] | None:
    """Return an axis argument as None, an int or a tuple of ints (hashable static parameters).

    Examples:
        >>> axes([0, 1]), axes(None), axes(2)
        ((0, 1), None, 2)
    """
    if axis is None or type(axis) is int:
        return axis
    if not isinstance(axis, Iterable) or getattr(axis, "ndim", 1) == 0:
        return _index_of(axis, "", "axis")  # NumPy integers, 0-d integer arrays and tensors
    return tuple(_index_of(a, "", "axis") for a in axis)


def shape(value: int | Iterable[int]) -> tuple[int, ...]:
    """Return a shape argument (an int or a sequence of ints) as a tuple of ints.

    Examples:
        >>> shape(3), shape([2, -1])
        ((3,), (2, -1))
    """
    if hasattr(value, "__index__"):
        return (value.__index__(),)
    return tuple(int(n) for n in value)

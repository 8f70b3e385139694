"""How the PyTorch-style functions turn their arguments into a primitive's static parameters.

The generated functions (`_generated.py`) convert `dim` with `dims`, the
one adapter that `scripts/generate_surfaces.py` declares for it.
"""

from __future__ import annotations

from collections.abc import Iterable

from funcgrad.ops._util import index_of as _index_of


def dims(dim: int | Iterable[int] | None) -> int | tuple[int, ...] | None:
    """Return a `dim` argument as None, an int or a tuple of ints (a primitive's `axis`).

    Examples:
        >>> dims([0, 1]), dims(None), dims(-1)
        ((0, 1), None, -1)
    """
    if dim is None or type(dim) is int:
        return dim
    if not isinstance(dim, Iterable) or getattr(dim, "ndim", 1) == 0:
        return _index_of(dim, "", "dim")  # NumPy integers, 0-d integer arrays and tensors
    return tuple(_index_of(a, "", "dim") for a in dim)

"""How the PyTorch-style functions turn their arguments into a primitive's static parameters.

The generated functions (`_generated.py`) convert `dim` with `dims`, the
one adapter that `scripts/generate_surfaces.py` declares for it.
"""

from __future__ import annotations

from collections.abc import Iterable


def dims(dim: int | Iterable[int] | None) -> int | tuple[int, ...] | None:
    """Return a `dim` argument as None, an int or a tuple of ints (a primitive's `axis`).

    Examples:
        >>> dims([0, 1]), dims(None), dims(-1)
        ((0, 1), None, -1)
    """
    if dim is None or isinstance(dim, int):
        return dim
    if hasattr(dim, "__index__"):
        return dim.__index__()
    return tuple(dim)

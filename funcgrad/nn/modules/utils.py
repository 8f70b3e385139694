"""`_single`, `_pair`, `_triple`, `_ntuple`: PyTorch's helpers for per-dimension arguments."""

from __future__ import annotations

import collections
from itertools import repeat

__all__: list[str] = []


def _ntuple(n: int, name: str = "parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n: int) -> tuple:
    """Reverse `t` and repeat each element `n` times (padding for `F.pad`)."""
    return tuple(x for x in reversed(t) for _ in range(n))

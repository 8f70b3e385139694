"""`empty(shape, device, dtype)`: the uninitialised parameters layers create (zeros here)."""

from __future__ import annotations

from funcgrad.tensors.creation import empty as _empty


def empty(shape, device=None, dtype=None):
    """A tensor of `shape` (zeros) with PyTorch's `factory_kwargs` (`device=`, `dtype=`)."""
    return _empty(*tuple(shape), dtype=dtype, device=device)

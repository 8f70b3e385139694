"""`funcgrad.backends.mps`: Apple's Metal backend, which funcgrad does not have.

Examples:
    >>> import funcgrad as torch
    >>> torch.backends.mps.is_available()
    False
"""

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """Return False: funcgrad computes on the CPU (NumPy) and NVIDIA GPUs (CuPy)."""
    return False


def is_built() -> bool:
    """Return False: funcgrad has no MPS backend."""
    return False

"""`funcgrad.backends.mkl`: whether funcgrad calls Intel MKL itself (it does not)."""

__all__ = ["is_available"]


def is_available() -> bool:
    """Return False: funcgrad calls NumPy, whatever BLAS NumPy uses."""
    return False

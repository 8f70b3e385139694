"""`funcgrad.backends.openmp`: whether funcgrad uses OpenMP itself (it does not)."""

__all__ = ["is_available"]


def is_available() -> bool:
    """Return False: funcgrad's own code is single-threaded Python over NumPy."""
    return False

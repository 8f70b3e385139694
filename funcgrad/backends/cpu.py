"""`funcgrad.backends.cpu`: what the CPU offers funcgrad."""

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """Return `"DEFAULT"`: funcgrad dispatches no vectorized kernels of its own (NumPy does)."""
    return "DEFAULT"

"""Where values live: the array module (NumPy or CuPy) of a value, devices, dtypes.

This is the bottom layer: it imports only NumPy, and CuPy lazily when a CuPy
array first appears. It also owns `freeze`, the one place that decides how a
value becomes read-only when a graph takes it.
"""

from funcgrad.backend.arrays import (
    as_value,
    freeze,
    is_inexact,
    to_device,
    xp_of,
)

__all__ = ["as_value", "freeze", "is_inexact", "to_device", "xp_of"]

"""Dtypes of the imperative layer, with PyTorch's names and defaults.

Python floats become float32 in tensors (settable with
`set_default_dtype`); NumPy arrays keep their dtype. The names
(`funcgrad.float32`, `funcgrad.long` ...) are NumPy dtypes.
"""

from __future__ import annotations

import numpy as np

float16 = half = np.dtype(np.float16)
float32 = float = np.dtype(np.float32)  # noqa: A001  (PyTorch's name)
float64 = double = np.dtype(np.float64)
int8 = np.dtype(np.int8)
int16 = short = np.dtype(np.int16)
int32 = int = np.dtype(np.int32)  # noqa: A001
int64 = long = np.dtype(np.int64)
uint8 = np.dtype(np.uint8)
bool = np.dtype(np.bool_)  # noqa: A001
complex64 = np.dtype(np.complex64)
complex128 = np.dtype(np.complex128)

_default = [float32]


def set_default_dtype(d) -> None:
    """Set the dtype that Python floats get in new tensors (float32 at start).

    Examples:
        >>> import funcgrad as torch
        >>> torch.set_default_dtype(torch.float64)
        >>> torch.tensor(1.0).dtype
        dtype('float64')
        >>> torch.set_default_dtype(torch.float32)
    """
    d = to_dtype(d)
    if d.kind != "f":
        raise TypeError(
            f"funcgrad.set_default_dtype: only floating-point types are supported as the default type, got {d}"
        )
    _default[0] = d


def get_default_dtype():
    """Return the dtype that Python floats get in new tensors."""
    return _default[0]


def default_float_dtype():
    """Return the default floating-point dtype (see `set_default_dtype`)."""
    return _default[0]


def to_dtype(d) -> np.dtype:
    """Return `d` (a dtype, a NumPy type or a name like `'float32'`) as a NumPy dtype."""
    import builtins

    if d is builtins.float:
        return _default[0]
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool
    return np.dtype(d)

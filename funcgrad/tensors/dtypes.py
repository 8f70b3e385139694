"""Dtypes of the imperative layer, with PyTorch's names and defaults.

Python floats become float32 in tensors (settable with
`set_default_dtype`); NumPy arrays keep their dtype. The names
(`funcgrad.float32`, `funcgrad.long` ...) are NumPy dtypes.
"""

from __future__ import annotations

import numpy as np

from funcgrad.errors import DtypeError
from funcgrad.tensors.base import TensorBase

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


# PyTorch's legacy type names (`'torch.DoubleTensor'`), as `Tensor.type()` returns them.
_TYPE_NAMES: dict[str, np.dtype] = {
    "FloatTensor": float32,
    "DoubleTensor": float64,
    "HalfTensor": float16,
    "LongTensor": int64,
    "IntTensor": int32,
    "ShortTensor": int16,
    "CharTensor": int8,
    "ByteTensor": uint8,
    "BoolTensor": bool,
}


def parse_type_name(name: str) -> tuple[np.dtype, str] | None:
    """Return the dtype and device type (`'cpu'` or `'cuda'`) of a type name, or None.

    Accepts PyTorch's spelling and funcgrad's: `'torch.DoubleTensor'`,
    `'funcgrad.DoubleTensor'`, `'torch.cuda.FloatTensor'`.

    Examples:
        >>> parse_type_name("torch.LongTensor"), parse_type_name("funcgrad.cuda.FloatTensor")
        ((dtype('int64'), 'cpu'), (dtype('float32'), 'cuda'))
        >>> parse_type_name("float32") is None
        True
    """
    package, _, rest = name.partition(".")
    if package not in ("torch", "funcgrad"):
        return None
    kind = "cpu"
    if rest.startswith("cuda."):
        kind, rest = "cuda", rest[5:]
    dtype = _TYPE_NAMES.get(rest)
    return None if dtype is None else (dtype, kind)


def to_dtype(d) -> np.dtype:
    """Return `d` (a dtype, a NumPy type or a name like `'float32'`) as a NumPy dtype.

    PyTorch's type names (`'torch.DoubleTensor'`, `'funcgrad.LongTensor'`)
    and the legacy `funcgrad.FloatTensor` class are accepted too.

    Raises:
        funcgrad.errors.DtypeError: If `d` names no dtype (a `TypeError`).

    Examples:
        >>> to_dtype("torch.DoubleTensor"), to_dtype(float)
        (dtype('float64'), dtype('float32'))
    """
    import builtins

    if d is builtins.float:
        return _default[0]
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool
    if isinstance(d, str) and "Tensor" in d:
        parsed = parse_type_name(d)
        if parsed is not None:
            return parsed[0]
    elif isinstance(d, type) and issubclass(d, TensorBase):
        return float32  # FloatTensor, the legacy constructor
    try:
        dtype = np.dtype(d)
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind in "OUSVMm":
        raise DtypeError(
            f"funcgrad: {d!r} is not a tensor dtype; use funcgrad.float32, funcgrad.int64 "
            f"..., a NumPy dtype, or a type name like 'torch.DoubleTensor'"
        )
    return dtype

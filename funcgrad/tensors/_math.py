"""Elementwise math of the tensor API: `lerp`, special functions, rounding division, bitwise operations ...

Most apply one primitive of `funcgrad.ops` (special functions from
`funcgrad.ops.special`, NumPy's other ufuncs from `funcgrad.ops.ufuncs`)
through `_apply`, which gives PyTorch's type promotion (integers to the
default float for floating-point functions). The integer-valued ones
(`floor_divide`, the bitwise and shift operators, `isclose`) have no
gradient and compute on the values.
"""

from __future__ import annotations

import numpy as np

from funcgrad.errors import DtypeError as _DtypeError
from funcgrad.ops import elementwise as _ew
from funcgrad.tensors.dtypes import torch_name as _torch_name
from funcgrad.tensors.tensor_class import Tensor, _apply

__all__ = [
    "lerp",
]


def _float_dtype(t, op: str, what: str, dtype) -> None:
    if isinstance(t, Tensor) and np.dtype(t.dtype) != np.dtype(dtype) and t.dim():
        raise _DtypeError(
            f"funcgrad.{op}: expected dtype {_torch_name(dtype)} for `{what}` but got dtype "
            f"{_torch_name(t.dtype)}; convert it first, e.g. {what}.to(input.dtype)"
        )


def lerp(input, end, weight):  # noqa: A002
    """Return `input + weight * (end - input)`, the linear interpolation (a number or tensor `weight`).

    Gradients go to all three (`weight` too, when it is a tensor).

    Raises:
        funcgrad.errors.DtypeError: If `end` (or a tensor `weight`) has another
            dtype than `input`, or `input` is not floating point.

    Examples:
        >>> import funcgrad as torch
        >>> torch.lerp(torch.tensor([0.0, 10.0]), torch.tensor([10.0, 20.0]), 0.25)
        tensor([ 2.5000, 12.5000])
    """
    if not isinstance(input, Tensor) or not isinstance(end, Tensor):
        raise TypeError(
            "funcgrad.lerp() received an invalid combination of arguments: expected "
            "(Tensor input, Tensor end, Tensor or number weight)"
        )
    if np.dtype(input.dtype).kind not in "fc":
        raise _DtypeError(
            f"funcgrad.lerp: lerp is not implemented for {_torch_name(input.dtype)}; use a "
            f"floating-point tensor"
        )
    if np.dtype(end.dtype) != np.dtype(input.dtype):
        raise _DtypeError(
            f"funcgrad.lerp: expected dtype {_torch_name(input.dtype)} for `end` but got dtype "
            f"{_torch_name(end.dtype)}"
        )
    _float_dtype(weight, "lerp", "weight", input.dtype)
    return _apply(
        lambda a, b, w: _ew.add(a, _ew.multiply(w, _ew.subtract(b, a))), input, end, weight
    )

"""PyTorch's `out=` argument: write a function's result into a tensor the caller gives.

`torch.add(a, b, out=c)` computes `a + b`, writes it into `c` and returns `c`
itself (the same object). `into(name, result, out)` does that last step for
funcgrad's functions, with PyTorch's rules:

* no differentiation through `out=`: a result or an `out` that requires grad
  (with grad mode on) raises, as in PyTorch;
* the result is cast to `out`'s dtype where PyTorch's `canCast` allows
  (float into float64, not float into int64);
* an `out` of another shape is resized (with PyTorch's warning unless it was
  empty); the values are written as an in-place operation writes them, so
  `out`'s views and its `.numpy()` arrays see them.
"""

from __future__ import annotations

import warnings

from funcgrad.tensors.aliases import ViewInfo
from funcgrad.tensors.dtypes import torch_name
from funcgrad.tensors.grad_mode import is_grad_enabled
from funcgrad.tensors.inplace import can_cast
from funcgrad.tensors.tensor_class import Tensor
from funcgrad.tensors.views import check_inplace, write


def into(name: str, result: Tensor, out, stacklevel: int = 3) -> Tensor:
    """Write `result` (what the function `name` computed) into `out`; return `out`.

    `stacklevel` is the resize warning's, counted from here (3: the caller of
    a function that calls `into` itself).

    Raises:
        TypeError: If `out` is not a tensor.
        RuntimeError: If a tensor involved requires grad (PyTorch's rule), if
            `out` is on another device, if the result's dtype cannot be cast
            to `out`'s, or if `out` is a view of another shape (funcgrad does
            not resize a view).
    """
    if not isinstance(out, Tensor):
        raise TypeError(
            f"funcgrad.{name}(): argument 'out' must be Tensor, not {type(out).__name__}"
        )
    if is_grad_enabled() and (result.requires_grad or out.requires_grad):
        raise RuntimeError(
            f"funcgrad.{name}(): functions with out=... arguments don't support automatic "
            f"differentiation, but one of the arguments requires grad (call it without out=, "
            f"or under funcgrad.no_grad())"
        )
    if result.device != out.device:
        raise RuntimeError(
            f"funcgrad.{name}(): expected out tensor to have device {result.device}, but got "
            f"{out.device} instead"
        )
    if tuple(out.shape) != tuple(result.shape):
        if type(out._view) is ViewInfo:
            raise RuntimeError(
                f"funcgrad.{name}(): out= is a view of shape {list(out.shape)} and the result "
                f"has shape {list(result.shape)}: funcgrad does not resize a view (give a tensor "
                f"of shape {list(result.shape)}, or one that is not a view)"
            )
        if out.numel() != 0:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(out.shape)}, which does not match the required output shape "
                f"{list(result.shape)}. This behavior is deprecated, and in a future PyTorch "
                f"release outputs will not be resized unless they have zero elements. You can "
                f"explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
                f"with t.resize_(0).",
                UserWarning,
                stacklevel=stacklevel,
            )
        # NOTE: as `out.data = ...`: the tensor takes an array of the new shape (its old
        # `.numpy()` arrays keep the old one; PyTorch reallocates its storage too).
        out.data = fit_dtype(name, result, out)
        return out
    check_inplace(out, name)
    write(out, fit_dtype(name, result, out), name=name, overwrites=True)
    return out


def fit_dtype(name: str, result: Tensor, out: Tensor) -> Tensor:
    """`result` cast to `out`'s dtype where PyTorch's `canCast` allows, whatever the shapes."""
    dtype = out._value.dtype
    if result._value.dtype == dtype:
        return result
    if not can_cast(result._value.dtype, dtype):
        raise RuntimeError(
            f"funcgrad.{name}(): result type {torch_name(result.dtype)} can't be cast to the "
            f"desired output type {torch_name(dtype)} (out= has dtype {dtype}; give an out "
            f"tensor of dtype {result.dtype})"
        )
    return result._astype(dtype)

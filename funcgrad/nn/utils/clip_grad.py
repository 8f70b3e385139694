"""Gradient clipping: `clip_grad_norm_` and `clip_grad_value_` (as `torch.nn.utils`'s)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from funcgrad.backend import xp_of
from funcgrad.tensors.base import _new_like
from funcgrad.tensors.grad_mode import no_grad
from funcgrad.tensors.tensor_class import Tensor

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "get_total_norm"]


def _tensors(parameters) -> list:
    if isinstance(parameters, Tensor):
        return [parameters]
    return list(parameters)


def _vector_norm(values, norm_type: float):
    """The `norm_type`-norm of an array (any shape), computed in float64."""
    xp = xp_of(values)
    a = xp.abs(values.astype(xp.float64) if values.dtype.kind != "c" else values).ravel()
    if a.size == 0:
        return 0.0
    if math.isinf(norm_type):
        return float(a.max()) if norm_type > 0 else float(a.min())
    if norm_type == 0:
        return float(xp.count_nonzero(a))
    if norm_type == 1:
        return float(a.sum())
    if norm_type == 2:
        return float(xp.sqrt((a * a).sum()))
    return float((a**norm_type).sum() ** (1.0 / norm_type))


def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None):
    """Return the `norm_type`-norm of all `tensors` together, as a 0-d tensor.

    Raises:
        RuntimeError: If the norm is not finite and `error_if_nonfinite`.
    """
    tensors = [t for t in _tensors(tensors) if t is not None]
    norm_type = float(norm_type)
    if not tensors:
        return _new_like(Tensor, np.asarray(0.0, dtype=np.float32), None)
    norms = [_vector_norm(t._value, norm_type) for t in tensors]
    total = _vector_norm(np.asarray(norms), norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    dtype = tensors[0]._value.dtype
    dtype = dtype if dtype.kind == "f" else np.dtype(np.float32)
    return _new_like(Tensor, np.asarray(total, dtype=dtype), None)


def clip_grad_norm_(
    parameters,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach=None,
):
    """Scale the gradients of `parameters` in place so their total norm is at most `max_norm`.

    The total norm is that of all gradients as one vector (`norm_type`:
    2, 1, `inf`, any p). Gradients are multiplied by
    `min(1, max_norm / (total_norm + 1e-6))`, as in PyTorch.

    Args:
        parameters: A tensor or an iterable of tensors (their `.grad`s are clipped).
        max_norm: The largest norm allowed.
        norm_type: The order of the norm.
        error_if_nonfinite: Raise if the total norm is inf or NaN.
        foreach: Accepted for PyTorch's signature (one path here).

    Returns:
        The total norm before clipping (a 0-d tensor).

    Examples:
        >>> import funcgrad as torch
        >>> w = torch.nn.Parameter(torch.ones(4))
        >>> (w * 3).sum().backward()
        >>> torch.nn.utils.clip_grad_norm_([w], max_norm=1.0)
        tensor(6.)
        >>> w.grad
        tensor([0.5000, 0.5000, 0.5000, 0.5000])
    """
    if not isinstance(parameters, Tensor):
        parameters = list(parameters)
    grads = [p.grad for p in _tensors(parameters) if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    if not grads:
        return total
    coef = min(float(max_norm) / (float(total) + 1e-6), 1.0)
    with no_grad():
        for g in grads:
            g.mul_(coef)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of `clip_grad_norm_` (it warns, as PyTorch's does)."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp the gradients of `parameters` to `[-clip_value, clip_value]`, in place.

    Examples:
        >>> import funcgrad as torch
        >>> w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
        >>> (w * torch.tensor([-5.0, 0.3])).sum().backward()
        >>> torch.nn.utils.clip_grad_value_([w], 1.0)
        >>> w.grad
        tensor([-1.0000,  0.3000])
    """
    clip_value = float(clip_value)
    with no_grad():
        for p in _tensors(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)

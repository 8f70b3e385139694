"""`parameters_to_vector` and `vector_to_parameters` (as `torch.nn.utils`'s)."""

from __future__ import annotations

from funcgrad.nn.modules.module import typename
from funcgrad.tensors.functions import cat
from funcgrad.tensors.tensor_class import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_same_device(param, old_device):
    device = param.device
    if old_device is not None and device != old_device:
        raise TypeError(
            "Found two parameters on different devices, this is currently not supported."
        )
    return device


def parameters_to_vector(parameters) -> Tensor:
    """Return the parameters flattened and joined into one vector (differentiable).

    Examples:
        >>> import funcgrad as torch
        >>> net = torch.nn.Linear(3, 2)
        >>> torch.nn.utils.parameters_to_vector(net.parameters()).shape
        funcgrad.Size([8])
    """
    device = None
    parts = []
    for param in parameters:
        device = _check_same_device(param, device)
        parts.append(param.reshape(-1))
    return cat(parts)


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Copy consecutive slices of `vec` into the parameters' values, in order.

    Raises:
        TypeError: If `vec` is not a tensor.
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    device = None
    pointer = 0
    for param in parameters:
        device = _check_same_device(param, device)
        n = param.numel()
        param.data = vec[pointer : pointer + n].view_as(param).data
        pointer += n

"""The imperative layer's tensor: a PyTorch-style shell around the functional core.

`Tensor` holds a node (when it requires grad) and a little mutable state
(`.grad`, hooks); every gradient comes from the functional `backward`.
May import every layer below it: backend, graph, ops, transforms, numpy.
"""

from funcgrad.tensors import methods as _methods  # noqa: F401  (installs Tensor methods)
from funcgrad.tensors.creation import (
    arange,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    is_tensor,
    linspace,
    manual_seed,
    numel,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    tensor,
    zeros,
    zeros_like,
)
from funcgrad.tensors.devices import device
from funcgrad.tensors.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from funcgrad.tensors.tensor_class import Size, Tensor

__all__ = [
    "Size",
    "Tensor",
    "arange",
    "device",
    "empty",
    "empty_like",
    "enable_grad",
    "eye",
    "from_numpy",
    "full",
    "full_like",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "is_tensor",
    "linspace",
    "manual_seed",
    "no_grad",
    "numel",
    "ones",
    "ones_like",
    "rand",
    "rand_like",
    "randint",
    "randn",
    "randn_like",
    "set_grad_enabled",
    "tensor",
    "zeros",
    "zeros_like",
]

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
    numel,
    ones,
    ones_like,
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
from funcgrad.tensors.legacy_types import *  # noqa: F403  (LongTensor, DoubleTensor ...)
from funcgrad.tensors.legacy_types import __all__ as _legacy_all
from funcgrad.tensors.random import *  # noqa: F403  (Generator, manual_seed, rand, normal ...)
from funcgrad.tensors.random import __all__ as _random_all
from funcgrad.tensors.tensor_class import Size, Tensor

__all__ = [
    *_legacy_all,
    *_random_all,
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
    "no_grad",
    "numel",
    "ones",
    "ones_like",
    "set_grad_enabled",
    "tensor",
    "zeros",
    "zeros_like",
]

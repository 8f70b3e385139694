"""`funcgrad.nn` is PyTorch's `torch.nn`: modules, layers, losses, `init`, `utils`.

`funcgrad.nn.functional` (imported as `F`) holds the functions; each takes
`Tensor`s (PyTorch style) and arrays or graph nodes (functional style, as
`jax.nn`). The `jax.nn`-style activations of the functional API stay here
too (`funcgrad.nn.relu`, `softmax(x, axis=-1)`, ...): they do not clash with
PyTorch's names, which are classes (`nn.ReLU`). Layer: training (it may
import everything below it: tensors, autograd, numpy, transforms, ops).
"""

from funcgrad.nn import functional, init, parallel, utils
from funcgrad.nn._jax import log_softmax, logsumexp, relu, sigmoid, softmax, softplus
from funcgrad.nn.modules import *  # noqa: F403
from funcgrad.nn.modules import __all__ as _modules_all
from funcgrad.nn.parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = [
    *_modules_all,
    "Buffer",
    "Parameter",
    "UninitializedBuffer",
    "UninitializedParameter",
    "functional",
    "init",
    "log_softmax",
    "logsumexp",
    "parallel",
    "relu",
    "sigmoid",
    "softmax",
    "softplus",
    "utils",
]

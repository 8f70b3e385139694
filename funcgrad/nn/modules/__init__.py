"""The modules of `funcgrad.nn`: `Module`, the containers and every layer.

Each file holds one family, as PyTorch's `torch/nn/modules/` does; all are
re-exported by `funcgrad.nn`.
"""

from funcgrad.nn.modules.activation import *  # noqa: F403
from funcgrad.nn.modules.activation import __all__ as _activation_all
from funcgrad.nn.modules.container import *  # noqa: F403
from funcgrad.nn.modules.container import __all__ as _container_all
from funcgrad.nn.modules.flatten import *  # noqa: F403
from funcgrad.nn.modules.flatten import __all__ as _flatten_all
from funcgrad.nn.modules.linear import *  # noqa: F403
from funcgrad.nn.modules.linear import __all__ as _linear_all
from funcgrad.nn.modules.loss import *  # noqa: F403
from funcgrad.nn.modules.loss import __all__ as _loss_all
from funcgrad.nn.modules.module import Module

__all__ = [
    "Module",
    *_activation_all,
    *_container_all,
    *_flatten_all,
    *_linear_all,
    *_loss_all,
]

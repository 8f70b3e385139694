"""The modules of `funcgrad.nn`: `Module`, the containers and every layer.

Each file holds one family, as PyTorch's `torch/nn/modules/` does; all are
re-exported by `funcgrad.nn`.
"""

from funcgrad.nn.modules.activation import *  # noqa: F403
from funcgrad.nn.modules.activation import __all__ as _activation_all
from funcgrad.nn.modules.container import *  # noqa: F403
from funcgrad.nn.modules.container import __all__ as _container_all
from funcgrad.nn.modules.conv import *  # noqa: F403
from funcgrad.nn.modules.conv import __all__ as _conv_all
from funcgrad.nn.modules.dropout import *  # noqa: F403
from funcgrad.nn.modules.dropout import __all__ as _dropout_all
from funcgrad.nn.modules.flatten import *  # noqa: F403
from funcgrad.nn.modules.flatten import __all__ as _flatten_all
from funcgrad.nn.modules.lazy import *  # noqa: F403
from funcgrad.nn.modules.lazy import __all__ as _lazy_all
from funcgrad.nn.modules.linear import *  # noqa: F403
from funcgrad.nn.modules.linear import __all__ as _linear_all
from funcgrad.nn.modules.loss import *  # noqa: F403
from funcgrad.nn.modules.loss import __all__ as _loss_all
from funcgrad.nn.modules.module import Module
from funcgrad.nn.modules.normalization import *  # noqa: F403
from funcgrad.nn.modules.normalization import __all__ as _normalization_all
from funcgrad.nn.modules.padding import *  # noqa: F403
from funcgrad.nn.modules.padding import __all__ as _padding_all
from funcgrad.nn.modules.pixelshuffle import *  # noqa: F403
from funcgrad.nn.modules.pixelshuffle import __all__ as _pixelshuffle_all
from funcgrad.nn.modules.pooling import *  # noqa: F403
from funcgrad.nn.modules.pooling import __all__ as _pooling_all
from funcgrad.nn.modules.rnn import *  # noqa: F403
from funcgrad.nn.modules.rnn import __all__ as _rnn_all
from funcgrad.nn.modules.sparse import *  # noqa: F403
from funcgrad.nn.modules.sparse import __all__ as _sparse_all
from funcgrad.nn.modules.transformer import *  # noqa: F403
from funcgrad.nn.modules.transformer import __all__ as _transformer_all
from funcgrad.nn.modules.upsampling import *  # noqa: F403
from funcgrad.nn.modules.upsampling import __all__ as _upsampling_all

__all__ = [
    "Module",
    *_activation_all,
    *_container_all,
    *_conv_all,
    *_dropout_all,
    *_flatten_all,
    *_lazy_all,
    *_linear_all,
    *_loss_all,
    *_normalization_all,
    *_padding_all,
    *_pixelshuffle_all,
    *_pooling_all,
    *_rnn_all,
    *_sparse_all,
    *_transformer_all,
    *_upsampling_all,
]

"""`funcgrad.nn.functional` is PyTorch's `torch.nn.functional` (`import ... as F`).

Every function takes `Tensor`s (PyTorch's dtype rules) and arrays or graph
nodes (NumPy's), with PyTorch's signature on every input type (`dim`,
`keepdim`, `reduction`). Each submodule holds one family and re-exports its
names here, one import line per submodule.
"""

from funcgrad.nn.functional._activations import *  # noqa: F403
from funcgrad.nn.functional._activations import __all__ as _activations_all
from funcgrad.nn.functional._attention import *  # noqa: F403
from funcgrad.nn.functional._attention import __all__ as _attention_all
from funcgrad.nn.functional._conv import *  # noqa: F403
from funcgrad.nn.functional._conv import __all__ as _conv_all
from funcgrad.nn.functional._dropout import *  # noqa: F403
from funcgrad.nn.functional._dropout import __all__ as _dropout_all
from funcgrad.nn.functional._linear import *  # noqa: F403
from funcgrad.nn.functional._linear import __all__ as _linear_all
from funcgrad.nn.functional._loss import *  # noqa: F403
from funcgrad.nn.functional._loss import __all__ as _loss_all
from funcgrad.nn.functional._normalization import *  # noqa: F403
from funcgrad.nn.functional._normalization import __all__ as _normalization_all
from funcgrad.nn.functional._pooling import *  # noqa: F403
from funcgrad.nn.functional._pooling import __all__ as _pooling_all
from funcgrad.nn.functional._sparse import *  # noqa: F403
from funcgrad.nn.functional._sparse import __all__ as _sparse_all
from funcgrad.nn.functional._vision import *  # noqa: F403
from funcgrad.nn.functional._vision import __all__ as _vision_all

__all__: list[str] = [
    *_activations_all,
    *_loss_all,
    *_conv_all,
    *_pooling_all,
    *_linear_all,
    *_dropout_all,
    *_normalization_all,
    *_sparse_all,
    *_vision_all,
    *_attention_all,
]

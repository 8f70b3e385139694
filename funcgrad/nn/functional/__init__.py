"""`funcgrad.nn.functional` is PyTorch's `torch.nn.functional` (`import ... as F`).

Every function takes `Tensor`s (PyTorch's dtype rules) and arrays or graph
nodes (NumPy's), with PyTorch's signature on every input type (`dim`,
`keepdim`, `reduction`). Each submodule holds one family and re-exports its
names here, one import line per submodule.
"""

from funcgrad.nn.functional._activations import *  # noqa: F403
from funcgrad.nn.functional._activations import __all__ as _activations_all

__all__: list[str] = [*_activations_all]

"""`funcgrad.utils` is PyTorch's `torch.utils`: `data` (datasets and loaders), `checkpoint`.

Layer: training (it may import everything below it).
"""

from funcgrad.utils import checkpoint, data

__all__ = ["checkpoint", "data"]

"""PyTorch's `torch.functional` module: functions that `torch` itself also has.

`import funcgrad.functional as F` (for `import torch.functional as F`) finds
here the functions of that module which funcgrad provides, the same objects as
`funcgrad.einsum`, `funcgrad.split` ...; the others raise
`funcgrad.errors.NotProvidedError` naming them.
"""

from __future__ import annotations

# NOTE: from the package, not from funcgrad.tensors: `funcgrad.split` is the view-recording
# wrapper (funcgrad.tensors.views.install_functions); the package is complete when this runs
from funcgrad import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    broadcast_shapes,
    broadcast_tensors,
    cdist,
    chain_matmul,
    einsum,
    norm,
    split,
    tensordot,
    unique,
)
from funcgrad.tensors.missing import module_getattr as _module_getattr

__all__ = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "broadcast_shapes",
    "broadcast_tensors",
    "cdist",
    "chain_matmul",
    "einsum",
    "norm",
    "split",
    "tensordot",
    "unique",
]

__getattr__ = _module_getattr("torch", "funcgrad")

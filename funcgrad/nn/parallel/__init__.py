"""`funcgrad.nn.parallel` is PyTorch's `torch.nn.parallel`: `DistributedDataParallel`.

One model replica per process, gradients averaged across the processes of
a `funcgrad.distributed` group during the backward pass. Layer: training
(it builds on `funcgrad.distributed`).
"""

from funcgrad.nn.parallel.distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]

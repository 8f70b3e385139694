"""`DistributedSampler`: each rank of a data-parallel job reads its own shard of a dataset."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from funcgrad.distributed import get_rank, get_world_size
from funcgrad.tensors import Generator, randperm
from funcgrad.utils.data.sampler import Sampler


class DistributedSampler(Sampler[int]):
    """Indices of rank `rank`'s shard: every `num_replicas`-th index of a shared order.

    PyTorch's `torch.utils.data.distributed.DistributedSampler`. All ranks
    draw the same permutation (seeded with `seed + epoch`, so call
    `set_epoch(epoch)` at the start of each epoch for a new order) and each
    takes its strided share. Without `drop_last` the order is padded with
    its own first indices so that every rank gets `ceil(len / replicas)`;
    with it the tail is dropped and every rank gets `floor(len / replicas)`.

    Args:
        dataset: A sized dataset.
        num_replicas: Number of ranks (default: the world size of
            `funcgrad.distributed`).
        rank: This rank (default: `funcgrad.distributed.get_rank()`).
        shuffle: Permute the indices (seeded), else keep their order.
        seed: The seed shared by all ranks.
        drop_last: Drop the tail instead of padding.

    Examples:
        >>> from funcgrad.utils.data.distributed import DistributedSampler
        >>> list(DistributedSampler(range(5), num_replicas=2, rank=1, shuffle=False))
        [1, 3, 0]
    """

    def __init__(
        self,
        dataset: Any,
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ):
        num_replicas = get_world_size() if num_replicas is None else num_replicas
        rank = get_rank() if rank is None else rank
        if num_replicas < 1 or not 0 <= rank < num_replicas:
            raise ValueError(
                f"funcgrad.utils.data.distributed.DistributedSampler: invalid rank {rank}, rank "
                f"should be in the interval [0, {num_replicas - 1}]"
            )
        self.dataset = dataset
        self.num_replicas, self.rank = num_replicas, rank
        self.shuffle, self.seed, self.drop_last = shuffle, seed, drop_last
        self.epoch = 0
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        if self.shuffle:
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[: self.total_size]
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Set the epoch, which seeds the order (call it before each epoch's iteration)."""
        self.epoch = epoch


__all__ = ["DistributedSampler"]

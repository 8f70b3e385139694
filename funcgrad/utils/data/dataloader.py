"""`DataLoader` (PyTorch's `torch.utils.data.DataLoader`): batches from a dataset, in an order."""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, TypeVar

from funcgrad.tensors import empty
from funcgrad.tensors.dtypes import int64
from funcgrad.utils.data._collate import default_collate, default_convert
from funcgrad.utils.data._fetch import make_fetcher
from funcgrad.utils.data._worker import MultiProcessIterator
from funcgrad.utils.data.dataset import Dataset, IterableDataset
from funcgrad.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]

T_co = TypeVar("T_co", covariant=True)


class _InfiniteConstantSampler(Sampler):
    """The sampler of an iterable dataset: None forever (the dataset decides when to stop)."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None


class DataLoader(Generic[T_co]):
    """Iterate over a dataset in batches (PyTorch's `DataLoader`).

    A map-style dataset is visited in the order of `sampler` (sequential,
    or random with `shuffle=True`), its samples grouped by `batch_sampler`
    (`batch_size` at a time) and each batch collated by `collate_fn`
    (`default_collate`: tensors stacked, numbers and NumPy arrays made
    tensors, dicts and tuples collated field by field). An iterable dataset
    is read as a stream. `len(loader)` is the number of batches, so progress
    bars such as `tqdm(loader)` work as in PyTorch.

    Args:
        dataset: A `Dataset`, an `IterableDataset`, or anything indexable with a length.
        batch_size: Samples per batch; None turns batching off (each sample
            goes through `default_convert`).
        shuffle: Visit the samples in a new random order every epoch.
        sampler: The order of the indices (exclusive with `shuffle`).
        batch_sampler: Yields lists of indices (exclusive with
            `batch_size`, `shuffle`, `sampler` and `drop_last`).
        num_workers: 0 loads in this process; more starts that many worker
            processes (forked where the platform allows).
        collate_fn: Makes a batch of a list of samples.
        pin_memory: Accepted and ignored (there is no pinned memory here).
        drop_last: Drop the last batch when it is smaller.
        timeout: Seconds to wait for a worker's batch (0: forever).
        worker_init_fn: Called with the worker id in each worker.
        multiprocessing_context: A start method name or context for the workers.
        generator: A `funcgrad.Generator` for the shuffling (and the workers' base seed).
        prefetch_factor: Batches in flight per worker (default 2 with workers).
        persistent_workers: Accepted with workers; the workers are started
            again each epoch.
        pin_memory_device: Accepted and ignored.
        in_order: Hand the batches out in order (else as workers finish them).

    Raises:
        ValueError: For exclusive options together, a negative
            `num_workers` or `timeout`, or options an iterable dataset cannot
            take (`shuffle`, `sampler`, `batch_sampler`).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.utils.data import DataLoader, TensorDataset
        >>> ds = TensorDataset(torch.arange(10.0).reshape(5, 2), torch.arange(5))
        >>> loader = DataLoader(ds, batch_size=2)
        >>> len(loader)
        3
        >>> for x, y in loader:
        ...     print(tuple(x.shape), y.tolist())
        (2, 2) [0, 1]
        (2, 2) [2, 3]
        (1, 2) [4]
    """

    __initialized = False

    def __init__(
        self,
        dataset: Any,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Sampler | Iterable | None = None,
        batch_sampler: Sampler | Iterable | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[list], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], None] | None = None,
        multiprocessing_context: Any = None,
        generator: Any = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable "
                "multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing.let "
                "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None."
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context is not None and num_workers == 0:
            raise ValueError(
                f"multiprocessing_context can only be used with multi-process loading "
                f"(num_workers > 0), but got num_workers={num_workers}"
            )
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self._is_iterable = isinstance(dataset, IterableDataset)
        if self._is_iterable:
            if shuffle not in {False, None}:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, "
                    f"but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified sampler option, "
                    f"but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified batch_sampler "
                    f"option, but got batch_sampler={batch_sampler}"
                )
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with "
                "drop_last"
            )
        if sampler is None:
            if self._is_iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._check_worker_number()

    def __setattr__(self, attr: str, val: Any) -> None:
        if self.__initialized and attr in (
            "batch_size",
            "batch_sampler",
            "sampler",
            "drop_last",
            "dataset",
            "persistent_workers",
        ):
            raise ValueError(
                f"{attr} attribute should not be set after {self.__class__.__name__} is initialized"
            )
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self) -> Iterator[Any]:
        """Return an iterator over one epoch of batches."""
        if self.num_workers == 0:
            return _single_process(self)
        # The workers' base seed, drawn as PyTorch does (from `generator` or the global one).
        base_seed = int(empty((), dtype=int64).random_(generator=self.generator).item())
        return MultiProcessIterator(self, base_seed)

    def __len__(self) -> int:
        """The number of batches of an epoch (of samples, without batching)."""
        if self._is_iterable:
            length = len(self.dataset)
            if self.batch_size is not None:
                if self.drop_last:
                    return length // self.batch_size
                return math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)

    def _check_worker_number(self) -> None:
        if not self.num_workers:
            return
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        if cpus is None or self.num_workers > cpus:
            warnings.warn(
                f"This DataLoader will create {self.num_workers} worker processes in total. "
                f"Our suggested max number of worker in current system is {cpus}, which is "
                f"smaller than what this DataLoader is going to create. Please be aware that "
                f"excessive worker creation might get DataLoader running slow or even freeze, "
                f"lower the worker number to avoid potential slowness/freeze if necessary.",
                stacklevel=3,
            )


class _SingleProcessIterator:
    """One epoch of batches, fetched in this process."""

    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        self._sampler_iter = iter(loader._index_sampler)
        self._fetcher = make_fetcher(
            loader._is_iterable,
            loader.dataset,
            loader._auto_collation,
            loader.collate_fn,
            loader.drop_last,
        )

    def __iter__(self) -> _SingleProcessIterator:
        return self

    def __len__(self) -> int:
        return len(self._loader)

    def __next__(self) -> Any:
        index = next(self._sampler_iter)  # StopIteration ends the epoch
        return self._fetcher.fetch(index)


def _single_process(loader: DataLoader) -> _SingleProcessIterator:
    return _SingleProcessIterator(loader)


_ = Dataset  # the base class of the datasets a loader takes (documented in `dataset`)

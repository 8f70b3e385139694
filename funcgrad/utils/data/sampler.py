"""Samplers (PyTorch's `torch.utils.data.sampler`): the order in which a `DataLoader` visits indices."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any, Generic, TypeVar

from funcgrad.tensors import Generator, empty, multinomial, randint, randperm, tensor
from funcgrad.tensors.dtypes import float64, int64

__all__ = [
    "BatchSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
]

T_co = TypeVar("T_co", covariant=True)


class Sampler(Generic[T_co]):
    """Base class of samplers: an iterable of indices (or of lists of indices, for batches).

    Subclasses implement `__iter__`, and `__len__` when the length is known.
    Any iterable of indices can serve as a `DataLoader`'s sampler too.

    Examples:
        >>> class EvensFirst(Sampler):
        ...     def __init__(self, data_source):
        ...         self.n = len(data_source)
        ...     def __iter__(self):
        ...         return iter([*range(0, self.n, 2), *range(1, self.n, 2)])
        ...     def __len__(self):
        ...         return self.n
        >>> from funcgrad.utils.data import DataLoader
        >>> [b.tolist() for b in DataLoader(range(5), batch_size=2, sampler=EvensFirst(range(5)))]
        [[0, 2], [4, 1], [3]]
    """

    def __init__(self, data_source: Any = None) -> None:
        pass

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """The indices `0, 1, ..., len(data_source) - 1`, in order.

    Examples:
        >>> list(SequentialSampler("abc"))
        [0, 1, 2]
    """

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """Random indices: a permutation (or `num_samples` draws with replacement).

    Without a generator, each iteration draws a seed from the global
    generator (so `funcgrad.manual_seed` makes the orders reproducible), as
    PyTorch does. Without replacement and `num_samples > len`, whole
    permutations follow one another.

    Args:
        data_source: The dataset (only its length is used).
        replacement: Draw with replacement.
        num_samples: How many indices (default: the dataset's length).
        generator: A `funcgrad.Generator`.

    Raises:
        TypeError: If `replacement` is not a bool.
        ValueError: If `num_samples` is not a positive integer.

    Examples:
        >>> import funcgrad as torch
        >>> sampler = RandomSampler(range(5), generator=torch.Generator().manual_seed(0))
        >>> sorted(sampler)
        [0, 1, 2, 3, 4]
    """

    def __init__(
        self,
        data_source: Sized,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Any = None,
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={self.replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got "
                f"num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        """How many indices one pass yields."""
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        if self.generator is None:
            seed = int(empty((), dtype=int64).random_().item())
            generator = Generator()
            generator.manual_seed(seed)
        else:
            generator = self.generator
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(high=n, size=(32,), dtype=int64, generator=generator).tolist()
            yield from randint(
                high=n, size=(self.num_samples % 32,), dtype=int64, generator=generator
            ).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=generator).tolist()
            yield from randperm(n, generator=generator).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order (without replacement).

    Args:
        indices: The indices to visit.
        generator: A `funcgrad.Generator`.

    Examples:
        >>> sorted(SubsetRandomSampler([4, 7, 9]))
        [4, 7, 9]
    """

    def __init__(self, indices: Sequence[int], generator: Any = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """`num_samples` indices drawn with probabilities proportional to `weights`.

    Args:
        weights: One non-negative weight per index (need not sum to 1).
        num_samples: How many indices to draw.
        replacement: Draw with replacement (without: each index at most once).
        generator: A `funcgrad.Generator`.

    Raises:
        ValueError: For a non-positive `num_samples`, a non-bool
            `replacement` or weights that are not 1-D.

    Examples:
        >>> list(WeightedRandomSampler([0.0, 1.0, 0.0], 3))
        [1, 1, 1]
    """

    def __init__(
        self,
        weights: Sequence[float],
        num_samples: int,
        replacement: bool = True,
        generator: Any = None,
    ) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        weights_tensor = tensor(_plain(weights), dtype=float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError(
                f"weights should be a 1d sequence but given weights have shape "
                f"{tuple(weights_tensor.shape)}"
            )
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        drawn = multinomial(
            self.weights, self.num_samples, self.replacement, generator=self.generator
        )
        yield from iter(drawn.tolist())

    def __len__(self) -> int:
        return self.num_samples


def _plain(weights: Any) -> Any:
    """Weights as a list or array (a tensor's values)."""
    return weights.tolist() if hasattr(weights, "tolist") else list(weights)


class BatchSampler(Sampler[list[int]]):
    """Group another sampler's indices into lists of `batch_size`.

    Args:
        sampler: A sampler or any iterable of indices.
        batch_size: The size of each batch.
        drop_last: Drop the last batch if it is smaller.

    Raises:
        ValueError: For a non-positive `batch_size` or a non-bool `drop_last`.

    Examples:
        >>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
        [[0, 1], [2, 3], [4]]
        >>> len(BatchSampler(range(5), batch_size=2, drop_last=True))
        2
    """

    def __init__(
        self, sampler: Sampler[int] | Iterable[int], batch_size: int, drop_last: bool
    ) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        sampler_iter = iter(self.sampler)
        if self.drop_last:
            for full in zip(*([sampler_iter] * self.batch_size), strict=False):
                yield [*full]
        else:
            batch = [*itertools.islice(sampler_iter, self.batch_size)]
            while batch:
                yield batch
                batch = [*itertools.islice(sampler_iter, self.batch_size)]

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size  # type: ignore[arg-type]
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size  # type: ignore[arg-type]

"""Datasets (PyTorch's `torch.utils.data.dataset`): indexable and iterable collections of samples."""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

from funcgrad.tensors import randperm
from funcgrad.tensors.tensor_class import Tensor

__all__ = [
    "ChainDataset",
    "ConcatDataset",
    "Dataset",
    "IterableDataset",
    "StackDataset",
    "Subset",
    "TensorDataset",
    "random_split",
]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map-style dataset: subclasses implement `__getitem__` (and usually `__len__`).

    `DataLoader` asks it for samples by index (through a sampler). A
    subclass may also implement `__getitems__(indices)` to fetch a whole
    batch at once. `a + b` concatenates two datasets.

    Examples:
        >>> class Squares(Dataset):
        ...     def __len__(self):
        ...         return 4
        ...     def __getitem__(self, i):
        ...         return i * i
        >>> ds = Squares() + Squares()
        >>> len(ds), ds[5]
        (8, 1)
    """

    def __getitem__(self, index: Any) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset[T_co]) -> ConcatDataset[T_co]:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """An iterable-style dataset: subclasses implement `__iter__` (a stream of samples).

    `DataLoader` iterates it instead of indexing it (no sampler, no shuffle).
    `a + b` chains two of them.

    Examples:
        >>> class Count(IterableDataset):
        ...     def __iter__(self):
        ...         return iter(range(3))
        >>> list(Count() + Count())
        [0, 1, 2, 0, 1, 2]
    """

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: Dataset[T_co]) -> ChainDataset:  # type: ignore[override]
        return ChainDataset([self, other])


class TensorDataset(Dataset[tuple[Tensor, ...]]):
    """Samples that are rows of tensors: item `i` is `(t[i] for t in tensors)`.

    Args:
        *tensors: Tensors with the same size in their first dimension.

    Raises:
        AssertionError: If the first dimensions differ (PyTorch's check).

    Examples:
        >>> import funcgrad as torch
        >>> ds = TensorDataset(torch.arange(6).reshape(3, 2), torch.tensor([0, 1, 0]))
        >>> len(ds), ds[1]
        (3, (tensor([2, 3]), tensor(1)))
    """

    def __init__(self, *tensors: Tensor) -> None:
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Zip datasets of one length: samples are tuples (positional) or dicts (keywords).

    Args:
        *args: Datasets whose samples form tuples.
        **kwargs: Datasets whose samples form dicts with these keys.

    Raises:
        ValueError: For both kinds at once, none, or different lengths.

    Examples:
        >>> ds = StackDataset(image=[10, 20], label=[0, 1])
        >>> ds[1]
        {'image': 20, 'label': 1}
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args:
            if kwargs:
                raise ValueError(
                    "Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) "
                    "like input/output, but both types are given."
                )
            self._length = len(args[0])
            if any(self._length != len(d) for d in args):
                raise ValueError("Size mismatch between datasets")
            self.datasets: tuple | dict = args
        elif kwargs:
            values = list(kwargs.values())
            self._length = len(values[0])
            if any(self._length != len(d) for d in values):
                raise ValueError("Size mismatch between datasets")
            self.datasets = kwargs
        else:
            raise ValueError("At least one dataset should be passed")

    def __getitem__(self, index: Any) -> Any:
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices: list) -> list:
        def column(dataset: Any) -> list:
            if callable(getattr(dataset, "__getitems__", None)):
                items = dataset.__getitems__(indices)
                if len(items) != len(indices):
                    raise ValueError(
                        f"Nested dataset's output size mismatch. Expected {len(indices)}, "
                        f"got {len(items)}"
                    )
                return list(items)
            return [dataset[i] for i in indices]

        if isinstance(self.datasets, dict):
            columns = {k: column(d) for k, d in self.datasets.items()}
            return [{k: columns[k][j] for k in columns} for j in range(len(indices))]
        cols = [column(d) for d in self.datasets]
        return [tuple(c[j] for c in cols) for j in range(len(indices))]

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset[T_co]):
    """The concatenation of map-style datasets.

    Args:
        datasets: The datasets, in order.

    Raises:
        AssertionError: For no dataset, or an `IterableDataset` (PyTorch's checks).

    Examples:
        >>> ds = ConcatDataset([[1, 2], [3, 4, 5]])
        >>> len(ds), ds[2], ds[-1], ds.cumulative_sizes
        (5, 3, 5, [2, 5])
    """

    @staticmethod
    def cumsum(sequence: Iterable[Any]) -> list[int]:
        """The running totals of the lengths of `sequence`'s datasets."""
        out, total = [], 0
        for e in sequence:
            total += len(e)
            out.append(total)
        return out

    def __init__(self, datasets: Iterable[Any]) -> None:
        super().__init__()
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> T_co:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if dataset_idx == 0 else idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]


class ChainDataset(IterableDataset):
    """The concatenation of iterable datasets (streams one after the other).

    Args:
        datasets: The iterable datasets, in order.

    Examples:
        >>> class Count(IterableDataset):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         return iter(range(self.n))
        ...     def __len__(self):
        ...         return self.n
        >>> chained = ChainDataset([Count(2), Count(3)])
        >>> list(chained), len(chained)
        ([0, 1, 0, 1, 2], 5)
    """

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        super().__init__()
        self.datasets = datasets

    def __iter__(self) -> Iterator[Any]:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)  # type: ignore[arg-type]
        return total


class Subset(Dataset[T_co]):
    """The samples of `dataset` at `indices`, in that order.

    Args:
        dataset: The whole dataset.
        indices: The indices of the subset.

    Examples:
        >>> s = Subset([10, 11, 12, 13], [3, 0])
        >>> len(s), s[0], s[1]
        (2, 13, 10)
    """

    def __init__(self, dataset: Any, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx: Any) -> T_co:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list[int]) -> list[T_co]:
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(
    dataset: Any, lengths: Sequence[int | float], generator: Any = None
) -> list[Subset]:
    """Split a dataset into disjoint random subsets of the given lengths (or fractions).

    Fractions that sum to 1 become lengths `floor(len * f)`, the remainder
    dealt one by one from the first subset on, as in PyTorch.

    Args:
        dataset: The dataset to split.
        lengths: The subsets' lengths, or fractions summing to 1.
        generator: A `funcgrad.Generator` for the permutation (default: the
            global one, seeded by `funcgrad.manual_seed`).

    Returns:
        A list of `Subset`s.

    Raises:
        ValueError: If a fraction is outside [0, 1] or the lengths do not add up.

    Examples:
        >>> import funcgrad as torch
        >>> a, b = random_split(range(10), [0.7, 0.3], generator=torch.Generator().manual_seed(0))
        >>> len(a), len(b), sorted(list(a) + list(b)) == list(range(10))
        (7, 3, True)
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes: list[int] = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(math.floor(len(dataset) * frac))
        remainder = len(dataset) - sum(sizes)
        for i in range(remainder):  # add 1 to the lengths, round-robin, until they add up
            sizes[i % len(sizes)] += 1
        lengths = sizes
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.",
                    stacklevel=2,
                )
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(int(sum(lengths)), generator=generator).tolist()
    return [
        Subset(dataset, indices[offset - length : offset])
        for offset, length in zip(itertools.accumulate(lengths), lengths, strict=True)
    ]

"""Fetchers: how one index (or list of indices) becomes data, for map-style and iterable datasets."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class MapFetcher:
    """Index a map-style dataset: a batch through `__getitems__` when it has one."""

    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Callable, drop_last: bool):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last

    def fetch(self, possibly_batched_index: Any) -> Any:
        if self.auto_collation:
            getitems = getattr(self.dataset, "__getitems__", None)
            if getitems:
                data = getitems(possibly_batched_index)
            else:
                data = [self.dataset[idx] for idx in possibly_batched_index]
        else:
            data = self.dataset[possibly_batched_index]
        return self.collate_fn(data)


class IterableFetcher:
    """Draw from an iterable dataset's iterator: a batch is the next `len(index)` samples."""

    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Callable, drop_last: bool):
        self.dataset_iter = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, possibly_batched_index: Any) -> Any:
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in possibly_batched_index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if len(data) == 0 or (self.drop_last and len(data) < len(possibly_batched_index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


def make_fetcher(
    iterable: bool, dataset: Any, auto_collation: bool, collate_fn: Callable, drop_last: bool
) -> MapFetcher | IterableFetcher:
    kind = IterableFetcher if iterable else MapFetcher
    return kind(dataset, auto_collation, collate_fn, drop_last)

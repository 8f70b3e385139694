"""Worker processes of a `DataLoader` with `num_workers > 0` (PyTorch's design, in brief).

The main process runs the sampler and sends `(batch number, indices)` to
the workers round-robin, keeping `prefetch_factor` tasks per worker in
flight; each worker fetches and collates its batches and sends them back
through one result queue; the main process hands them out in order (or as
they come with `in_order=False`). Workers start by fork where the platform
has it (the dataset need not pickle), are seeded `base_seed + worker_id`
(funcgrad's generators, `random` and NumPy's legacy global state), and
run `worker_init_fn(worker_id)`. An exception in a worker is raised again
in the main process with the worker's traceback.
"""

from __future__ import annotations

import multiprocessing
import queue
import random
import traceback
from dataclasses import dataclass
from typing import Any

import numpy as np

from funcgrad.tensors import manual_seed
from funcgrad.utils.data._fetch import make_fetcher

# How long the main process waits on the result queue before checking that the
# workers are alive (seconds).
_STATUS_CHECK_INTERVAL = 5.0


@dataclass(frozen=True)
class WorkerInfo:
    """What `get_worker_info()` returns inside a worker (PyTorch's fields)."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """Return the current worker's `id`, `num_workers`, `seed` and `dataset` copy; None in the main process.

    An `IterableDataset` uses it in `__iter__` to give each worker its own
    share of the stream (otherwise every worker yields all of it).

    Examples:
        >>> get_worker_info() is None
        True
    """
    return _worker_info


class _StopMarker:
    """Sent by a worker whose iterable dataset is exhausted."""

    def __init__(self, worker_id: int) -> None:
        self.worker_id = worker_id


class _Failure:
    """An exception raised in a worker, carried back as text."""

    def __init__(self, worker_id: int, exc: BaseException) -> None:
        self.type = type(exc)
        self.message = (
            f"Caught {type(exc).__name__} in DataLoader worker process {worker_id}.\n"
            f"Original {''.join(traceback.format_exception(exc))}"
        )

    def reraise(self) -> None:
        try:
            error = self.type(self.message)
        except Exception:  # an exception class whose constructor takes other arguments
            error = RuntimeError(self.message)
        raise error


def _worker_loop(
    iterable: bool,
    dataset: Any,
    index_queue: Any,
    result_queue: Any,
    auto_collation: bool,
    collate_fn: Any,
    drop_last: bool,
    base_seed: int,
    init_fn: Any,
    worker_id: int,
    num_workers: int,
) -> None:
    global _worker_info
    seed = base_seed + worker_id
    random.seed(seed)
    manual_seed(seed)
    np.random.seed(seed % 2**32)
    _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    fetcher = None
    init_error = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
    except Exception as e:
        init_error = _Failure(worker_id, e)
    exhausted = False
    while True:
        task = index_queue.get()
        if task is None:  # the main process is done
            # NOTE: results it will not read may still sit in this process's queue buffer;
            # without this, the process waits at exit until they are read (never), and the
            # main process's join gave up only after 5 s per worker (as PyTorch's workers do).
            result_queue.cancel_join_thread()
            break
        idx, index = task
        if init_error is not None:
            result_queue.put((idx, init_error))
            init_error = None
            continue
        if exhausted:
            result_queue.put((idx, _StopMarker(worker_id)))
            continue
        try:
            data = fetcher.fetch(index)  # type: ignore[union-attr]
        except StopIteration:
            exhausted = True
            data = _StopMarker(worker_id)
        except Exception as e:
            data = _Failure(worker_id, e)
        result_queue.put((idx, data))


def _context(loader: Any) -> Any:
    ctx = loader.multiprocessing_context
    if ctx is None:
        methods = multiprocessing.get_all_start_methods()
        return multiprocessing.get_context("fork" if "fork" in methods else methods[0])
    if isinstance(ctx, str):
        return multiprocessing.get_context(ctx)
    return ctx


class MultiProcessIterator:
    """The iterator of a `DataLoader` with worker processes."""

    def __init__(self, loader: Any, base_seed: int) -> None:
        self._loader = loader
        self._iterable = loader._is_iterable
        self._sampler_iter = iter(loader._index_sampler)
        self._num_workers = loader.num_workers
        self._timeout = loader.timeout
        self._in_order = loader.in_order
        ctx = _context(loader)
        self._result_queue = ctx.Queue()
        self._index_queues = []
        self._workers = []
        for i in range(self._num_workers):
            index_queue = ctx.Queue()
            w = ctx.Process(
                target=_worker_loop,
                args=(
                    self._iterable,
                    loader.dataset,
                    index_queue,
                    self._result_queue,
                    loader._auto_collation,
                    loader.collate_fn,
                    loader.drop_last,
                    base_seed,
                    loader.worker_init_fn,
                    i,
                    self._num_workers,
                ),
                daemon=True,
            )
            w.start()
            self._index_queues.append(index_queue)
            self._workers.append(w)
        self._active = [True] * self._num_workers
        self._next_worker = 0
        self._send_idx = 0  # the number of the next batch to ask for
        self._rcvd_idx = 0  # the number of the next batch to hand out
        self._tasks: dict[int, int] = {}  # batch number -> worker, for batches in flight
        self._buffer: dict[int, Any] = {}  # batches that came early
        self._shutdown = False
        self._yielded = 0
        for _ in range(loader.prefetch_factor * self._num_workers):
            self._put_task()

    def _put_task(self) -> None:
        for _ in range(self._num_workers):
            worker = self._next_worker
            self._next_worker = (self._next_worker + 1) % self._num_workers
            if self._active[worker]:
                break
        else:
            return
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        self._index_queues[worker].put((self._send_idx, index))
        self._tasks[self._send_idx] = worker
        self._send_idx += 1

    def _get(self) -> tuple[int, Any]:
        waited = 0.0
        while True:
            wait = _STATUS_CHECK_INTERVAL
            if self._timeout > 0:
                wait = min(wait, self._timeout - waited)
            try:
                return self._result_queue.get(timeout=wait)
            except queue.Empty:
                waited += wait
                if self._timeout > 0 and waited >= self._timeout:
                    self._shutdown_workers()
                    raise RuntimeError(
                        f"DataLoader timed out after {self._timeout} seconds"
                    ) from None
                dead = [i for i, w in enumerate(self._workers) if not w.is_alive()]
                if dead:
                    self._shutdown_workers()
                    raise RuntimeError(
                        f"DataLoader worker (pid(s) "
                        f"{', '.join(str(self._workers[i].pid) for i in dead)}) exited "
                        f"unexpectedly"
                    ) from None

    def __iter__(self) -> MultiProcessIterator:
        return self

    def __len__(self) -> int:
        return len(self._loader)

    def __next__(self) -> Any:
        while True:
            if not self._tasks and not self._buffer:
                self._shutdown_workers()
                raise StopIteration
            if self._in_order and self._rcvd_idx in self._buffer:
                idx, data = self._rcvd_idx, self._buffer.pop(self._rcvd_idx)
            elif not self._in_order and self._buffer:
                idx = next(iter(self._buffer))
                data = self._buffer.pop(idx)
            else:
                if self._in_order and self._rcvd_idx not in self._tasks:
                    self._rcvd_idx += 1  # a batch number that was never asked for
                    continue
                idx, data = self._get()
                self._tasks.pop(idx, None)
                if isinstance(data, _StopMarker):
                    self._active[data.worker_id] = False
                    if self._in_order and idx == self._rcvd_idx:
                        self._rcvd_idx += 1
                    self._put_task()
                    continue
                if not (self._in_order and idx == self._rcvd_idx):
                    self._buffer[idx] = data
                    continue
            if self._in_order:
                self._rcvd_idx += 1
            self._put_task()
            if isinstance(data, _Failure):
                self._shutdown_workers()
                data.reraise()
            return data

    def _shutdown_workers(self) -> None:
        if self._shutdown:
            return
        self._shutdown = True
        for q in self._index_queues:
            q.put(None)
        for w in self._workers:
            w.join(timeout=_STATUS_CHECK_INTERVAL)
            if w.is_alive():
                w.terminate()
                w.join(timeout=_STATUS_CHECK_INTERVAL)
        for q in [*self._index_queues, self._result_queue]:
            q.cancel_join_thread()
            q.close()

    def __del__(self) -> None:
        try:
            self._shutdown_workers()
        except Exception:
            pass

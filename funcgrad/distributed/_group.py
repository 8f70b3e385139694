"""Process groups: who takes part, over which engine, and how long anyone waits.

A `ProcessGroup` wraps a communicator of one engine (`_MpiComm` over
mpi4py, `_NcclComm` over CuPy's NCCL, `_SelfComm` for a world of one
process). Every collective is started non-blocking and then polled against
the group's deadline (`timeout=` of `init_process_group`), so a peer that
died or hangs makes the others raise `DistTimeoutError` instead of waiting
forever; a peer that raises tells the others (a message on a communicator
of its own), and they raise `DistBackendError` naming it at once.
"""

from __future__ import annotations

import datetime
import enum
import os
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from funcgrad.backend import device_of, on_device, to_device, xp_of
from funcgrad.errors import DeviceError

# --- errors -----------------------------------------------------------------------------------


class DistError(RuntimeError):
    """Base class of the errors of `funcgrad.distributed` (PyTorch's `torch.distributed.DistError`)."""


class DistBackendError(DistError):
    """A peer process failed: it raised, died, or the communication engine reported an error.

    The message names the rank that failed and what it raised where that is
    known. Fix the failing rank; the others only report it.
    """


class DistTimeoutError(DistBackendError, TimeoutError):
    """A collective did not complete within the group's `timeout=`.

    A peer has died, is stuck, or called a different collective (or the same
    one in a different order). Raise `timeout=` of `init_process_group` if
    the peers are only slow.
    """


class CollectiveMismatchError(DistError, ValueError):
    """The ranks called a collective with different shapes, dtypes or operations.

    The message lists what each rank passed. Every rank raises it together,
    so none is left waiting.
    """


# --- names ------------------------------------------------------------------------------------


class ReduceOp(str, enum.Enum):
    """How `all_reduce`, `reduce_scatter` and `reduce` combine the ranks' values.

    Examples:
        >>> from funcgrad.distributed import ReduceOp
        >>> ReduceOp.SUM
        <ReduceOp.SUM: 'sum'>
    """

    SUM = "sum"
    AVG = "avg"
    MAX = "max"
    MIN = "min"
    PRODUCT = "product"

    def __repr__(self) -> str:
        return f"<ReduceOp.{self.name}: {self.value!r}>"


class Backend(str, enum.Enum):
    """The communication engines: `"mpi"` (mpi4py, CPUs and clusters) and `"nccl"` (CuPy, GPUs)."""

    MPI = "mpi"
    NCCL = "nccl"


DEFAULT_TIMEOUT = datetime.timedelta(minutes=30)  # PyTorch's default


def _seconds(timeout: Any) -> float:
    if timeout is None:
        return DEFAULT_TIMEOUT.total_seconds()
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    if isinstance(timeout, (int, float)) and timeout > 0:
        return float(timeout)
    raise ValueError(
        f"funcgrad.distributed.init_process_group: timeout must be a datetime.timedelta or a "
        f"positive number of seconds, got {timeout!r}"
    )


# --- requests and the waiting loop --------------------------------------------------------------


_yield = getattr(os, "sched_yield", lambda: time.sleep(0))


def _poll(group: ProcessGroup, done: Callable[[], bool], what: str) -> None:
    """Wait until `done()`, checking for failed peers, until the group's deadline."""
    if done():
        return
    start = time.monotonic()
    deadline = start + group.timeout
    pause = 0.0
    while not done():
        group._check_peers(what)
        now = time.monotonic()
        if now > deadline:
            raise DistTimeoutError(
                f"funcgrad.distributed.{what}: rank {group.rank} of {group.size} waited "
                f"{group.timeout:g} s (the timeout= of init_process_group) and the collective "
                f"did not complete: a peer process died, hangs, or called a different "
                f"collective; check the other ranks' output"
            )
        # NOTE: MPI moves a non-blocking collective forward only inside MPI calls (no
        # progress thread), so waiting tests it in a loop: spinning for the first 0.2 ms
        # (as MPI's own blocking wait does), then yielding the core between tests (a peer
        # waiting for a core gets it); only a long wait sleeps, a little longer each time,
        # so that a stuck job does not burn its cores until the deadline.
        if now - start < 2e-4:
            continue
        if now - start < 0.05:
            _yield()
        else:
            pause = min(pause * 2 or 1e-4, 2e-3)
            time.sleep(pause)


class Work:
    """The handle of a collective started with `async_op=True` (PyTorch's `Work`).

    `wait()` blocks (within the group's timeout) until the collective is
    done, writes the result where the call said, and returns it.
    """

    def __init__(
        self,
        group: ProcessGroup,
        reqs: Sequence[Any],
        what: str,
        finish: Callable[[], Any] | None = None,
        comm: Any = None,
        then: Callable[[], list[tuple[Any, list[Any]]]] | None = None,
    ):
        self._group = group
        # (communicator, its requests) pairs: NCCL's sends carry their shapes over MPI
        self._pending = [(group.comm if comm is None else comm, list(reqs))]
        self._then = then  # a second stage, started once the first is done (recv: the data)
        self._what = what
        self._finish = finish
        self._done = False
        self._result: Any = None

    def _test(self) -> bool:
        """Make progress; whether every stage is done."""
        while True:
            if not all(comm.test(reqs) for comm, reqs in self._pending):
                return False
            if self._then is None:
                return True
            then, self._then = self._then, None
            self._pending = then()

    def is_completed(self) -> bool:
        """Whether the collective is done (it makes progress on it, never blocks)."""
        return self._done or self._test()

    def wait(self, timeout: Any = None) -> Any:
        """Wait for the collective and return its result (the tensor updated, or the new value).

        Raises:
            DistTimeoutError: If it does not complete within the group's
                timeout (or `timeout`, seconds or a timedelta, if given).
            DistBackendError: If a peer reported a failure meanwhile.
        """
        if not self._done:
            group = self._group
            saved = group.timeout
            if timeout is not None:
                group.timeout = _seconds(timeout)
            try:
                _poll(group, self._test, self._what)
            finally:
                group.timeout = saved
            self._done = True
            if self._finish is not None:
                self._result = self._finish()
        return self._result

    def result(self) -> Any:
        """Return what `wait()` returns, waiting if needed."""
        return self.wait()

    def __repr__(self) -> str:
        state = "done" if self._done else "pending"
        return f"<funcgrad.distributed.Work {self._what} ({state})>"


# --- communicators ------------------------------------------------------------------------------


def _put(recv: Any, index: Any, value: Any) -> None:
    """`recv[index] = value`, `value` first moved to `recv`'s device (NumPy or a GPU)."""
    recv[index] = to_device(value, device_of(recv))


class _SelfComm:
    """A world of one process: every collective is a copy (no engine needed).

    Its buffers live where the values do (NumPy, or CuPy on their GPU), as
    PyTorch's single-rank gloo or NCCL groups leave a tensor on its device.
    """

    rank, size = 0, 1

    def test(self, reqs: Sequence[Any]) -> bool:
        return True

    def iallreduce(self, buf: Any, op: ReduceOp) -> list[Any]:
        return []

    def ibcast(self, buf: Any, root: int) -> list[Any]:
        return []

    def iallgather(self, send: Any, recv: Any) -> list[Any]:
        _put(recv, 0, send)
        return []

    def ireduce_scatter(self, send: Any, recv: Any, op: ReduceOp) -> list[Any]:
        _put(recv, ..., send[0])
        return []

    def igather(self, send: Any, recv: Any, root: int) -> list[Any]:
        _put(recv, 0, send)
        return []

    def iscatter(self, send: Any, recv: Any, root: int) -> list[Any]:
        _put(recv, ..., send[0])
        return []

    def ibarrier(self) -> list[Any]:
        return []

    def isend(self, buf: Any, dst: int, tag: int) -> list[Any]:
        raise DistError("funcgrad.distributed.send: a world of one process has no peer to send to")

    def irecv(self, buf: Any, src: int, tag: int) -> list[Any]:
        raise DistError("funcgrad.distributed.recv: a world of one process has no peer")

    def free(self) -> None:
        pass


def _mpi() -> Any:
    try:
        from mpi4py import MPI
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise DistError(
            "funcgrad.distributed: the 'mpi' backend needs mpi4py and an MPI implementation; "
            "install them with `pip install funcgrad[mpi]` (mpi4py and the mpich wheel)"
        ) from e
    return MPI


_MPI_OPS = {"sum": "SUM", "avg": "SUM", "max": "MAX", "min": "MIN", "product": "PROD"}


class _MpiComm:
    """An mpi4py communicator; each method starts a non-blocking operation and returns requests."""

    def __init__(self, comm: Any):
        self.MPI = _mpi()
        self.comm = comm
        comm.Set_errhandler(self.MPI.ERRORS_RETURN)  # errors become exceptions, not aborts
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()

    def test(self, reqs: Sequence[Any]) -> bool:
        return not reqs or bool(self.MPI.Request.Testall(list(reqs)))

    def _op(self, op: ReduceOp) -> Any:
        return getattr(self.MPI, _MPI_OPS[op.value])

    def iallreduce(self, buf: Any, op: ReduceOp) -> list[Any]:
        return [self.comm.Iallreduce(self.MPI.IN_PLACE, buf, self._op(op))]

    def ibcast(self, buf: Any, root: int) -> list[Any]:
        return [self.comm.Ibcast(buf, root=root)]

    def iallgather(self, send: Any, recv: Any) -> list[Any]:
        return [self.comm.Iallgather(send, recv)]

    def ireduce_scatter(self, send: Any, recv: Any, op: ReduceOp) -> list[Any]:
        return [self.comm.Ireduce_scatter_block(send, recv, self._op(op))]

    def igather(self, send: Any, recv: Any, root: int) -> list[Any]:
        return [self.comm.Igather(send, recv, root=root)]

    def iscatter(self, send: Any, recv: Any, root: int) -> list[Any]:
        return [self.comm.Iscatter(send, recv, root=root)]

    def ibarrier(self) -> list[Any]:
        return [self.comm.Ibarrier()]

    def isend(self, buf: Any, dst: int, tag: int) -> list[Any]:
        return [self.comm.Isend(buf, dest=dst, tag=tag)]

    def irecv(self, buf: Any, src: int, tag: int) -> list[Any]:
        return [self.comm.Irecv(buf, source=src, tag=tag)]

    def free(self) -> None:
        if self.comm != self.MPI.COMM_WORLD:
            self.comm.Free()


def _cupy() -> Any:
    try:
        import cupy
        from cupy.cuda import nccl
    except ImportError as e:
        raise DeviceError(
            "funcgrad.distributed.init_process_group(backend='nccl'): NCCL comes through "
            "CuPy (cupy.cuda.nccl), which is not installed; install funcgrad[gpu] on a machine "
            "with NVIDIA GPUs, or use backend='mpi'"
        ) from e
    return cupy, nccl


class _NcclComm:
    """A NCCL communicator over CuPy: one GPU per rank, its unique id broadcast over MPI.

    Each operation runs on a stream of its own; its "request" is a CUDA event
    recorded after it, which `test` queries (so waiting polls a deadline too).
    """

    def __init__(self, mpi: _MpiComm):
        cupy, nccl = _cupy()
        if cupy.cuda.runtime.getDeviceCount() == 0:
            raise DeviceError(
                "funcgrad.distributed.init_process_group(backend='nccl'): no CUDA device is "
                "visible; use backend='mpi' on CPUs"
            )
        # one GPU per rank: the rank's place among the ranks of its machine picks it
        MPI = mpi.MPI
        local = mpi.comm.Split_type(MPI.COMM_TYPE_SHARED)
        cupy.cuda.Device(local.Get_rank() % cupy.cuda.runtime.getDeviceCount()).use()
        local.Free()
        self.cupy, self.nccl, self.mpi = cupy, nccl, mpi
        self.rank, self.size = mpi.rank, mpi.size
        uid = nccl.get_unique_id() if mpi.rank == 0 else None
        uid = mpi.comm.bcast(uid, root=0)
        self.comm = nccl.NcclCommunicator(mpi.size, uid, mpi.rank)
        self.stream = cupy.cuda.Stream(non_blocking=True)
        self.ops = {
            "sum": nccl.NCCL_SUM,
            "avg": nccl.NCCL_SUM,
            "max": nccl.NCCL_MAX,
            "min": nccl.NCCL_MIN,
            "product": nccl.NCCL_PROD,
        }

    def _type(self, a: Any) -> int:
        name = {
            "float16": "NCCL_FLOAT16",
            "float32": "NCCL_FLOAT32",
            "float64": "NCCL_FLOAT64",
            "int8": "NCCL_INT8",
            "uint8": "NCCL_UINT8",
            "int32": "NCCL_INT32",
            "uint32": "NCCL_UINT32",
            "int64": "NCCL_INT64",
            "uint64": "NCCL_UINT64",
        }.get(str(a.dtype))
        if not isinstance(a, self.cupy.ndarray) or name is None:
            raise DeviceError(
                f"funcgrad.distributed (nccl): got a {type(a).__name__} of dtype {a.dtype}; "
                f"NCCL takes CuPy arrays (tensors on 'cuda') of a float or integer dtype"
            )
        return int(getattr(self.nccl, name))

    def _after(self, run: Callable[[int], None]) -> list[Any]:
        # NOTE: the stream waits for the work already queued on the current stream
        # (what computed the buffers), then NCCL runs on it; the event marks the end.
        self.stream.wait_event(self.cupy.cuda.get_current_stream().record())
        run(self.stream.ptr)
        return [self.stream.record()]

    def test(self, reqs: Sequence[Any]) -> bool:
        return all(e.done for e in reqs)

    def iallreduce(self, buf: Any, op: ReduceOp) -> list[Any]:
        t = self._type(buf)
        p, n = buf.data.ptr, buf.size
        return self._after(lambda s: self.comm.allReduce(p, p, n, t, self.ops[op.value], s))

    def ibcast(self, buf: Any, root: int) -> list[Any]:
        t = self._type(buf)
        p, n = buf.data.ptr, buf.size
        return self._after(lambda s: self.comm.broadcast(p, p, n, t, root, s))

    def iallgather(self, send: Any, recv: Any) -> list[Any]:
        t = self._type(send)
        return self._after(
            lambda s: self.comm.allGather(send.data.ptr, recv.data.ptr, send.size, t, s)
        )

    def ireduce_scatter(self, send: Any, recv: Any, op: ReduceOp) -> list[Any]:
        t = self._type(send)
        o = self.ops[op.value]
        return self._after(
            lambda s: self.comm.reduceScatter(send.data.ptr, recv.data.ptr, recv.size, t, o, s)
        )

    def _group_of(self, run: Callable[[int], None]) -> list[Any]:
        def grouped(s: int) -> None:
            self.nccl.groupStart()
            try:
                run(s)
            finally:
                self.nccl.groupEnd()

        return self._after(grouped)

    def igather(self, send: Any, recv: Any, root: int) -> list[Any]:
        t = self._type(send)

        def run(s: int) -> None:
            if self.rank == root:
                for r in range(self.size):
                    self.comm.recv(recv[r].data.ptr, send.size, t, r, s)
            self.comm.send(send.data.ptr, send.size, t, root, s)

        return self._group_of(run)

    def iscatter(self, send: Any, recv: Any, root: int) -> list[Any]:
        t = self._type(recv)

        def run(s: int) -> None:
            if self.rank == root:
                for r in range(self.size):
                    self.comm.send(send[r].data.ptr, recv.size, t, r, s)
            self.comm.recv(recv.data.ptr, recv.size, t, root, s)

        return self._group_of(run)

    def ibarrier(self) -> list[Any]:
        return self.mpi.ibarrier()

    def isend(self, buf: Any, dst: int, tag: int) -> list[Any]:
        t = self._type(buf)
        return self._after(lambda s: self.comm.send(buf.data.ptr, buf.size, t, dst, s))

    def irecv(self, buf: Any, src: int, tag: int) -> list[Any]:
        t = self._type(buf)
        return self._after(lambda s: self.comm.recv(buf.data.ptr, buf.size, t, src, s))

    def free(self) -> None:
        self.comm.destroy()


# --- process groups -----------------------------------------------------------------------------

_ERROR_TAG = 7  # on the group's error communicator: "this rank failed: <message>"


class ProcessGroup:
    """A set of ranks that run collectives together (PyTorch's `ProcessGroup`).

    Made by `init_process_group` (the default group, every rank) and
    `new_group(ranks)`. `rank()` and `size()` are this process's rank in the
    group and the group's size.
    """

    def __init__(
        self,
        comm: Any,
        backend: str,
        timeout: float,
        ranks: Sequence[int],
        errors: Any = None,
        meta: Any = None,
    ):
        self.comm = comm
        self.backend = backend
        self.timeout = timeout
        self.ranks = tuple(ranks)  # the global ranks of the members, in group order
        self.rank = comm.rank
        self.size = comm.size
        self._errors = errors  # an mpi4py communicator over the whole world, or None
        self._meta = meta or comm  # where shapes are compared (MPI, also for NCCL)
        self._probes = 0

    def _check_peers(self, what: str) -> None:
        """Raise `DistBackendError` if a peer reported a failure (checked every few polls)."""
        errors = self._errors
        if errors is None:
            return
        self._probes += 1
        if self._probes % 8:
            return
        MPI = _mpi()
        status = MPI.Status()
        if errors.Iprobe(source=MPI.ANY_SOURCE, tag=_ERROR_TAG, status=status):
            message = errors.recv(source=status.Get_source(), tag=_ERROR_TAG)
            error = DistBackendError(
                f"funcgrad.distributed.{what}: rank {status.Get_source()} failed, so rank "
                f"{errors.Get_rank()} stops too. Rank {status.Get_source()} reported:\n{message}"
            )
            error._from_peer = True  # type: ignore[attr-defined]  # not reported back to all
            raise error

    def rank_of(self, global_rank: int) -> int:
        """The group rank of a global rank.

        Raises:
            ValueError: If that rank is not a member of the group.
        """
        if global_rank not in self.ranks:
            raise ValueError(
                f"funcgrad.distributed: rank {global_rank} is not in this process group (its "
                f"members are the global ranks {list(self.ranks)})"
            )
        return self.ranks.index(global_rank)

    def __repr__(self) -> str:
        return f"<ProcessGroup {self.backend} rank {self.rank} of {self.size}>"


_STATE: dict[str, Any] = {"world": None, "excepthook": None}


def _world() -> ProcessGroup:
    group = _STATE["world"]
    if group is None:
        raise DistError(
            "funcgrad.distributed: the default process group is not initialized; call "
            "funcgrad.distributed.init_process_group(backend='mpi') first (and launch with "
            "`mpiexec -n N python script.py`)"
        )
    return group


def resolve(group: ProcessGroup | None) -> ProcessGroup:
    """The group a collective runs on: `group`, or the default group."""
    return _world() if group is None else group


def self_group() -> ProcessGroup:
    """A group of this process alone (no engine): the world of the primitives' samples."""
    return ProcessGroup(_SelfComm(), "self", DEFAULT_TIMEOUT.total_seconds(), (0,))


def _report_failure(exc_type: type, exc: BaseException, tb: Any) -> None:
    """Tell every other rank that this one is failing (from `sys.excepthook`)."""
    group = _STATE["world"]
    if group is not None and group._errors is not None and not getattr(exc, "_from_peer", False):
        errors = group._errors
        text = "".join(traceback.format_exception(exc_type, exc, tb))[-4000:]
        try:
            reqs = [
                errors.isend(text, dest=r, tag=_ERROR_TAG)
                for r in range(errors.Get_size())
                if r != errors.Get_rank()
            ]
            deadline = time.monotonic() + 2.0
            while reqs and time.monotonic() < deadline:
                reqs = [r for r in reqs if not r.Test()]
                time.sleep(1e-3)
        except Exception:  # the report is best effort: the original error is what matters
            pass
    hook = _STATE["excepthook"] or sys.__excepthook__
    hook(exc_type, exc, tb)


def init_process_group(
    backend: str | None = None,
    init_method: str | None = None,
    timeout: Any = None,
    world_size: int = -1,
    rank: int = -1,
    **unused: Any,
) -> None:
    """Join the default process group of all the processes of this job.

    Launch the job with `mpiexec -n N python script.py` (or
    `mpiexec -n N python -m funcgrad.distributed.run script.py`); each
    process calls this once. The MPI backend takes its world from
    `mpi4py.MPI.COMM_WORLD`; NCCL (one GPU per rank, CuPy) broadcasts its
    unique id over MPI. A single `python script.py` is a world of one.

    Args:
        backend: `"mpi"` (default on CPUs) or `"nccl"`.
        init_method: Accepted for PyTorch compatibility; MPI needs none.
        timeout: How long any collective may wait (a `datetime.timedelta` or
            seconds; default 30 minutes, as PyTorch). A peer that died or hangs
            makes the others raise `DistTimeoutError` after it.
        world_size: If given, checked against the launcher's.
        rank: If given, checked against the launcher's.

    Raises:
        DistError: If the group is initialized already, or `world_size` /
            `rank` disagree with the launcher.
        DeviceError: For `"nccl"` without CuPy or without GPUs.

    Examples:
        >>> import funcgrad.distributed as dist
        >>> dist.init_process_group("mpi")      # doctest: +SKIP
    """
    if _STATE["world"] is not None:
        raise DistError(
            "funcgrad.distributed.init_process_group: the default process group is initialized "
            "already; call destroy_process_group() first"
        )
    name = Backend(str(backend or "mpi").lower()).value
    seconds = _seconds(timeout)
    MPI = _mpi()
    world = MPI.COMM_WORLD
    if world_size not in (-1, world.Get_size()) or rank not in (-1, world.Get_rank()):
        raise DistError(
            f"funcgrad.distributed.init_process_group: world_size={world_size}, rank={rank} "
            f"given, but the launcher started {world.Get_size()} processes and this is rank "
            f"{world.Get_rank()}; leave them out (MPI knows them)"
        )
    mpi = _MpiComm(world.Dup())
    errors = world.Dup()
    comm: Any = mpi if name == "mpi" else _NcclComm(mpi)
    _STATE["world"] = ProcessGroup(
        comm, name, seconds, range(mpi.size), errors=errors, meta=mpi if name == "nccl" else None
    )
    if _STATE["excepthook"] is None:
        _STATE["excepthook"] = sys.excepthook
        sys.excepthook = _report_failure


def is_available() -> bool:
    """Whether funcgrad.distributed can run here (always: the engines are imported on demand)."""
    return True


def is_mpi_available() -> bool:
    """Whether mpi4py (and with it an MPI library) can be imported."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def is_nccl_available() -> bool:
    """Whether CuPy's NCCL bindings can be imported."""
    try:
        from cupy.cuda import nccl  # noqa: F401
    except Exception:
        return False
    return True


def is_initialized() -> bool:
    """Whether `init_process_group` has been called (and not undone)."""
    return _STATE["world"] is not None


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank in `group` (default: the world), from 0."""
    return resolve(group).rank


def get_world_size(group: ProcessGroup | None = None) -> int:
    """The number of processes in `group` (default: the world)."""
    return resolve(group).size


def get_backend(group: ProcessGroup | None = None) -> str:
    """The backend of `group`: `"mpi"` or `"nccl"`."""
    return resolve(group).backend


def new_group(ranks: Sequence[int] | None = None, timeout: Any = None, backend: Any = None) -> Any:
    """Make a group of some of the world's ranks (every rank of the world calls it).

    Args:
        ranks: Global ranks of the members (default: all), in group order.
        timeout: The new group's timeout (default: the world's).
        backend: Accepted for PyTorch compatibility; the world's is used.

    Returns:
        The `ProcessGroup` on its members; on the other ranks `None`
        (PyTorch returns a placeholder there, funcgrad says so plainly).
    """
    world = _world()
    members = list(range(world.size)) if ranks is None else sorted({int(r) for r in ranks})
    if not members or members[0] < 0 or members[-1] >= world.size:
        raise ValueError(
            f"funcgrad.distributed.new_group: ranks must be distinct ranks of the world "
            f"(0 .. {world.size - 1}), got {ranks!r}"
        )
    seconds = world.timeout if timeout is None else _seconds(timeout)
    mpi_world = world._meta if world.backend == "nccl" else world.comm
    # every rank takes part in choosing (MPI_Comm_split), members get a communicator
    MPI = _mpi()
    color = 0 if world.rank in members else MPI.UNDEFINED
    sub = mpi_world.comm.Split(color, members.index(world.rank) if color == 0 else 0)
    if sub == MPI.COMM_NULL:
        return None
    mpi = _MpiComm(sub)
    comm: Any = mpi if world.backend == "mpi" else _NcclComm(mpi)
    return ProcessGroup(
        comm,
        world.backend,
        seconds,
        members,
        errors=world._errors,
        meta=mpi if world.backend == "nccl" else None,
    )


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Leave `group` (default: the default group, after which `is_initialized()` is false)."""
    target = resolve(group)
    target.comm.free()
    if group is None or group is _STATE["world"]:
        if target._errors is not None:
            target._errors.Free()
        _STATE["world"] = None
        if _STATE["excepthook"] is not None:
            sys.excepthook = _STATE["excepthook"]
            _STATE["excepthook"] = None


def barrier(group: ProcessGroup | None = None, async_op: bool = False) -> Any:
    """Wait until every rank of `group` has called `barrier` (within the timeout)."""
    g = resolve(group)
    work = Work(g, g.comm.ibarrier(), "barrier")
    return work if async_op else work.wait()


# --- checking that the ranks agree ----------------------------------------------------------------

_META = 12  # int64 entries per rank: operation code, dtype, ndim, shape (up to 9 dims)
_DTYPES = [np.dtype(c) for c in "?bBhHiIlLqQefdgFDG"]


def describe(shape: Sequence[int], dtype: Any) -> str:
    """`float32 (2, 3)`."""
    return f"{np.dtype(dtype)} {tuple(int(s) for s in shape)}"


def check_agree(
    g: ProcessGroup, what: str, code: int, shape: Sequence[int] | None, dtype: Any
) -> None:
    """Raise `CollectiveMismatchError` on every rank unless all ranks pass the same call.

    One small all-gather of (operation, dtype, shape) per call: a rank that
    passes something else makes every rank raise together, listing what
    each passed, instead of a wrong result or a hang. `shape=None`: the rank
    has no tensor for this call (a non-root in `gather`), not compared.
    """
    if g.size == 1:
        return
    row = np.full(_META, -2, dtype=np.int64)
    row[0] = code
    if shape is not None:
        shape = tuple(int(s) for s in shape)
        if len(shape) > _META - 3:
            raise ValueError(
                f"funcgrad.distributed.{what}: at most {_META - 3} dimensions, got {shape}"
            )
        dt = np.dtype(dtype)
        row[1] = next((i for i, d in enumerate(_DTYPES) if d == dt), 99)
        row[2] = len(shape)
        row[3 : 3 + len(shape)] = shape
    else:
        row[1:] = -3
    table = np.empty((g.size, _META), dtype=np.int64)
    meta = g._meta
    work = Work(g, meta.iallgather(row, table), what, comm=meta)
    work.wait()
    present = table[table[:, 1] != -3]
    if len(present) and (present == present[0]).all() and (table[:, 0] == code).all():
        return
    lines = []
    for r, entry in enumerate(table):
        if entry[0] != code:
            lines.append(f"  rank {r}: a different collective (code {entry[0]})")
        elif entry[1] == -3:
            lines.append(f"  rank {r}: no tensor (not compared)")
        else:
            dt = _DTYPES[entry[1]] if entry[1] < len(_DTYPES) else "?"
            lines.append(f"  rank {r}: {describe(entry[3 : 3 + entry[2]], dt)}")
    raise CollectiveMismatchError(
        f"funcgrad.distributed.{what}: the ranks passed different tensors (every rank of a "
        f"collective must pass the same shape and dtype):\n" + "\n".join(lines)
    )


def on_device_of(g: ProcessGroup, a: Any) -> Any:
    """`a` as a contiguous array the group's engine takes (a fresh copy: the engines write).

    NCCL takes CuPy arrays (a NumPy one is copied to the current GPU), MPI
    NumPy arrays (a CuPy one is refused: `DeviceError`); the one process of
    the `self` backend takes both and keeps a CuPy array on its GPU.
    """
    if g.backend == "nccl":
        cupy = g.comm.cupy
        return cupy.array(a, copy=True, order="C")
    if device_of(a) != "cpu" or type(a).__module__.startswith("cupy"):
        if g.backend == "self":
            with on_device(device_of(a)):
                return xp_of(a).array(a, copy=True, order="C")
        raise DeviceError(
            f"funcgrad.distributed: the {g.backend} backend takes CPU values, got a CuPy array "
            f"of shape {tuple(a.shape)}; move it with .cpu(), or use backend='nccl'"
        )
    return np.array(a, copy=True, order="C")


def empty_for(g: ProcessGroup, shape: Sequence[int], dtype: Any, like: Any) -> Any:
    """A receive buffer of `shape` and `dtype` for a collective of `like`, where `g`'s engine takes it.

    NCCL: a CuPy array on the current GPU (the communicator's, where `on_device_of` puts
    the values), allocated there (no host buffer copied over); MPI: a NumPy array;
    `self`: on `like`'s device.
    """
    if g.backend == "nccl":
        return g.comm.cupy.empty(tuple(shape), dtype=dtype)
    if g.backend == "self" and device_of(like) != "cpu":
        with on_device(device_of(like)):
            return xp_of(like).empty(tuple(shape), dtype=dtype)
    return np.empty(tuple(shape), dtype=dtype)


def environment_rank() -> int | None:
    """The rank the launcher gave this process (MPICH, Open MPI, Slurm), without starting MPI."""
    for name in ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID"):
        if name in os.environ:
            return int(os.environ[name])
    return None

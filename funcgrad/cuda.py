"""`funcgrad.cuda` is PyTorch's `torch.cuda`: GPUs through CuPy, and harmless answers without one.

`is_available()` is False without CuPy or without an NVIDIA GPU (it never
raises), so a tutorial that branches on it runs on the CPU. Seeding
(`manual_seed`, `manual_seed_all`, `seed` ...) seeds funcgrad's GPU
generators (`funcgrad.backend.rng`) and, as in PyTorch, does nothing on a
machine without a GPU. `synchronize`, `empty_cache` and the memory counters
are CuPy's (no-ops, or zeros, without a GPU); `Event` and `Stream` wrap
CuPy's, and without a GPU they still work on the host (an event records the
host clock, so `elapsed_time` times CPU code). What needs a GPU to answer
(`current_device`, `get_device_name` ...) raises `funcgrad.errors.DeviceError`
(a `RuntimeError`) without one, as in PyTorch. Mixed precision
(`funcgrad.cuda.amp`) and bfloat16 are not provided. Layer: imperative.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from funcgrad.backend import cuda_available, device_count, require_cuda, rng
from funcgrad.tensors.devices import device as _device_class
from funcgrad.tensors.legacy_types import UnavailableTypeError, cuda_types
from funcgrad.tensors.missing import missing as _missing
from funcgrad.tensors.random import Generator, _state_bytes
from funcgrad.tensors.tensor_class import Tensor, _new_like

# PyTorch's legacy CUDA tensor types (torch.cuda.FloatTensor ...): see funcgrad.tensors.legacy_types
BoolTensor = cuda_types["BoolTensor"]
ByteTensor = cuda_types["ByteTensor"]
CharTensor = cuda_types["CharTensor"]
DoubleTensor = cuda_types["DoubleTensor"]
FloatTensor = cuda_types["FloatTensor"]
HalfTensor = cuda_types["HalfTensor"]
IntTensor = cuda_types["IntTensor"]
LongTensor = cuda_types["LongTensor"]
ShortTensor = cuda_types["ShortTensor"]

__all__ = [
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
    "UnavailableTypeError",
    "Event",
    "Stream",
    "current_device",
    "current_stream",
    "default_stream",
    "device",
    "device_count",
    "device_of",
    "empty_cache",
    "get_device_capability",
    "get_device_name",
    "get_device_properties",
    "get_rng_state",
    "get_rng_state_all",
    "init",
    "initial_seed",
    "ipc_collect",
    "is_available",
    "is_bf16_supported",
    "is_current_stream_capturing",
    "is_initialized",
    "is_tf32_supported",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_reserved",
    "mem_get_info",
    "memory_allocated",
    "memory_reserved",
    "reset_peak_memory_stats",
    "seed",
    "seed_all",
    "set_device",
    "set_rng_state",
    "set_rng_state_all",
    "set_stream",
    "stream",
    "synchronize",
]


def is_available() -> bool:
    """Return whether a GPU can be used: CuPy imports and sees at least one NVIDIA GPU.

    Never raises; the answer is computed once per process.

    Examples:
        >>> import funcgrad as torch
        >>> device = "cuda" if torch.cuda.is_available() else "cpu"
        >>> torch.ones(2, device=device).device.type == device
        True
    """
    return cuda_available()


def is_initialized() -> bool:
    """Return whether funcgrad has used CuPy's GPUs in this process."""
    return "cupy" in sys.modules and cuda_available()


def init() -> None:
    """Initialize CUDA (import CuPy and find the GPUs).

    Raises:
        funcgrad.errors.DeviceError: Without CuPy or a GPU.
    """
    require_cuda("funcgrad.cuda.init")


def _cupy(what: str) -> Any:
    return require_cuda(f"funcgrad.cuda.{what}")


def _index(device: Any, what: str) -> int:
    """The GPU number of `device` (None: the current GPU); raises without a GPU."""
    cupy = _cupy(what)
    if device is None:
        return int(cupy.cuda.runtime.getDevice())
    if isinstance(device, int) and not isinstance(device, bool):
        index = device
    else:
        d = _device_class(device) if not isinstance(device, _device_class) else device
        if d.type != "cuda":
            raise ValueError(f"funcgrad.cuda.{what}: expected a cuda device, but got: {d}")
        index = d.index if d.index is not None else int(cupy.cuda.runtime.getDevice())
    require_cuda(f"funcgrad.cuda.{what}", index)
    return index


def current_device() -> int:
    """Return the index of the current GPU.

    Raises:
        funcgrad.errors.DeviceError: Without CuPy or a GPU.
    """
    return _index(None, "current_device")


def set_device(device) -> None:
    """Make `device` (an index, `'cuda:N'` or a `funcgrad.device`) the current GPU.

    A negative index or None does nothing, as in PyTorch.
    """
    if device is None or (isinstance(device, int) and device < 0):
        return
    _cupy("set_device").cuda.runtime.setDevice(_index(device, "set_device"))


class device:  # noqa: N801  (PyTorch's name)
    """Context manager that makes a GPU current inside the block (`with funcgrad.cuda.device(1):`).

    None or a negative index does nothing, as in PyTorch.
    """

    def __init__(self, device):
        self.idx = -1 if device is None else _gpu_index_or_minus_one(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx >= 0:
            self.prev_idx = current_device()
            if self.prev_idx != self.idx:
                set_device(self.idx)
        return self

    def __exit__(self, *exc) -> None:
        if self.idx >= 0 and self.prev_idx != self.idx:
            set_device(self.prev_idx)


def _gpu_index_or_minus_one(d) -> int:
    if isinstance(d, int):
        return d
    d = d if isinstance(d, _device_class) else _device_class(d)
    if d.type != "cuda":
        return -1
    return d.index if d.index is not None else current_device()


class device_of(device):  # noqa: N801  (PyTorch's name)
    """Context manager that makes the GPU of tensor `obj` current (nothing for a CPU tensor)."""

    def __init__(self, obj):
        d = obj.device
        super().__init__(d.index if d.type == "cuda" and d.index is not None else -1)


# --- synchronizing, memory ----------------------------------------------------------------------


def synchronize(device=None) -> None:
    """Wait for the work queued on a GPU (the current one) to finish; nothing without a GPU."""
    if not cuda_available():
        return
    cupy = _cupy("synchronize")
    with cupy.cuda.Device(_index(device, "synchronize")) as d:
        d.synchronize()


def empty_cache() -> None:
    """Give CuPy's cached, unused GPU memory back to the driver; nothing without a GPU."""
    if "cupy" in sys.modules and cuda_available():
        cupy = sys.modules["cupy"]
        cupy.get_default_memory_pool().free_all_blocks()
        cupy.get_default_pinned_memory_pool().free_all_blocks()


def ipc_collect() -> None:
    """Nothing to collect: funcgrad shares no GPU memory between processes."""


_peak: dict[int, int] = {}


def memory_allocated(device=None) -> int:
    """Return the bytes of GPU memory held by arrays (CuPy's memory pool; 0 without a GPU)."""
    if not ("cupy" in sys.modules and cuda_available()):
        return 0
    cupy = sys.modules["cupy"]
    index = _index(device, "memory_allocated")
    with cupy.cuda.Device(index):
        used = int(cupy.get_default_memory_pool().used_bytes())
    _peak[index] = max(_peak.get(index, 0), used)
    return used


def max_memory_allocated(device=None) -> int:
    """Return the most GPU memory held by arrays that `memory_allocated` has seen (0 without a GPU)."""
    used = memory_allocated(device)
    if not used and not cuda_available():
        return 0
    return _peak.get(_index(device, "max_memory_allocated"), used)


def memory_reserved(device=None) -> int:
    """Return the bytes of GPU memory CuPy's memory pool holds, used or cached (0 without a GPU)."""
    if not ("cupy" in sys.modules and cuda_available()):
        return 0
    cupy = sys.modules["cupy"]
    with cupy.cuda.Device(_index(device, "memory_reserved")):
        return int(cupy.get_default_memory_pool().total_bytes())


def max_memory_reserved(device=None) -> int:
    """Return `memory_reserved` (CuPy keeps no peak of its pool)."""
    return memory_reserved(device)


def reset_peak_memory_stats(device=None) -> None:
    """Start `max_memory_allocated` again from the memory held now."""
    if cuda_available():
        _peak.pop(_index(device, "reset_peak_memory_stats"), None)


def mem_get_info(device=None) -> tuple[int, int]:
    """Return the free and total bytes of the GPU's memory.

    Raises:
        funcgrad.errors.DeviceError: Without CuPy or a GPU.
    """
    cupy = _cupy("mem_get_info")
    with cupy.cuda.Device(_index(device, "mem_get_info")):
        free, total = cupy.cuda.runtime.memGetInfo()
    return int(free), int(total)


# --- what the GPU is ------------------------------------------------------------------------------


class _DeviceProperties:
    """What `get_device_properties` returns: `name`, `total_memory`, `major`, `minor` ..."""

    def __init__(self, props: dict):
        def text(v):
            return v.decode() if isinstance(v, bytes) else str(v)

        self.name = text(props.get("name", ""))
        self.total_memory = int(props.get("totalGlobalMem", 0))
        self.major = int(props.get("major", 0))
        self.minor = int(props.get("minor", 0))
        self.multi_processor_count = int(props.get("multiProcessorCount", 0))
        self.is_integrated = bool(props.get("integrated", 0))
        self.is_multi_gpu_board = bool(props.get("isMultiGpuBoard", 0))

    def __repr__(self) -> str:
        return (
            f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
            f"total_memory={self.total_memory // 2**20}MB, "
            f"multi_processor_count={self.multi_processor_count})"
        )


def get_device_properties(device=None) -> _DeviceProperties:
    """Return the properties of a GPU (`name`, `total_memory`, `major`, `minor` ...).

    Raises:
        funcgrad.errors.DeviceError: Without CuPy or a GPU.
    """
    cupy = _cupy("get_device_properties")
    return _DeviceProperties(
        cupy.cuda.runtime.getDeviceProperties(_index(device, "get_device_properties"))
    )


def get_device_name(device=None) -> str:
    """Return the name of a GPU (the current one).

    Raises:
        funcgrad.errors.DeviceError: Without CuPy or a GPU.
    """
    return get_device_properties(device).name


def get_device_capability(device=None) -> tuple[int, int]:
    """Return the CUDA compute capability of a GPU as `(major, minor)`.

    Raises:
        funcgrad.errors.DeviceError: Without CuPy or a GPU.
    """
    props = get_device_properties(device)
    return props.major, props.minor


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Return False: funcgrad has no bfloat16 (NumPy has no such dtype).

    Examples:
        >>> import funcgrad as torch
        >>> torch.cuda.is_bf16_supported()
        False
    """
    return False


def is_tf32_supported() -> bool:
    """Return False: funcgrad computes float32 in float32 (no TF32 matmuls)."""
    return False


def is_current_stream_capturing() -> bool:
    """Return False: funcgrad does not capture CUDA graphs."""
    return False


# --- random numbers ------------------------------------------------------------------------------


def _sources(all_gpus: bool) -> list[rng.Source]:
    """The default sources of the current GPU (or of every GPU); none without a GPU."""
    if not cuda_available():
        return []
    indices = range(device_count()) if all_gpus else [current_device()]
    return [rng.default(f"cuda:{i}") for i in indices]


def manual_seed(seed) -> None:
    """Seed the current GPU's default generator; nothing without a GPU (as in PyTorch)."""
    value = rng.check_seed(seed, "funcgrad.cuda.manual_seed")
    for source in _sources(all_gpus=False):
        source.reseed(value)


def manual_seed_all(seed) -> None:
    """Seed every GPU's default generator; nothing without a GPU (as in PyTorch)."""
    value = rng.check_seed(seed, "funcgrad.cuda.manual_seed_all")
    for source in _sources(all_gpus=True):
        source.reseed(value)


def seed() -> None:
    """Seed the current GPU's default generator from fresh entropy (nothing without a GPU)."""
    for source in _sources(all_gpus=False):
        source.reseed(rng.fresh_seed())


def seed_all() -> None:
    """Seed every GPU's default generator from one fresh seed (nothing without a GPU)."""
    value = rng.fresh_seed()
    for source in _sources(all_gpus=True):
        source.reseed(value)


def initial_seed() -> int:
    """Return the seed of the current GPU's default generator.

    Raises:
        funcgrad.errors.DeviceError: Without CuPy or a GPU.
    """
    return rng.default(f"cuda:{current_device()}").initial_seed


def get_rng_state(device="cuda") -> Tensor:
    """Return the state of a GPU's default generator as a uint8 tensor (see `funcgrad.Generator`)."""
    index = _index(device, "get_rng_state")
    state = rng.default(f"cuda:{index}").get_state()
    return _new_like(Tensor, np.frombuffer(state, np.uint8).copy(), None)


def set_rng_state(new_state, device="cuda") -> None:
    """Set the state of a GPU's default generator (a uint8 tensor from `get_rng_state`)."""
    index = _index(device, "set_rng_state")
    rng.default(f"cuda:{index}").set_state(_state_bytes(new_state, "funcgrad.cuda.set_rng_state"))


def get_rng_state_all() -> list[Tensor]:
    """Return the states of every GPU's default generator (an empty list without a GPU)."""
    return [get_rng_state(i) for i in range(device_count())] if cuda_available() else []


def set_rng_state_all(new_states) -> None:
    """Set the states of every GPU's default generator (from `get_rng_state_all`)."""
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


def _default_generators() -> tuple[Generator, ...]:
    if not cuda_available():
        return ()
    return tuple(Generator._of(rng.default(f"cuda:{i}")) for i in range(device_count()))


# --- events and streams -------------------------------------------------------------------------


class Event:
    """A CUDA event (CuPy's), for timing GPU work; on the host clock without a GPU.

    Examples:
        >>> import funcgrad as torch
        >>> start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        >>> start.record()
        >>> _ = torch.ones(100).sum()
        >>> end.record()
        >>> torch.cuda.synchronize()
        >>> start.elapsed_time(end) >= 0.0
        True
    """

    def __init__(
        self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False
    ):
        self.enable_timing = enable_timing
        self._event = None
        self._time: float | None = None
        if cuda_available():
            cupy = _cupy("Event")
            self._event = cupy.cuda.Event(
                block=blocking, disable_timing=not enable_timing, interprocess=interprocess
            )

    def record(self, stream: Stream | None = None) -> None:
        """Record the event on `stream` (the current stream)."""
        if self._event is not None:
            self._event.record(None if stream is None else stream._stream)
        self._time = time.perf_counter()

    def synchronize(self) -> None:
        """Wait until the work before the event has finished."""
        if self._event is not None:
            self._event.synchronize()

    def query(self) -> bool:
        """Return whether the work before the event has finished."""
        return True if self._event is None else bool(self._event.done)

    def wait(self, stream: Stream | None = None) -> None:
        """Make `stream` (the current stream) wait for the event."""
        if self._event is not None:
            target = current_stream() if stream is None else stream
            if target._stream is not None:
                target._stream.wait_event(self._event)

    def elapsed_time(self, end_event: Event) -> float:
        """Return the milliseconds between this event and `end_event` (both recorded).

        Raises:
            RuntimeError: If an event was made without `enable_timing=True` or
                not recorded.
        """
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError(
                "funcgrad.cuda.Event.elapsed_time: both events must be created with "
                "enable_timing=True"
            )
        if self._time is None or end_event._time is None:
            raise RuntimeError(
                "funcgrad.cuda.Event.elapsed_time: both events must be recorded before "
                "calculating elapsed time"
            )
        if self._event is not None and end_event._event is not None:
            cupy = sys.modules["cupy"]
            return float(cupy.cuda.get_elapsed_time(self._event, end_event._event))
        return (end_event._time - self._time) * 1000.0


class Stream:
    """A CUDA stream (CuPy's); a stand-in that orders nothing without a GPU.

    Use it with `funcgrad.cuda.stream(s)` or `with s:` to queue GPU work on it.
    """

    def __init__(self, device=None, priority: int = 0, **kwargs):
        self._stream = None
        self.device: _device_class | None = (
            _device_class("cuda", 0) if device is None else _device_class(device)
        )
        if cuda_available():
            cupy = _cupy("Stream")
            with cupy.cuda.Device(_index(device, "Stream")):
                self._stream = cupy.cuda.Stream(non_blocking=True)
            self.device = _device_class("cuda", _index(device, "Stream"))
        self.priority = priority

    @classmethod
    def _wrap(cls, cupy_stream: Any) -> Stream:
        s = object.__new__(cls)
        s._stream = cupy_stream
        s.device = _device_class("cuda", int(cupy_stream.device_id)) if cupy_stream else None
        s.priority = 0
        return s

    def synchronize(self) -> None:
        """Wait until the work queued on the stream has finished."""
        if self._stream is not None:
            self._stream.synchronize()

    def query(self) -> bool:
        """Return whether the work queued on the stream has finished."""
        return True if self._stream is None else bool(self._stream.done)

    def wait_event(self, event: Event) -> None:
        """Make the stream wait for `event`."""
        if self._stream is not None and event._event is not None:
            self._stream.wait_event(event._event)

    def wait_stream(self, stream: Stream) -> None:
        """Make the stream wait for the work queued on `stream` so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event: Event | None = None) -> Event:
        """Record `event` (a new one) on the stream and return it."""
        event = Event() if event is None else event
        event.record(self)
        return event

    def __enter__(self) -> Stream:
        if self._stream is not None:
            self._stream.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._stream is not None:
            self._stream.__exit__(*exc)

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and self._stream is other._stream

    def __hash__(self) -> int:
        return hash(id(self._stream))


def current_stream(device=None) -> Stream:
    """Return the current stream of a GPU (a stand-in without a GPU)."""
    if not cuda_available():
        return Stream._wrap(None)
    cupy = _cupy("current_stream")
    with cupy.cuda.Device(_index(device, "current_stream")):
        return Stream._wrap(cupy.cuda.get_current_stream())


def default_stream(device=None) -> Stream:
    """Return the default (null) stream of a GPU (a stand-in without a GPU)."""
    if not cuda_available():
        return Stream._wrap(None)
    cupy = _cupy("default_stream")
    with cupy.cuda.Device(_index(device, "default_stream")):
        return Stream._wrap(cupy.cuda.Stream.null)


def set_stream(stream: Stream) -> None:
    """Make `stream` the current stream of its GPU."""
    if stream is not None and stream._stream is not None:
        stream._stream.use()


@contextlib.contextmanager
def stream(stream: Stream | None) -> Iterator[None]:
    """Queue the GPU work of the block on `stream` (None: nothing changes)."""
    if stream is None or stream._stream is None:
        yield
        return
    with stream._stream:
        yield


def __getattr__(name: str) -> Any:
    if name == "default_generators":
        return _default_generators()
    raise _missing("torch.cuda", name, "funcgrad.cuda")

"""`funcgrad.profiler` is PyTorch's `torch.profiler`: the modern profiler API over funcgrad's own.

`profile(activities=[ProfilerActivity.CPU], record_shapes=True)` records,
while it is open (or in the steps its `schedule` makes active), what
`funcgrad.autograd.profiler.profile` records: one event per primitive
application, per backward node and per `record_function` range, with CPU
time (and CUDA time for CuPy operations when `ProfilerActivity.CUDA` is
asked for). `key_averages().table(sort_by=..., row_limit=...)`,
`events()`, `export_chrome_trace(path)`, `step()` and `on_trace_ready`
(`tensorboard_trace_handler`) work as in PyTorch. Memory, FLOPs, stacks
and modules are not recorded: asking for them raises `NotImplementedError`.
Layer: imperative.
"""

from __future__ import annotations

import enum
import gzip
import os
import socket
import time
from collections.abc import Callable, Iterable
from typing import Any

from funcgrad.autograd import profiler as _autograd_profiler
from funcgrad.autograd.profiler import record_function
from funcgrad.backend import cuda_available
from funcgrad.tensors.missing import module_getattr as _module_getattr

__all__ = [
    "ProfilerAction",
    "ProfilerActivity",
    "kineto_available",
    "profile",
    "record_function",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]


class ProfilerActivity(enum.Enum):
    """What a profile records: `CPU` (every operation) and `CUDA` (GPU time of CuPy operations)."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What a profile does at a step: nothing, warm up, record, or record and hand the trace on."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(
    *,
    wait: int,
    warmup: int,
    active: int,
    repeat: int = 0,
    skip_first: int = 0,
    skip_first_wait: int = 0,
) -> Callable[[int], ProfilerAction]:
    """Return PyTorch's profiling schedule: per step, what the profile does.

    After `skip_first` steps, cycles of `wait` idle steps, `warmup` steps and
    `active` recorded steps (the last one `RECORD_AND_SAVE`), `repeat` times
    (0: for ever).

    Examples:
        >>> from funcgrad.profiler import schedule
        >>> s = schedule(wait=1, warmup=1, active=2)
        >>> [s(i).name for i in range(5)]
        ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE', 'NONE']
    """
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise ValueError(
            "funcgrad.profiler.schedule: wait, warmup, repeat and skip_first are >= 0 and "
            "active is > 0"
        )

    def schedule_fn(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        waiting = 0 if skip_first_wait and step < wait + warmup + active else wait
        if skip_first_wait:
            step += wait - waiting if step >= wait + warmup + active else 0
        span = wait + warmup + active
        if repeat > 0 and step // span >= repeat:
            return ProfilerAction.NONE
        at = step % span
        if at < wait:
            return ProfilerAction.NONE
        if at < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if at < span - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _always_record(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


class profile:  # noqa: N801  (PyTorch's name)
    """Record what runs in the block (or in the active steps of `schedule`), as `torch.profiler.profile`.

    Args:
        activities: `ProfilerActivity.CPU` and/or `ProfilerActivity.CUDA`
            (default: both where a GPU is there).
        schedule: From `funcgrad.profiler.schedule`; `prof.step()` moves it on.
            Without one, the whole block is recorded.
        on_trace_ready: Called with the profile when a recorded span ends
            (`tensorboard_trace_handler(dir)` writes it as a trace file).
        record_shapes: Record the shapes of each operation's arguments.

    `profile_memory`, `with_stack`, `with_flops` and `with_modules` are not
    implemented: anything but False raises `NotImplementedError`.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.profiler import ProfilerActivity, profile, record_function
        >>> x = torch.randn(3, requires_grad=True)
        >>> with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        ...     with record_function("model_inference"):
        ...         (x * x).sum().backward()
        >>> "model_inference" in prof.key_averages().table(sort_by="cpu_time_total")
        True
    """

    def __init__(
        self,
        *,
        activities: Iterable[ProfilerActivity] | None = None,
        schedule: Callable[[int], ProfilerAction] | None = None,
        on_trace_ready: Callable[[profile], Any] | None = None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_flops: bool = False,
        with_modules: bool = False,
        experimental_config: Any = None,
        execution_trace_observer: Any = None,
        acc_events: bool = False,
        use_cuda: bool | None = None,
        custom_trace_id_callback: Callable[[], str] | None = None,
        post_processing_timeout_s: float | None = None,
    ):
        self.activities = set(activities) if activities is not None else supported_activities()
        unsupported = self.activities - {ProfilerActivity.CPU, ProfilerActivity.CUDA}
        if unsupported:
            raise NotImplementedError(
                f"funcgrad.profiler.profile: activities {sorted(a.name for a in unsupported)} "
                f"are not supported; funcgrad profiles the CPU and CUDA (CuPy) only"
            )
        if execution_trace_observer is not None:
            raise NotImplementedError(
                "funcgrad.profiler.profile: execution_trace_observer is not implemented"
            )
        self.record_cuda = ProfilerActivity.CUDA in self.activities or bool(use_cuda)
        self.options = {
            "record_shapes": record_shapes,
            "profile_memory": profile_memory,
            "with_stack": with_stack,
            "with_flops": with_flops,
            "with_modules": with_modules,
            "experimental_config": experimental_config,
            "acc_events": acc_events,
            "custom_trace_id_callback": custom_trace_id_callback,
            "post_processing_timeout_s": post_processing_timeout_s,
        }
        self._new_recording()  # checks the options now, as PyTorch does
        self.schedule = schedule if schedule is not None else _always_record
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = ProfilerAction.NONE
        self.profiler: _autograd_profiler.profile | None = None  # the recording now, or the last
        self._recording = False

    def _new_recording(self) -> _autograd_profiler.profile:
        return _autograd_profiler.profile(use_cuda=self.record_cuda, **self.options)

    # --- starting, stepping, stopping -----------------------------------------------------

    def start(self) -> None:
        """Start profiling (what entering the `with` block does)."""
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self._apply(ProfilerAction.NONE, self.current_action)

    def stop(self) -> None:
        """Stop profiling (what leaving the `with` block does); a recording span ends here."""
        if self._recording:
            self._end_recording()
        self.current_action = ProfilerAction.NONE

    def step(self) -> None:
        """Tell the profile that a step (an iteration of training, say) has ended."""
        before = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._apply(before, self.current_action)

    def _apply(self, before: ProfilerAction, now: ProfilerAction) -> None:
        # a recorded span ends after RECORD_AND_SAVE (a cycle of the schedule), or when the
        # schedule stops recording; either way its trace is ready
        if self._recording and (before == ProfilerAction.RECORD_AND_SAVE or now not in _RECORDING):
            self._end_recording()
        if now in _RECORDING and not self._recording:
            self.profiler = self._new_recording()
            self.profiler.__enter__()
            self._recording = True

    def _end_recording(self) -> None:
        assert self.profiler is not None
        self.profiler.__exit__(None, None, None)
        self._recording = False
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # --- results ---------------------------------------------------------------------------

    def _results(self) -> _autograd_profiler.profile:
        if self.profiler is None or self._recording:
            raise RuntimeError(
                "funcgrad.profiler.profile: no finished recording; read the results after the "
                "with block (or in on_trace_ready), once a recorded step has ended"
            )
        return self.profiler

    def events(self):
        """Return every event of the last recording (an `EventList`)."""
        return self._results().function_events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0):
        """Add up the events of the last recording by name; `.table(sort_by=, row_limit=)` prints them."""
        return self._results().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path: str) -> None:
        """Write the last recording as a Chrome trace (`chrome://tracing`, Perfetto)."""
        self._results().export_chrome_trace(path)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        """Not implemented: funcgrad records no stacks (`with_stack`)."""
        raise NotImplementedError("funcgrad.profiler.profile.export_stacks: no stacks are recorded")


def tensorboard_trace_handler(
    dir_name: str, worker_name: str | None = None, use_gzip: bool = False
) -> Callable[[profile], None]:
    """Return an `on_trace_ready` that writes each recording as a trace file in `dir_name`.

    The file is `{worker_name}.{milliseconds}.pt.trace.json` (`.gz` with
    `use_gzip`), as PyTorch names it, so TensorBoard's profiler plugin and
    Perfetto find it. Two recordings within one millisecond get consecutive
    stamps instead of one overwriting the other.
    """

    def handler(prof: profile) -> None:
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        stamp = int(time.time() * 1000)
        path = os.path.join(dir_name, f"{name}.{stamp}.pt.trace.json")
        while os.path.exists(path) or os.path.exists(path + ".gz"):
            stamp += 1  # two recordings in one millisecond: the later one takes the next
            path = os.path.join(dir_name, f"{name}.{stamp}.pt.trace.json")
        prof.export_chrome_trace(path)
        if use_gzip:
            with open(path, "rb") as f:
                data = f.read()
            with gzip.open(path + ".gz", "wb") as f:
                f.write(data)
            os.remove(path)

    return handler


def supported_activities() -> set[ProfilerActivity]:
    """Return the activities funcgrad can profile here: CPU, and CUDA where a GPU is there."""
    found = {ProfilerActivity.CPU}
    if cuda_available():
        found.add(ProfilerActivity.CUDA)
    return found


def kineto_available() -> bool:
    """Return False: funcgrad's profiler is its own, not PyTorch's Kineto."""
    return False


__getattr__ = _module_getattr("torch.profiler", "funcgrad.profiler")

"""`funcgrad.autograd.profiler`: time every primitive and every backward node, as PyTorch's profiler does.

While a `profile` (or `emit_nvtx`) is open, the thread that opened it
observes its own computation through `funcgrad.ops.observe`: every
primitive application runs inside the observer's `call`, and every node of
a backward walk between its `before_vjp` and `after_vjp`. Nothing is
patched: `Primitive` keeps its methods, other threads run exactly as
without a profile, and when the last profile closes the hot path is back to
testing one counter (`funcgrad.ops.observe.active`).

What is recorded:

* one event per primitive application (`multiply`, `sin`, `sum`, ...),
  named like the registry;
* one event per node visited by a backward walk, named like its `grad_fn`
  (`MulBackward0`; the name comes from
  `funcgrad.tensors.grad_fn.BackwardFunction.name`);
* one event per `record_function` range.

Events nest: a primitive that a VJP rule calls (the `power` in the rule of
`power`, the `sum` that unbroadcasts a cotangent) is recorded as its own
event under its own name, as a child of the backward event that ran it, so
it counts in that backward event's total time but not in its self time.
This is what PyTorch does (`aten::mul` under `PowBackward0`), and it means
that `key_averages()` counts such calls together with the forward calls of
the same primitive. Each event's `category` tells them apart: `"forward"`
for a primitive run outside any backward walk, `"backward"` for a backward
node and for every primitive run inside one, `"user_annotation"` for a
`record_function` range.

Threads: a profile records the thread that opened it and no other; each
thread has its own profiles and its own stack of open events, and a thread
started inside a profile is not recorded unless it opens one itself. This
is PyTorch's rule too ("profiler is thread local", in the docstring of
`torch.autograd.profiler.profile`; with torch 2.13, the operations another
thread runs while a profile is open are in neither
`torch.autograd.profiler.profile` nor `torch.profiler.profile`). PyTorch
also follows the work it hands to its own threads (the autograd engine's
workers, `torch.jit.fork` tasks); funcgrad runs a backward pass in the
calling thread, so there is nothing to follow.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import sys
import threading
import time
import warnings
from types import FrameType
from typing import Any

from funcgrad.graph import Node
from funcgrad.ops.observe import observing
from funcgrad.tensors.grad_fn import grad_fn_of

_now = time.perf_counter_ns


# --- per-thread state, which is also the thread's observer -------------------


class _State:
    """What one thread records into: its open profiles and its open events.

    While one of its profiles (or `emit_nvtx` blocks) is open, the state is
    registered as the thread's observer (`funcgrad.ops.observe.observing`)
    and times what the thread computes.
    """

    __slots__ = ("profiles", "nvtx", "stack", "active", "record_shapes", "use_cuda", "_observing")

    def __init__(self) -> None:
        self.profiles: list[profile] = []
        self.nvtx: list[emit_nvtx] = []
        self.stack: list[FunctionEvent] = []
        self.active = 0  # len(profiles) + len(nvtx)
        self.record_shapes = False
        self.use_cuda = False
        self._observing: observing | None = None

    def refresh(self) -> None:
        """Observe while something is open, stop when the last one closes."""
        active = len(self.profiles) + len(self.nvtx)
        if active and self._observing is None:
            self._observing = observing(self)
            self._observing.__enter__()
        elif not active and self._observing is not None:
            self._observing.__exit__(None, None, None)
            self._observing = None
        self.active = active
        self.record_shapes = any(p.record_shapes for p in self.profiles) or any(
            n.record_shapes for n in self.nvtx
        )
        self.use_cuda = any(p.use_cuda for p in self.profiles)

    # The observer protocol of funcgrad.ops.observe (called in this thread only).

    def call(self, prim, args, params, run):
        event = _begin(self, prim.name, "forward", args, None)
        try:
            return run()
        finally:
            _end(self, event)

    def before_vjp(self, node):
        # The event stays open while the walk's frame runs (see _close_dangling).
        # Skip comprehension frames (Python < 3.12) to reach the walk's own.
        frame = sys._getframe(1)
        while frame.f_code.co_name.startswith("<") and frame.f_back is not None:
            frame = frame.f_back
        return _begin(self, _backward_name(node), "backward", (node,), frame)

    def cotangent(self, node, input_index, ct):
        pass

    def after_vjp(self, node, token):
        _end(self, token)


class _Local(threading.local):
    def __init__(self):
        self.state = _State()


_local = _Local()


def _backward_name(node: Node) -> str:
    # NOTE: per node, not cached per primitive: the name can depend on the
    # operands (matmul is MmBackward0, MvBackward0 or DotBackward0 by ranks).
    return grad_fn_of(node).name()


# --- events -----------------------------------------------------------------

_event_ids = iter(range(1 << 62))


def _shape_of(a) -> list:
    shape = getattr(a, "shape", None)
    return [] if shape is None else [int(n) for n in shape]


def _gpu_module(values):
    """Return `(cupy, GPU number)` if one of `values` (arrays or nodes) is a CuPy array, else None."""
    cp = sys.modules.get("cupy")
    if cp is None:
        return None
    nd = cp.ndarray
    for v in values:
        v = v.value if type(v) is Node else v
        if isinstance(v, nd):
            return cp, v.device.id
    return None


def _begin(state: _State, name: str, category: str, args, frame):
    """Open an event in the thread's open profiles (and an NVTX range if asked)."""
    stack = state.stack
    if stack and stack[-1]._frame is not None:
        _close_dangling(stack)
    ev = FunctionEvent(name, category)
    ev.thread = threading.get_ident()
    ev._frame = frame
    if state.record_shapes and args is not None:
        ev.input_shapes = [_shape_of(a) for a in args]
    if state.nvtx:
        _nvtx_push(ev, state)
    if state.use_cuda and args is not None:
        gpu = _gpu_module(args)
        if gpu is not None:
            # NOTE: events belong to a GPU: made and recorded on the values' one
            # (checked by tests/gpu/test_profiler_on_device.py).
            cp, index = gpu
            with cp.cuda.Device(index):
                ev._cuda = [cp.cuda.Event(), None, index]
                ev._cuda[0].record()
    if stack:
        parent = stack[-1]
        ev.cpu_parent = parent
        parent.cpu_children.append(ev)
        if category == "forward":
            # A primitive run by a VJP rule belongs to the backward pass.
            up: FunctionEvent | None = parent
            while up is not None and up.category != "backward":
                up = up.cpu_parent
            if up is not None:
                ev.category = "backward"
    stack.append(ev)
    for prof in state.profiles:
        prof._events.append(ev)
    ev.start_ns = _now()
    return ev


def _end(state: _State, ev: FunctionEvent) -> None:
    ev.end_ns = _now()
    ev._frame = None
    if ev._cuda is not None:
        import cupy

        with cupy.cuda.Device(ev._cuda[2]):
            ev._cuda[1] = cupy.cuda.Event()
            ev._cuda[1].record()
    stack = state.stack
    if ev in stack:
        # Anything opened after `ev` and still open was left by an exception.
        while stack:
            top = stack.pop()
            if top is ev:
                break
            _abandon(top)
    if ev._nvtx:
        _nvtx_pop(ev)


def _close_dangling(stack: list) -> None:
    """Close backward events whose walk has ended without closing them.

    A backward walk that raises (a VJP rule failing, anomaly detection
    finding a NaN) never calls `after_vjp`. Such an event is recognised by
    its walk's frame no longer being on the call stack.
    """
    while stack and stack[-1]._frame is not None and not _running(stack[-1]._frame):
        _abandon(stack.pop())


def _running(frame) -> bool:
    f: FrameType | None = sys._getframe(2)
    while f is not None:
        if f is frame:
            return True
        f = f.f_back
    return False


def _abandon(ev: FunctionEvent) -> None:
    """End an event that was never closed: at its last child's end, marked unfinished."""
    ev._frame = None
    ev.unfinished = True
    if ev.end_ns is None:
        ends = [c.end_ns for c in ev.cpu_children if c.end_ns is not None]
        ev.end_ns = max(ends) if ends else ev.start_ns
    if ev._nvtx:
        _nvtx_pop(ev)


class FunctionEvent:
    """One timed range: a primitive application, a backward node or a user range.

    Times are in microseconds, as in PyTorch.

    Attributes:
        id: A number unique within the process.
        name: The primitive's name (`"multiply"`), the backward node's
            `grad_fn` name (`"MulBackward0"`) or the `record_function`
            name.
        category: `"forward"` (a primitive application), `"backward"` (a
            node of a backward walk, or a primitive its VJP rule ran) or
            `"user_annotation"` (a `record_function` range).
        thread: The identifier of the thread that ran it.
        input_shapes: The shapes of the arguments (`[]` for a Python number)
            when the profile records shapes, else None; a backward event
            lists the shape of the cotangent it receives.
        cpu_parent: The event this one ran inside, or None.
        cpu_children: The events that ran directly inside this one.
        unfinished: True if the range never closed (an exception left it);
            it is then taken to end with its last child.

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.ones(2, requires_grad=True)
        >>> with torch.autograd.profiler.profile() as prof:
        ...     y = x * x
        >>> ev = prof.function_events[0]
        >>> ev.name, ev.category, ev.count, ev.cpu_time_total > 0
        ('multiply', 'forward', 1, True)
    """

    __slots__ = (
        "id",
        "name",
        "category",
        "thread",
        "input_shapes",
        "cpu_parent",
        "cpu_children",
        "start_ns",
        "end_ns",
        "unfinished",
        "_frame",
        "_cuda",
        "_cuda_us",
        "_nvtx",
    )

    def __init__(self, name: str, category: str):
        self.id = next(_event_ids)
        self.name = name
        self.category = category
        self.thread = 0
        self.input_shapes: list[list[int]] | None = None
        self.cpu_parent: FunctionEvent | None = None
        self.cpu_children: list[FunctionEvent] = []
        self.start_ns = 0
        self.end_ns: int | None = None
        self.unfinished = False
        self._frame: FrameType | None = None  # a backward event's walk frame, while open
        self._cuda: list[Any] | None = None  # [start event, end event, GPU number]
        self._cuda_us = 0.0
        self._nvtx = False

    @property
    def key(self) -> str:
        """What `key_averages` groups by: the name."""
        return self.name

    @property
    def count(self) -> int:
        """Always 1 (an averaged row counts its events)."""
        return 1

    @property
    def time_range(self) -> tuple[float, float]:
        """Start and end in microseconds of `time.perf_counter_ns`'s clock."""
        end = self.end_ns if self.end_ns is not None else self.start_ns
        return self.start_ns / 1000.0, end / 1000.0

    @property
    def cpu_time_total(self) -> float:
        """Wall time from start to end, children included (µs)."""
        end = self.end_ns if self.end_ns is not None else self.start_ns
        return (end - self.start_ns) / 1000.0

    @property
    def self_cpu_time_total(self) -> float:
        """`cpu_time_total` less that of the direct children (µs)."""
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self) -> float:
        """Average CPU time per call: `cpu_time_total` for one event (µs)."""
        return self.cpu_time_total

    @property
    def cuda_time_total(self) -> float:
        """GPU time measured by CUDA events (µs); 0 unless the values are CuPy arrays."""
        _resolve_cuda(self)
        return self._cuda_us

    @property
    def self_cuda_time_total(self) -> float:
        """`cuda_time_total` less that of the direct children (µs)."""
        return max(self.cuda_time_total - sum(c.cuda_time_total for c in self.cpu_children), 0.0)

    @property
    def cuda_time(self) -> float:
        """Average GPU time per call: `cuda_time_total` for one event (µs)."""
        return self.cuda_time_total

    device_time_total = cuda_time_total
    self_device_time_total = self_cuda_time_total
    device_time = cuda_time

    def __repr__(self) -> str:
        return (
            f"<FunctionEvent id={self.id} name={self.name} category={self.category} "
            f"cpu_time={_format_time(self.cpu_time_total)} "
            f"self_cpu_time={_format_time(self.self_cpu_time_total)} "
            f"cuda_time={_format_time(self.cuda_time_total)} "
            f"input_shapes={self.input_shapes}>"
        )


def _resolve_cuda(ev: FunctionEvent) -> None:
    """Turn a pair of CUDA events into microseconds (once; drops the events)."""
    pair = ev._cuda
    if pair is None or pair[1] is None:
        return
    import cupy

    pair[1].synchronize()
    ev._cuda_us = float(cupy.cuda.get_elapsed_time(pair[0], pair[1])) * 1000.0
    ev._cuda = None


class FunctionEventAvg:
    """The events of one name (and shapes) added up: a row of `key_averages()`.

    Attributes:
        key: The name.
        count: How many events were added.
        input_shapes: The shapes grouped by (with `group_by_input_shape`),
            else None.
        cpu_time_total: Sum over the events (µs).
        self_cpu_time_total: Sum over the events (µs).
        cuda_time_total: Sum over the events (µs).
        self_cuda_time_total: Sum over the events (µs).

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.ones(2, requires_grad=True)
        >>> with torch.autograd.profiler.profile() as prof:
        ...     y = x * x * x
        >>> row = prof.key_averages()[0]
        >>> row.key, row.count
        ('multiply', 2)
    """

    def __init__(self, key: str, input_shapes=None):
        self.key = key
        self.input_shapes = input_shapes
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cuda_time_total = 0.0
        self.self_cuda_time_total = 0.0

    @property
    def name(self) -> str:
        """The same as `key`."""
        return self.key

    def add(self, other) -> FunctionEventAvg:
        """Add an event (or another average) to this row; return the row."""
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cuda_time_total += other.cuda_time_total
        self.self_cuda_time_total += other.self_cuda_time_total
        return self

    @property
    def cpu_time(self) -> float:
        """Average CPU time per call (µs)."""
        return self.cpu_time_total / self.count if self.count else 0.0

    @property
    def cuda_time(self) -> float:
        """Average GPU time per call (µs)."""
        return self.cuda_time_total / self.count if self.count else 0.0

    @property
    def device_time_total(self) -> float:
        """Same as `cuda_time_total`."""
        return self.cuda_time_total

    @property
    def self_device_time_total(self) -> float:
        """Same as `self_cuda_time_total`."""
        return self.self_cuda_time_total

    @property
    def device_time(self) -> float:
        """Same as `cuda_time`."""
        return self.cuda_time

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} count={self.count} "
            f"self_cpu_time={_format_time(self.self_cpu_time_total)} "
            f"cpu_time={_format_time(self.cpu_time_total)} "
            f"cuda_time={_format_time(self.cuda_time_total)} "
            f"input_shapes={self.input_shapes}>"
        )


# PyTorch's sort keys (table(sort_by=...)), all sorted largest first.
_SORT_KEYS = (
    "cpu_time",
    "cuda_time",
    "device_time",
    "cpu_time_total",
    "cuda_time_total",
    "device_time_total",
    "self_cpu_time_total",
    "self_cuda_time_total",
    "self_device_time_total",
    "count",
)


class EventList(list):
    """A list of events (or of averaged rows) that prints as PyTorch's table.

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.ones(2, requires_grad=True)
        >>> with torch.autograd.profiler.profile() as prof:
        ...     (x * x).sum().backward()
        >>> events = prof.events()
        >>> [(e.name, e.category) for e in events]  # doctest: +NORMALIZE_WHITESPACE
        [('multiply', 'forward'), ('sum', 'forward'), ('SumBackward0', 'backward'),
         ('broadcast_to', 'backward'), ('MulBackward0', 'backward')]
        >>> print(events.key_averages().table(sort_by="count", row_limit=1))
        ---------...
                Name    Self CPU %      Self CPU   CPU total %  ...
        ---------...
        ...
        Self CPU time total: ...
    """

    def __init__(self, *args, profile_start_ns: int | None = None):
        super().__init__(*args)
        self._start_ns = profile_start_ns

    @property
    def self_cpu_time_total(self) -> float:
        """The sum of every event's self CPU time (µs)."""
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0):
        """Add up the events by name (and by input shapes if asked).

        Args:
            group_by_input_shape: Group by name and input shapes (the
                profile must have been made with `record_shapes=True`).
            group_by_stack_n: Accepted for compatibility; stacks are not
                recorded, so it has no effect.

        Returns:
            An `EventList` of `FunctionEventAvg`, in order of first
            appearance.
        """
        rows: dict = {}
        for ev in self:
            shapes = ev.input_shapes if group_by_input_shape else None
            key = (ev.key, str(shapes)) if group_by_input_shape else ev.key
            row = rows.get(key)
            if row is None:
                row = rows[key] = FunctionEventAvg(ev.key, shapes)
            row.add(ev)
        return EventList(rows.values(), profile_start_ns=self._start_ns)

    def total_average(self) -> FunctionEventAvg:
        """Add up every event into one row named `"Total"`."""
        total = FunctionEventAvg("Total")
        for ev in self:
            total.add(ev)
        return total

    def table(
        self,
        sort_by: str | None = None,
        row_limit: int = 100,
        max_name_column_width: int = 55,
        header: str | None = None,
        top_level_events_only: bool = False,
    ) -> str:
        """Format the events as PyTorch's profiler table.

        Args:
            sort_by: A column to sort by, largest first: `"cpu_time_total"`,
                `"self_cpu_time_total"`, `"cpu_time"`, `"cuda_time_total"`,
                `"self_cuda_time_total"`, `"cuda_time"`, `"count"` (or the
                `device_` spellings). None keeps the order of the events.
            row_limit: Print at most this many rows (negative: all).
            max_name_column_width: Truncate longer names (with `...`).
            header: A line printed above the table.
            top_level_events_only: Print only events that ran inside no
                other (percentages still count every event).

        Returns:
            The table as a string.

        Raises:
            ValueError: For an unknown `sort_by`.
        """
        return _build_table(
            self, sort_by, row_limit, max_name_column_width, header, top_level_events_only
        )

    def export_chrome_trace(self, path) -> None:
        """Write the events as a Chrome trace (`chrome://tracing`, Perfetto).

        The file is a JSON object with `"traceEvents"`: one complete event
        (`"ph": "X"`) per range, with `ts` and `dur` in microseconds from the
        start of the profile, `pid`, `tid`, `name`, `cat` (`"forward"`,
        `"backward"`, `"user_annotation"`) and `args` (input shapes when
        recorded). Ranges timed on the GPU get a second event on a thread
        named after the CUDA device.
        """
        _write_trace(self, path, self._start_ns)

    def __str__(self) -> str:
        return self.table()


def _format_time(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_percent(part: float, total: float) -> str:
    return f"{part / total * 100.0:.2f}%" if total > 0 else "0.00%"


def _build_table(
    events, sort_by, row_limit, max_name_column_width, header, top_level_events_only
) -> str:
    rows = list(events)
    if sort_by is not None:
        if sort_by not in _SORT_KEYS:
            raise ValueError(
                f"funcgrad.autograd.profiler: cannot sort the table by {sort_by!r}; use one "
                f"of {', '.join(_SORT_KEYS)}"
            )
        rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
    if top_level_events_only:
        rows = [e for e in rows if getattr(e, "cpu_parent", None) is None]
    if row_limit is not None and row_limit >= 0:
        rows = rows[:row_limit]
    self_total = sum(e.self_cpu_time_total for e in events)
    cuda_self_total = sum(e.self_cuda_time_total for e in events)
    with_shapes = any(getattr(e, "input_shapes", None) is not None for e in rows)

    names = [e.key for e in rows] or ["Name"]
    name_width = min(max(len(n) for n in names) + 4, max_name_column_width)
    columns = [
        ("Name", name_width),
        ("Self CPU %", 12),
        ("Self CPU", 12),
        ("CPU total %", 12),
        ("CPU total", 12),
        ("CPU time avg", 12),
        ("CUDA total", 12),
        ("# of Calls", 12),
    ]
    if with_shapes:
        columns.append(
            (
                "Input Shapes",
                max([len(str(e.input_shapes)) for e in rows if e.input_shapes is not None] + [12])
                + 2,
            )
        )
    line = "  ".join("-" * w for _, w in columns)

    def fmt(cells):
        return "  ".join(f"{c:>{w}}" for c, (_, w) in zip(cells, columns, strict=True))

    out = []
    if header is not None:
        out += ["=" * len(line), header]
    out += [line, fmt([c for c, _ in columns]), line]
    for e in rows:
        name = e.key
        if len(name) > name_width:
            name = name[: name_width - 3] + "..."
        cells = [
            name,
            _format_percent(e.self_cpu_time_total, self_total),
            _format_time(e.self_cpu_time_total),
            _format_percent(e.cpu_time_total, self_total),
            _format_time(e.cpu_time_total),
            _format_time(e.cpu_time_total / e.count if e.count else 0.0),
            _format_time(e.cuda_time_total),
            str(e.count),
        ]
        if with_shapes:
            cells.append(str(e.input_shapes) if e.input_shapes is not None else "")
        out.append(fmt(cells))
    out.append(line)
    out.append(f"Self CPU time total: {_format_time(self_total)}")
    if cuda_self_total > 0:
        out.append(f"Self CUDA time total: {_format_time(cuda_self_total)}")
    return "\n".join(out) + "\n"


def _write_trace(events, path, start_ns) -> None:
    if start_ns is None:
        start_ns = min((e.start_ns for e in events), default=0)
    pid = os.getpid()
    trace = []
    threads: dict[int, str] = {}
    gpu_tid = 1 << 30  # a made-up thread for GPU ranges, named in the metadata
    for ev in sorted(events, key=lambda e: e.start_ns):
        threads.setdefault(ev.thread, f"CPU thread {ev.thread}")
        args = {}
        if ev.input_shapes is not None:
            args["Input Shapes"] = ev.input_shapes
        if ev.unfinished:
            args["unfinished"] = True
        start_us = (ev.start_ns - start_ns) / 1000.0
        # NOTE: complete events need dur > 0 to show; a range under the clock's
        # resolution is drawn 1 ns long.
        trace.append(
            {
                "name": ev.name,
                "cat": ev.category,
                "ph": "X",
                "ts": start_us,
                "dur": max(ev.cpu_time_total, 0.001),
                "pid": pid,
                "tid": ev.thread,
                "args": args,
            }
        )
        if ev.cuda_time_total > 0:
            # TODO(#8): GPU ranges are placed at the CPU start (CUDA events give
            # durations, not timestamps on the CPU clock); not run by the tests.
            threads.setdefault(gpu_tid, "CUDA")
            trace.append(
                {
                    "name": ev.name,
                    "cat": ev.category,
                    "ph": "X",
                    "ts": start_us,
                    "dur": ev.cuda_time_total,
                    "pid": pid,
                    "tid": gpu_tid,
                    "args": {**args, "device": "cuda"},
                }
            )
    for tid, name in threads.items():
        trace.append(
            {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}}
        )
    with open(path, "w") as f:
        json.dump({"traceEvents": trace, "displayTimeUnit": "ms"}, f)


# --- the context managers -----------------------------------------------------


def _not_implemented(argument: str, why: str):
    raise NotImplementedError(
        f"funcgrad.autograd.profiler.profile: {argument} is not implemented; {why} in "
        f"funcgrad's profiler. Leave the argument out (or at its default)."
    )


class profile:
    """Record the time of every operation and backward node run in this block.

    Use it as a context manager; afterwards `print(prof)` lists every event
    and `prof.key_averages().table(...)` adds them up by name. Only the
    thread that enters the block is recorded. Profiles may nest (each
    records what runs while it is open).

    Args:
        enabled: If false, record nothing (the block runs as without it).
        use_cuda: Also measure GPU time, with CUDA events, for every
            operation on CuPy arrays (operations on NumPy arrays get 0).
            Off by default, as in PyTorch: the `CUDA total` column is then 0.
        use_device: `"cuda"` is the same as `use_cuda=True`; no other
            device is supported.
        record_shapes: Record the shapes of each operation's arguments
            (`key_averages(group_by_input_shape=True)` groups by them).
        post_processing_timeout_s: Accepted: funcgrad has no post-processing
            step (events are ready when the block ends), so no timeout can
            be reached.

    The other arguments of PyTorch's signature (`with_flops`,
    `profile_memory`, `with_stack`, `with_modules`, `use_kineto=True`,
    `use_cpu=False`, `experimental_config`, `acc_events`,
    `custom_trace_id_callback`, `activity_filters`) are not implemented:
    passing anything but their default raises `NotImplementedError` naming
    the argument, instead of silently recording less than asked.

    Raises:
        NotImplementedError: For an argument funcgrad does not implement.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.autograd import Variable
        >>> x = Variable(torch.randn(1, 1), requires_grad=True)
        >>> with torch.autograd.profiler.profile() as prof:
        ...     y = x ** 3
        ...     y.backward()
        >>> [(e.name, e.category) for e in prof.function_events]
        [('power', 'forward'), ('PowBackward0', 'backward'), ('power', 'backward')]
        >>> print(prof)
        ---------...
                   Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    CUDA total    # of Calls
        ---------...
                  power  ...
         PowBackward0  ...
                  power  ...
        ---------...
        Self CPU time total: ...
    """

    def __init__(
        self,
        enabled: bool = True,
        *,
        use_cuda: bool = False,
        use_device: str | None = None,
        record_shapes: bool = False,
        with_flops: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_modules: bool = False,
        use_kineto: bool = False,
        use_cpu: bool = True,
        experimental_config=None,
        acc_events: bool = False,
        custom_trace_id_callback=None,
        post_processing_timeout_s: float | None = None,
        activity_filters=None,
    ):
        if use_device is not None and use_device != "cuda":
            _not_implemented(f"use_device={use_device!r}", 'only "cuda" (CuPy) devices are timed')
        for name, value, default, why in (
            ("with_flops", with_flops, False, "no FLOPs are counted"),
            ("profile_memory", profile_memory, False, "no allocations are tracked"),
            ("with_stack", with_stack, False, "no Python stacks are recorded per event"),
            ("with_modules", with_modules, False, "no module hierarchy is recorded"),
            ("use_kineto", use_kineto, False, "there is no Kineto backend"),
            ("use_cpu", use_cpu, True, "CPU events are always recorded"),
            ("experimental_config", experimental_config, None, "there is no Kineto backend"),
            ("acc_events", acc_events, False, "a profile records a single run"),
            ("custom_trace_id_callback", custom_trace_id_callback, None, "traces have no id"),
            ("activity_filters", activity_filters, None, "events cannot be filtered"),
        ):
            if not (value is default or value == default):
                _not_implemented(f"{name}={value!r}", why)
        self.enabled = bool(enabled)
        self.use_cuda = bool(use_cuda) or use_device == "cuda"
        self.record_shapes = bool(record_shapes)
        self._events: list[FunctionEvent] = []
        self._state: _State | None = None
        self._entered = False
        self._finished = False
        self._start_ns: int | None = None

    def __enter__(self) -> profile:
        if self._entered:
            raise RuntimeError(
                "funcgrad.autograd.profiler.profile is not reentrant: "
                "open a new profile() instead of entering this one again"
            )
        self._entered = True
        if not self.enabled:
            return self
        self._start_ns = _now()
        state = _local.state
        state.profiles.append(self)
        state.refresh()
        self._state = state
        return self

    def __exit__(self, *exc) -> None:
        if self.enabled and self._state is not None:
            state = self._state
            # Remove this profile wherever it is (profiles may close out of order).
            for i, p in enumerate(state.profiles):
                if p is self:
                    del state.profiles[i]
                    break
            state.refresh()
            if state.stack and state.stack[-1]._frame is not None:
                _close_dangling(state.stack)
            stop = _now()
            for ev in self._events:
                if ev.end_ns is None:  # still open in an enclosing range
                    ev.end_ns = stop
                    ev.unfinished = True
                _resolve_cuda(ev)
            self._state = None
        self._finished = True

    def _check_finish(self) -> None:
        if not self._finished:
            raise RuntimeError(
                "funcgrad.autograd.profiler: the profiler did not finish "
                "running; read its results after the with block"
            )

    @property
    def function_events(self) -> EventList:
        """Every recorded event, in the order they started (an `EventList`)."""
        self._check_finish()
        return EventList(self._events, profile_start_ns=self._start_ns)

    def events(self) -> EventList:
        """Return `function_events`."""
        return self.function_events

    @property
    def self_cpu_time_total(self) -> float:
        """The sum of the self CPU time of every event (µs)."""
        return self.function_events.self_cpu_time_total

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0):
        """Add up the events by name (see `EventList.key_averages`)."""
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n)

    def total_average(self) -> FunctionEventAvg:
        """Add up every event into one row (see `EventList.total_average`)."""
        return self.function_events.total_average()

    def table(
        self,
        sort_by: str | None = None,
        row_limit: int = 100,
        max_name_column_width: int = 55,
        header: str | None = None,
        top_level_events_only: bool = False,
    ) -> str:
        """Format every event as a table (see `EventList.table`)."""
        return self.function_events.table(
            sort_by, row_limit, max_name_column_width, header, top_level_events_only
        )

    def export_chrome_trace(self, path) -> None:
        """Write a Chrome trace-event JSON file (see `EventList.export_chrome_trace`)."""
        self.function_events.export_chrome_trace(path)

    def __str__(self) -> str:
        if not self._finished:
            return "<unfinished funcgrad.autograd.profile>"
        return str(self.function_events)

    def __repr__(self) -> str:
        if not self._finished:
            return "<unfinished funcgrad.autograd.profile>"
        return f"<funcgrad.autograd.profiler.profile with {len(self._events)} events>"


class record_function:
    """Mark a range of user code; it shows in the profile under `name`.

    A context manager and a decorator. Outside a profile (or `emit_nvtx`)
    it does nothing.

    Args:
        name: The name of the range in tables and traces.
        args: Accepted for compatibility with PyTorch; ignored.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.autograd import profiler
        >>> x = torch.ones(3, requires_grad=True)
        >>> with profiler.profile() as prof:
        ...     with profiler.record_function("my_loss"):
        ...         loss = (x * x).sum()
        >>> [(e.name, e.cpu_parent.name if e.cpu_parent else None) for e in prof.events()]
        [('my_loss', None), ('multiply', 'my_loss'), ('sum', 'my_loss')]
    """

    def __init__(self, name: str, args: str | None = None):
        self.name = name
        self.args = args
        self._event = None
        self._state = None

    def __enter__(self) -> record_function:
        state = _local.state
        if state.active:
            self._state = state
            self._event = _begin(state, self.name, "user_annotation", None, None)
        return self

    def __exit__(self, *exc) -> None:
        if self._event is not None:
            _end(self._state, self._event)
            self._event = None
            self._state = None

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return wrapper


_nvtx_warned = False


class emit_nvtx:
    """Mark every operation and backward node as an NVTX range (for Nsight Systems / nvprof).

    Needs CuPy (`cupy.cuda.nvtx`). Without it the block runs unchanged and a
    warning says so, once per process.

    Args:
        enabled: If false, do nothing.
        record_shapes: Append the argument shapes to each range's name
            (`"multiply, sizes = [[2], [2]]"`).

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.ones(2, requires_grad=True)
        >>> with torch.autograd.profiler.emit_nvtx():  # doctest: +SKIP
        ...     (x * x).sum().backward()
    """

    def __init__(self, enabled: bool = True, record_shapes: bool = False):
        self.enabled = bool(enabled)
        self.record_shapes = bool(record_shapes)
        self._nvtx: Any = None  # the module cupy.cuda.nvtx, once entered
        self._state = None
        self._entered = False

    def __enter__(self) -> emit_nvtx:
        global _nvtx_warned
        if self._entered:
            raise RuntimeError("funcgrad.autograd.profiler.emit_nvtx is not reentrant")
        self._entered = True
        if not self.enabled:
            return self
        try:
            # TODO(#8): NVTX ranges are not checked by the tests (no CuPy here).
            self._nvtx = importlib.import_module("cupy.cuda.nvtx")
        except Exception:  # CuPy missing, or built without NVTX
            if not _nvtx_warned:
                _nvtx_warned = True
                warnings.warn(
                    "funcgrad.autograd.profiler.emit_nvtx: CuPy (cupy.cuda.nvtx) is not "
                    "available, so no NVTX ranges are emitted; install CuPy to use it",
                    RuntimeWarning,
                    stacklevel=2,
                )
            return self
        state = _local.state
        state.nvtx.append(self)
        state.refresh()
        self._state = state
        return self

    def __exit__(self, *exc) -> None:
        state = self._state
        if state is None:
            return
        for i, n in enumerate(state.nvtx):
            if n is self:
                del state.nvtx[i]
                break
        state.refresh()
        self._state = None


def _nvtx_push(ev: FunctionEvent, state: _State) -> None:
    # TODO(#8): not run by the tests (no CuPy here).
    name = ev.name
    if ev.input_shapes is not None:
        name = f"{name}, sizes = {ev.input_shapes}"
    state.nvtx[-1]._nvtx.RangePush(name)
    ev._nvtx = True


def _nvtx_pop(ev: FunctionEvent) -> None:
    # TODO(#8): not run by the tests (no CuPy here).
    import cupy.cuda.nvtx as nvtx

    nvtx.RangePop()
    ev._nvtx = False


__all__ = [
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "emit_nvtx",
    "profile",
    "record_function",
]

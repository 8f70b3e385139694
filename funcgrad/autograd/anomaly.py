"""Anomaly detection: find the forward line whose backward produced a NaN.

While anomaly mode is on (`detect_anomaly()`, `set_detect_anomaly(True)`),
the thread that turned it on observes its own computation through
`funcgrad.ops.observe`:

* every node it records (`node_made`) is remembered with where in the
  user's code it was made: the call stack without funcgrad's own frames;
* every cotangent a backward walk in this thread produces (`cotangent`) is
  checked, and at the first one holding a NaN a `RuntimeError` names the
  node's `grad_fn` (`SqrtBackward0`) and shows the remembered forward stack.

Nothing is patched (`Primitive` keeps its methods). When the mode is turned
off the observer is unregistered and the remembered stacks are dropped.
Without anomaly mode NaN gradients propagate silently, as in PyTorch.

Threads: the mode belongs to the thread that set it. Another thread neither
records stacks nor raises, and `is_anomaly_enabled()` answers for the
calling thread. PyTorch differs here: its `AnomalyMode` is one process-wide
flag ("it is enabled for all computation and threads", the comment on
`DetectAnomalyGuard` in `torch/csrc/autograd/anomaly_mode.h`; with torch
2.13, `torch.is_anomaly_enabled()` is True in a thread started inside
`set_detect_anomaly(True)`). funcgrad keeps it per thread because its core
promises that a backward pass depends on its arguments only: a debugging
session in one thread must not make another thread's backward raise. To
check a backward pass run by another thread, turn the mode on in that
thread.
"""

from __future__ import annotations

import functools
import linecache
import os
import sys
import threading
import traceback
import warnings

from funcgrad.backend import xp_of
from funcgrad.graph import Node
from funcgrad.ops.observe import observing
from funcgrad.tensors.grad_fn import grad_fn_of

# Frames from files under this folder are funcgrad's, not the user's.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class _Mode:
    """One thread's anomaly mode, and the observer it registers while on."""

    __slots__ = (
        "enabled",
        "check_nan",
        "check_inf",
        "stacks",
        "by_value",
        "prune_at",
        "_observing",
    )

    def __init__(self) -> None:
        self.enabled = False
        self.check_nan = True
        self.check_inf = False
        # id(node) -> (node, [(filename, lineno, function), ...] outermost first).
        # NOTE: the node itself is kept so that its id cannot be reused while the
        # entry exists; `_prune` drops entries whose node nothing else holds any more.
        self.stacks: dict[int, tuple] = {}
        # id(node.value) -> id(node): finds the stack of a node that a walk
        # rebuilt (a rebuilt node shares its value with the original).
        self.by_value: dict[int, int] = {}
        self.prune_at = 4096
        self._observing: observing | None = None

    def set(self, mode: bool, check_nan: bool, check_inf: bool) -> None:
        if mode and not self.enabled:
            self._observing = observing(self)
            self._observing.__enter__()
        elif not mode and self.enabled:
            assert self._observing is not None  # set while enabled
            self._observing.__exit__(None, None, None)
            self._observing = None
            self.stacks.clear()
            self.by_value.clear()
        self.enabled = bool(mode)
        self.check_nan = bool(check_nan)
        self.check_inf = bool(check_inf)

    def saved(self) -> tuple[bool, bool, bool]:
        return self.enabled, self.check_nan, self.check_inf

    # The observer protocol of funcgrad.ops.observe (called in this thread only).

    def node_made(self, node: Node) -> None:
        _remember(self, node, sys._getframe(1))

    def before_vjp(self, node):
        return None

    def cotangent(self, node, input_index, ct):
        if not (self.check_nan or self.check_inf):
            return
        value = ct.value if type(ct) is Node else ct
        xp = xp_of(value)
        if self.check_nan and bool(xp.isnan(value).any()):
            raise RuntimeError(_message(self, node, input_index, "nan"))
        if self.check_inf and bool(xp.isinf(value).any()):
            raise RuntimeError(_message(self, node, input_index, "inf"))

    def after_vjp(self, node, token):
        pass


class _Local(threading.local):
    def __init__(self):
        self.mode = _Mode()


_local = _Local()


def is_anomaly_enabled() -> bool:
    """Return whether anomaly mode is on in the calling thread.

    Examples:
        >>> from funcgrad.autograd import anomaly
        >>> anomaly.is_anomaly_enabled()
        False
    """
    return _local.mode.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Return whether anomaly mode checks backward results for NaN (in the calling thread).

    Examples:
        >>> from funcgrad.autograd import anomaly
        >>> anomaly.is_anomaly_check_nan_enabled()
        True
    """
    return _local.mode.check_nan


class set_detect_anomaly:
    """Turn anomaly mode on or off: at once, or for a `with` block.

    Called as a function it switches the mode for good; used as a context
    manager it restores the previous mode when the block ends.

    Args:
        mode: True to turn anomaly mode on, False to turn it off.
        check_nan: Raise when a backward node produces NaN values.
        check_inf: Also raise when it produces infinite values. Off by
            default, as in PyTorch: an infinite gradient (of `sqrt` at 0)
            is often correct.

    Examples:
        >>> import funcgrad as torch
        >>> with torch.autograd.set_detect_anomaly(True):
        ...     torch.autograd.anomaly.is_anomaly_enabled()
        True
        >>> torch.autograd.anomaly.is_anomaly_enabled()
        False
    """

    def __init__(self, mode: bool, check_nan: bool = True, *, check_inf: bool = False):
        state = _local.mode
        self.prev = state.saved()
        state.set(mode, check_nan, check_inf)

    def __enter__(self) -> set_detect_anomaly:
        return self

    def __exit__(self, *exc) -> None:
        _local.mode.set(*self.prev)


class detect_anomaly:
    """Check backward passes for NaN and show the forward line that caused it.

    A context manager and a decorator. Inside it, every operation on
    tensors that require grad remembers where in your code it ran, and a
    backward pass that produces NaN values raises a `RuntimeError` naming
    the backward node and showing that line. It slows everything down: use
    it only to debug.

    Args:
        check_nan: Raise when a backward node produces NaN values.
        check_inf: Also raise on infinite values (not in PyTorch; off by
            default).

    Examples:
        >>> import warnings
        >>> import funcgrad as torch
        >>> x = torch.tensor([-1.0], requires_grad=True)
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     with torch.autograd.detect_anomaly():
        ...         y = torch.sqrt(x)
        ...         y.backward()
        Traceback (most recent call last):
        ...
        RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.
        <BLANKLINE>
        Traceback of forward call that caused the error:
        ...
            y = torch.sqrt(x)
    """

    def __init__(self, check_nan: bool = True, *, check_inf: bool = False):
        self.check_nan = check_nan
        self.check_inf = check_inf
        self.prev: tuple[bool, bool, bool] | None = None  # the mode to restore (set on entering)
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and "
            "should only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )

    def __enter__(self) -> detect_anomaly:
        state = _local.mode
        self.prev = state.saved()
        state.set(True, self.check_nan, self.check_inf)
        return self

    def __exit__(self, *exc) -> None:
        assert self.prev is not None  # set by __enter__
        _local.mode.set(*self.prev)

    def __call__(self, fn):
        check_nan, check_inf = self.check_nan, self.check_inf

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            state = _local.mode
            prev = state.saved()
            state.set(True, check_nan, check_inf)
            try:
                return fn(*args, **kwargs)
            finally:
                state.set(*prev)

        return wrapper


# --- remembering where nodes are made, and the message ---------------------------


def _remember(mode: _Mode, node: Node, frame) -> None:
    frames = []
    while frame is not None:
        code = frame.f_code
        filename = code.co_filename
        if not filename.startswith(_PACKAGE_DIR):
            frames.append((filename, frame.f_lineno, code.co_name))
        frame = frame.f_back
    frames.reverse()
    key = id(node)
    stacks = mode.stacks
    stacks[key] = (node, frames)
    mode.by_value[id(node.value)] = key
    if len(stacks) > mode.prune_at:
        _prune(mode)
        mode.prune_at = max(4096, 2 * len(stacks))


def _prune(mode: _Mode) -> None:
    """Forget the nodes that only this table still holds (their graphs are gone)."""
    stacks, by_value = mode.stacks, mode.by_value
    for key, entry in list(stacks.items()):
        # Two references: the entry tuple and getrefcount's own argument.
        if sys.getrefcount(entry[0]) <= 2:
            del stacks[key]
            vkey = id(entry[0].value)
            if by_value.get(vkey) == key:
                del by_value[vkey]


def _forward_stack(mode: _Mode, node: Node):
    entry = mode.stacks.get(id(node))
    if entry is not None and entry[0] is node:
        return entry[1]
    # A node rebuilt for hooks shares its value (and primitive) with the original.
    key = mode.by_value.get(id(node.value))
    entry = mode.stacks.get(key) if key is not None else None
    if entry is not None and entry[0].prim is node.prim and entry[0].value is node.value:
        return entry[1]
    return None


def _message(mode: _Mode, node: Node, index: int, what: str) -> str:
    name = grad_fn_of(node).name()
    # NOTE: PyTorch's wording, including its "0th", "1th", ... ordinals.
    head = f"Function '{name}' returned {what} values in its {index}th output."
    frames = _forward_stack(mode, node)
    if not frames:
        return (
            f"{head}\n\nNo forward pass information available. Enable detect anomaly "
            f"during forward pass for more information."
        )
    summary = traceback.StackSummary.from_list(
        [(f, n, fn, linecache.getline(f, n).strip()) for f, n, fn in frames]
    )
    shown = "".join(summary.format()).rstrip()
    return f"{head}\n\nTraceback of forward call that caused the error:\n{shown}"


__all__ = [
    "detect_anomaly",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "set_detect_anomaly",
]

"""Anomaly detection: find the forward line whose backward produced a NaN.

While anomaly mode is on (`detect_anomaly()`, `set_detect_anomaly(True)`):

* `Primitive.bind` (every primitive applied to a graph node) is replaced at
  class level by a wrapper that remembers where in the user's code each
  node was made: the call stack without funcgrad's own frames;
* an observer of the backward walk (`funcgrad.transforms.reverse._OBSERVERS`)
  looks at every cotangent a node's VJP produces and, at the first one
  holding a NaN, raises a `RuntimeError` naming the node's `grad_fn`
  (`SqrtBackward0`) and showing the remembered forward stack.

When the mode is turned off, both are removed (`Primitive.bind` is the
original function again) and the remembered stacks are dropped. Without
anomaly mode NaN gradients propagate silently, as in PyTorch.

The mode is global (every thread), as in PyTorch.
"""

from __future__ import annotations

import functools
import importlib
import linecache
import os
import sys
import threading
import traceback
import warnings

from funcgrad.backend import xp_of
from funcgrad.graph import Node
from funcgrad.ops.registry import Primitive
from funcgrad.tensors.grad_fn import grad_fn_of

_walk_module = importlib.import_module("funcgrad.transforms.reverse")

# Frames from files under this folder are funcgrad's, not the user's.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

_lock = threading.Lock()
_enabled = False
_check_nan = True
_check_inf = False
_saved_bind = None

# id(node) -> (node, [(filename, lineno, function), ...] outermost first).
# NOTE: the node itself is kept so that its id cannot be reused while the
# entry exists; `_prune` drops entries whose node nothing else holds any more.
_STACKS: dict[int, tuple] = {}
# id(node.value) -> id(node): finds the stack of a node that a walk rebuilt
# (tensor hooks rebuild the nodes downstream of a hooked one; values are shared).
_BY_VALUE: dict[int, int] = {}
_prune_at = 4096


def is_anomaly_enabled() -> bool:
    """Return whether anomaly mode is on.

    Examples:
        >>> from funcgrad.autograd import anomaly
        >>> anomaly.is_anomaly_enabled()
        False
    """
    return _enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Return whether anomaly mode checks backward results for NaN.

    Examples:
        >>> from funcgrad.autograd import anomaly
        >>> anomaly.is_anomaly_check_nan_enabled()
        True
    """
    return _check_nan


def _set(mode: bool, check_nan: bool, check_inf: bool) -> None:
    global _enabled, _check_nan, _check_inf, _saved_bind
    with _lock:
        if mode and not _enabled:
            _saved_bind = Primitive.__dict__["bind"]
            Primitive.bind = _recording_bind
            _walk_module._OBSERVERS.append(_OBSERVER)
        elif not mode and _enabled:
            if Primitive.__dict__.get("bind") is _recording_bind:
                Primitive.bind = _saved_bind
            try:
                _walk_module._OBSERVERS.remove(_OBSERVER)
            except ValueError:
                pass
            _STACKS.clear()
            _BY_VALUE.clear()
        _enabled = bool(mode)
        _check_nan = bool(check_nan)
        _check_inf = bool(check_inf)


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
        self.prev = (_enabled, _check_nan, _check_inf)
        _set(mode, check_nan, check_inf)

    def __enter__(self) -> set_detect_anomaly:
        return self

    def __exit__(self, *exc) -> None:
        _set(*self.prev)


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
        self.prev = None
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and "
            "should only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )

    def __enter__(self) -> detect_anomaly:
        self.prev = (_enabled, _check_nan, _check_inf)
        _set(True, self.check_nan, self.check_inf)
        return self

    def __exit__(self, *exc) -> None:
        _set(*self.prev)

    def __call__(self, fn):
        check_nan, check_inf = self.check_nan, self.check_inf

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = (_enabled, _check_nan, _check_inf)
            _set(True, check_nan, check_inf)
            try:
                return fn(*args, **kwargs)
            finally:
                _set(*prev)

        return wrapper


# --- recording where nodes are made ------------------------------------------------


def _recording_bind(self, args, params):
    node = _saved_bind(self, args, params)
    _remember(node, sys._getframe(1))
    return node


def _remember(node: Node, frame) -> None:
    global _prune_at
    frames = []
    while frame is not None:
        code = frame.f_code
        filename = code.co_filename
        if not filename.startswith(_PACKAGE_DIR):
            frames.append((filename, frame.f_lineno, code.co_name))
        frame = frame.f_back
    frames.reverse()
    key = id(node)
    _STACKS[key] = (node, frames)
    _BY_VALUE[id(node.value)] = key
    if len(_STACKS) > _prune_at:
        _prune()
        _prune_at = max(4096, 2 * len(_STACKS))


def _prune() -> None:
    """Forget the nodes that only this table still holds (their graphs are gone)."""
    for key, entry in list(_STACKS.items()):
        # Two references: the entry tuple and getrefcount's own argument.
        if sys.getrefcount(entry[0]) <= 2:
            del _STACKS[key]
            vkey = id(entry[0].value)
            if _BY_VALUE.get(vkey) == key:
                del _BY_VALUE[vkey]


def _forward_stack(node: Node):
    entry = _STACKS.get(id(node))
    if entry is not None and entry[0] is node:
        return entry[1]
    # A node rebuilt for hooks shares its value (and primitive) with the original.
    key = _BY_VALUE.get(id(node.value))
    entry = _STACKS.get(key) if key is not None else None
    if entry is not None and entry[0].prim is node.prim and entry[0].value is node.value:
        return entry[1]
    return None


# --- checking the backward pass ------------------------------------------------------


class _AnomalyObserver:
    """Checks every cotangent a VJP produces for NaN (and inf if asked)."""

    def before_vjp(self, node):
        return None

    def cotangent(self, node, input_index, ct):
        if not (_check_nan or _check_inf):
            return
        value = ct.value if type(ct) is Node else ct
        xp = xp_of(value)
        if _check_nan and bool(xp.isnan(value).any()):
            raise RuntimeError(_message(node, input_index, "nan"))
        if _check_inf and bool(xp.isinf(value).any()):
            raise RuntimeError(_message(node, input_index, "inf"))

    def after_vjp(self, node, token):
        pass


_OBSERVER = _AnomalyObserver()


def _message(node: Node, index: int, what: str) -> str:
    name = grad_fn_of(node).name()
    # NOTE: PyTorch's wording, including its "0th", "1th", ... ordinals.
    head = f"Function '{name}' returned {what} values in its {index}th output."
    frames = _forward_stack(node)
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

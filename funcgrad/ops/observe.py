"""Observers of primitive applications and backward walks, scoped to one thread.

The profiler and anomaly detection watch computation without changing it.
They register here with `observing(observer)`, whose effect is limited to
the thread that entered it; nothing is ever patched onto a class, and a
profile opened in one thread sees nothing of another.

An observer is an object with any of these methods (a missing one is
skipped):

* `call(prim, args, params, run)`: wraps one application of a primitive
  (`run()` computes it and returns the result, which `call` returns);
* `call_alone(prim, args, params)`: what `call` does, asked instead of it
  while this observer is the thread's only one: it returns the result, or
  `UNOBSERVED` for the caller to compute as usual (no `run()` closure is made:
  `funcgrad.vmap`'s interpreter, on every primitive applied inside a vmap);
* `node_made(node)`: a node was recorded;
* `before_vjp(node) -> token`, `cotangent(node, i, ct)`,
  `after_vjp(node, token)`: the backward walk applies `node`'s VJP rules.

The hot paths test one module-level counter (`active`) and look up the
thread's observers only while some thread observes. An observer of calls
only (without `node_made` and the walk's three methods) is not among
`current()`'s: the walk and the node makers do not call it.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

import numpy

from funcgrad.graph import Node

active = 0  # number of threads with at least one observer
_count_lock = threading.Lock()
_local = threading.local()


def current() -> tuple[Any, ...]:
    """Return the calling thread's observers of nodes and walks, outermost first (empty when none).

    An observer with none of `node_made`, `before_vjp`, `cotangent` and
    `after_vjp` (one of calls only) is left out.
    """
    if not active:
        return ()
    return getattr(_local, "watchers", ())


_WATCHING = ("node_made", "before_vjp", "cotangent", "after_vjp")


def _set_stack(stack: tuple[Any, ...]) -> None:
    """Make `stack` the thread's observers, with what the hot paths read of it."""
    local = _local
    local.stack = stack
    if "plain" not in local.__dict__:
        local.plain = False  # (a missed getattr on a thread-local formats an error: ~0.7 µs)
    local.watchers = tuple(ob for ob in stack if any(hasattr(ob, m) for m in _WATCHING))
    local.alone = getattr(stack[0], "call_alone", None) if len(stack) == 1 else None


class observing:
    """Context manager: `observer` watches this thread's computation while open.

    Args:
        observer: An object with some of the methods listed in the module
            docstring.

    Examples:
        >>> from funcgrad.ops import observe
        >>> class Count:
        ...     n = 0
        ...     def node_made(self, node):
        ...         self.n += 1
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> c = Count()
        >>> with observe.observing(c):
        ...     y = fnp.exp(fg.leaf(1.0))
        >>> c.n
        1
    """

    __slots__ = ("observer",)

    def __init__(self, observer: Any) -> None:
        self.observer = observer

    def __enter__(self) -> Any:
        global active
        stack = getattr(_local, "stack", ())
        if not stack:
            with _count_lock:
                active += 1
        _set_stack((*stack, self.observer))
        return self.observer

    def __exit__(self, *exc: object) -> None:
        global active
        stack = _local.stack
        # Remove the innermost occurrence (contexts may close out of order).
        k = len(stack) - 1 - stack[::-1].index(self.observer)
        _set_stack(stack[:k] + stack[k + 1 :])
        if not _local.stack:
            with _count_lock:
                active -= 1


# --- called by Primitive.__call__ and Primitive.bind while `active` ----------------

# Types of arguments that are never of a layer above (what getattr would look up in vain, at
# the cost of an exception it formats and drops)
_PLAIN = frozenset({numpy.ndarray, float, int, bool, complex, *numpy.sctypeDict.values()})

# Returned by `observed_call` when the caller should compute as if unobserved.
UNOBSERVED = object()


def observed_call(prim: Callable[..., Any], args: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """Apply `prim` to `args` inside the calling thread's `call` observers.

    `Primitive.__call__` calls this first whenever `active` is nonzero, and
    computes as usual when it returns `UNOBSERVED`: when this thread has no
    `call` observer, when an argument belongs to a layer above (a `Tensor`
    applies the primitive again to its node, and that application is the
    one observed, so it is seen once), and for the computation that `run()`
    itself asks for.
    """
    local = _local
    stack = getattr(local, "stack", ())
    if not stack:  # another thread observes, not this one
        return UNOBSERVED
    if getattr(local, "plain", False):
        local.plain = False  # this is run()'s own application: compute it
        return UNOBSERVED
    for a in args:  # mirrors the dispatch of Primitive.__call__
        t = type(a)
        if t is Node:
            break
        if t not in _PLAIN and getattr(t, "__funcgrad_apply__", None) is not None:
            return UNOBSERVED
    alone = local.alone
    if alone is not None:  # the only observer, with a call of its own for that case
        return alone(prim, args, params)
    calls = [ob.call for ob in stack if hasattr(ob, "call")]
    if not calls:
        return UNOBSERVED

    def run() -> Any:
        local.plain = True
        try:
            return prim(*args, **params)
        finally:
            local.plain = False

    # The outermost observer's `call` wraps the next one's, and so on.
    step: Callable[[], Any] = run
    for call in reversed(calls):
        step = functools.partial(call, prim, args, params, step)
    try:
        return step()
    finally:
        local.plain = False  # in case an observer never called run()


def node_made(node: Node) -> None:
    """Tell the calling thread's observers that `node` was recorded (`Primitive.bind`)."""
    if not active:
        return
    for ob in getattr(_local, "watchers", ()):  # (current(), inlined)
        made = getattr(ob, "node_made", None)
        if made is not None:
            made(node)


__all__ = ["UNOBSERVED", "active", "current", "node_made", "observed_call", "observing"]

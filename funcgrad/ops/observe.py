"""Observers of primitive applications and backward walks, scoped to one thread.

The profiler and anomaly detection watch computation without changing it.
They register here with `observing(observer)`, whose effect is limited to
the thread that entered it; nothing is ever patched onto a class, and a
profile opened in one thread sees nothing of another.

An observer is an object with any of these methods (a missing one is
skipped):

* `call(prim, args, params, run)`: wraps one application of a primitive
  (`run()` computes it and returns the result, which `call` returns);
* `node_made(node)`: a node was recorded;
* `before_vjp(node) -> token`, `cotangent(node, i, ct)`,
  `after_vjp(node, token)`: the backward walk applies `node`'s VJP rules.

The hot paths test one module-level counter (`active`) and look up the
thread's observers only while some thread observes.
"""

from __future__ import annotations

import threading

active = 0  # number of threads with at least one observer
_count_lock = threading.Lock()
_local = threading.local()


def current() -> tuple:
    """Return the calling thread's observers, outermost first (empty when none)."""
    if not active:
        return ()
    return getattr(_local, "stack", ())


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

    def __init__(self, observer):
        self.observer = observer

    def __enter__(self):
        global active
        stack = getattr(_local, "stack", ())
        if not stack:
            with _count_lock:
                active += 1
        _local.stack = (*stack, self.observer)
        return self.observer

    def __exit__(self, *exc) -> None:
        global active
        stack = _local.stack
        # Remove the innermost occurrence (contexts may close out of order).
        k = len(stack) - 1 - stack[::-1].index(self.observer)
        _local.stack = stack[:k] + stack[k + 1 :]
        if not _local.stack:
            with _count_lock:
                active -= 1


__all__ = ["active", "current", "observing"]

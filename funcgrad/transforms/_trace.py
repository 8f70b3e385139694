"""Whether a transform is tracing right now (per thread).

A transform that runs inside another one (`grad(grad(f))`) must build a
graph for its gradients, so that the outer transform can differentiate
them; at the top level it need not. The depth counter below tells which.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

_state = threading.local()


def depth() -> int:
    """Return how many transforms are tracing a function in this thread."""
    return getattr(_state, "depth", 0)


@contextmanager
def tracing():
    """Count one more transform as tracing while the block runs."""
    _state.depth = depth() + 1
    try:
        yield
    finally:
        _state.depth -= 1

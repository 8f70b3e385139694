"""Whether a transform is tracing right now (per thread).

A transform that runs inside another one (`grad(grad(f))`) must build a
graph for its gradients, so that the outer transform can differentiate
them; at the top level it need not. The depth counter below tells which.
"""

from __future__ import annotations

import threading
from typing import Literal

_state = threading.local()


def depth() -> int:
    """Return how many transforms are tracing a function in this thread."""
    return getattr(_state, "depth", 0)


class _Tracing:
    """Count one more transform as tracing while the block runs.

    A plain class rather than `contextlib.contextmanager`: it is entered
    once or twice per transform call, and the generator-based version cost
    about 3 us each time.
    """

    __slots__ = ()

    def __enter__(self) -> _Tracing:
        _state.depth = getattr(_state, "depth", 0) + 1
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        _state.depth -= 1
        return False


_TRACING = _Tracing()


def tracing() -> _Tracing:
    """Return a context manager that counts one more transform as tracing."""
    return _TRACING

"""`funcgrad.backends.mkldnn`: PyTorch's oneDNN flags (funcgrad does not call oneDNN)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

__all__ = ["enabled", "flags", "is_available"]

enabled = True


def is_available() -> bool:
    """Return False: funcgrad does not call oneDNN (MKL-DNN)."""
    return False


@contextlib.contextmanager
def flags(enabled: bool = False, deterministic: bool = False) -> Iterator[None]:
    """Set `enabled` inside the block, and put it back after it."""
    module = sys.modules[__name__]
    before = module.__dict__["enabled"]
    module.__dict__["enabled"] = enabled
    try:
        yield
    finally:
        module.__dict__["enabled"] = before

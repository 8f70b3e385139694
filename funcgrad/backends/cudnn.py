"""`funcgrad.backends.cudnn`: PyTorch's cuDNN flags (funcgrad does not use cuDNN).

`enabled`, `benchmark`, `deterministic`, `allow_tf32` and `benchmark_limit`
can be read and set; `is_available()` is False and `version()` None.

Examples:
    >>> import funcgrad as torch
    >>> torch.backends.cudnn.benchmark = True
    >>> torch.backends.cudnn.benchmark, torch.backends.cudnn.is_available()
    (True, False)
    >>> torch.backends.cudnn.benchmark = False
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

__all__ = ["allow_tf32", "benchmark", "benchmark_limit", "deterministic", "enabled", "flags"]
__all__ += ["is_acceptable", "is_available", "version"]

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True
benchmark_limit = 10


def is_available() -> bool:
    """Return False: funcgrad does not call cuDNN."""
    return False


def version() -> int | None:
    """Return None: funcgrad does not call cuDNN."""
    return None


def is_acceptable(tensor) -> bool:
    """Return False: no tensor is computed with cuDNN."""
    return False


@contextlib.contextmanager
def flags(
    enabled: bool = False,
    benchmark: bool = False,
    benchmark_limit: int = 10,
    deterministic: bool = False,
    allow_tf32: bool = True,
) -> Iterator[None]:
    """Set the flags inside the block, and put them back after it."""
    module = sys.modules[__name__]
    names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
    values = (enabled, benchmark, benchmark_limit, deterministic, allow_tf32)
    before = {name: getattr(module, name) for name in names}
    for name, value in zip(names, values, strict=True):
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in before.items():
            setattr(module, name, value)

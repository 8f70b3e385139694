"""`funcgrad.backends.opt_einsum`: PyTorch's einsum path-optimization flags.

`enabled` and `strategy` are recorded; `is_available()` says whether the
`opt_einsum` package is installed.
"""

from __future__ import annotations

import importlib.util

__all__ = ["enabled", "get_opt_einsum", "is_available", "strategy"]

enabled = True
strategy = "auto"


def is_available() -> bool:
    """Return whether the `opt_einsum` package is installed."""
    return importlib.util.find_spec("opt_einsum") is not None


def get_opt_einsum():
    """Return the `opt_einsum` package, or None when it is not installed."""
    if not is_available():
        return None
    return importlib.import_module("opt_einsum")

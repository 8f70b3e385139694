"""`funcgrad.scipy`'s modules, imported when first used: SciPy is an optional extra.

`import funcgrad` must work without SciPy (tests/scipy/test_special.py); the
distributions and losses that need a special function or SciPy's linear
algebra import `funcgrad.scipy` (which names the extra when SciPy is
missing) only when one of those functions is called.
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """A module imported at its first attribute lookup."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)


special = LazyModule("funcgrad.scipy.special")
linalg = LazyModule("funcgrad.scipy.linalg")

"""The one way a test asks for a reference package: `requires("torch")`.

The references (PyTorch, HIPS autograd, SciPy, mpi4py, optree, ...) are
pip-installable and installed by the README's test command. A test that
needs one calls `requires(name)`, which imports and returns the module.
When it is missing, the test is skipped on a developer's machine, but fails
in CI (`CI=true`), so a missing install step cannot pass as a green run of
skipped tests.

Things pip cannot install here (a GPU for CuPy, Graphviz's `dot`, a browser)
are not references: their tests keep plain `skipif` marks.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

INSTALL = 'python -m pip install -e ".[test]"'


def in_ci() -> bool:
    """Return whether this run is CI's (`CI` set to true, 1 or yes)."""
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def requires(module: str, package: str | None = None) -> ModuleType:
    """Import and return `module`; skip the test without it, or fail it in CI.

    Args:
        module: The module to import (`"torch"`, `"scipy.special"`).
        package: The pip package that provides it, if its name differs.

    Works inside a test, a fixture, or at module level (then the whole
    module is skipped, or fails to collect in CI).
    """
    try:
        return importlib.import_module(module)
    except ImportError as e:
        name = package or module.partition(".")[0]
        message = (
            f"needs the test reference {name!r} ({type(e).__name__}: {e}); "
            f"install the test references with: {INSTALL}"
        )
        if in_ci():
            pytest.fail(f"CI=true, so a missing reference is a failure: {message}", pytrace=False)
        pytest.skip(message, allow_module_level=True)

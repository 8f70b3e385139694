"""The layer arrows of DESIGN.md hold: lower layers never import higher ones.

Imports are read with `ast` (every import statement, at module level or
inside functions), so the check needs no import side effects.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "funcgrad"

# layer -> modules (and their submodules) it must not import.
FORBIDDEN = {
    "graph": [
        "funcgrad.ops",
        "funcgrad.transforms",
        "funcgrad.tensors",
        "funcgrad.autograd",
        "funcgrad.numpy",
        "funcgrad.nn",
    ],
    "ops": [
        "funcgrad.transforms",
        "funcgrad.tensors",
        "funcgrad.autograd",
        "funcgrad.numpy",
        "funcgrad.nn",
    ],
}
# The bottom layer may import nothing of funcgrad but its errors.
BACKEND_ALLOWED = ["funcgrad.backend", "funcgrad.errors"]


def _module_name(path: Path, package: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    if level == 0:
        return name or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def imported_modules(path: Path, package: Path = PACKAGE) -> list[tuple[int, str]]:
    """Return `(line, module)` for each funcgrad module that `path` imports.

    `from funcgrad import x` counts as importing `funcgrad.x` when `x` is a
    submodule, and as importing the top-level `funcgrad` (which pulls in
    every layer) otherwise.
    """
    module = _module_name(path, package)
    is_package = path.name == "__init__.py"
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node.level, node.module)
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                rel = candidate.split(".")[1:]
                is_module = bool(rel) and (
                    package.joinpath(*rel).with_suffix(".py").exists()
                    or package.joinpath(*rel).is_dir()
                )
                found.append((node.lineno, candidate if is_module else base))
    return [(line, m) for line, m in found if m == "funcgrad" or m.startswith("funcgrad.")]


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _files(layer: str) -> list[Path]:
    files = sorted((PACKAGE / layer).rglob("*.py"))
    assert files, f"no modules found under funcgrad/{layer}"
    return files


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_lower_layers_do_not_import_higher_ones(layer):
    bad = []
    for path in _files(layer):
        for line, module in imported_modules(path):
            if module == "funcgrad" or any(_within(module, f) for f in FORBIDDEN[layer]):
                bad.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}")
    assert not bad, f"funcgrad/{layer} must not import higher layers:\n" + "\n".join(bad)


def test_backend_imports_only_errors_from_funcgrad():
    bad = []
    for path in _files("backend"):
        for line, module in imported_modules(path):
            if not any(_within(module, a) for a in BACKEND_ALLOWED):
                bad.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}")
    assert not bad, "funcgrad/backend may import only funcgrad.errors:\n" + "\n".join(bad)


def test_the_import_parser_sees_violations(tmp_path):
    # The checker itself: absolute, relative, aliased and function-level imports.
    fake = tmp_path / "funcgrad"
    (fake / "ops").mkdir(parents=True)
    (fake / "tensor").mkdir()
    (fake / "errors.py").write_text("")
    (fake / "ops" / "bad.py").write_text(
        "import funcgrad.autograd.function as f\n"
        "from ..transforms import backward\n"
        "from funcgrad import tensor\n"
        "from funcgrad import grad\n"
        "from . import registry\n"
        "from funcgrad.errors import OpError\n"
        "import numpy\n"
        "def later():\n"
        "    from funcgrad.tensors.tensor_class import Tensor\n"
    )
    found = [m for _, m in imported_modules(fake / "ops" / "bad.py", fake)]
    assert found == [
        "funcgrad.autograd.function",
        "funcgrad.transforms",
        "funcgrad.tensor",
        "funcgrad",
        "funcgrad.ops",
        "funcgrad.errors",
        "funcgrad.tensors.tensor_class",
    ]

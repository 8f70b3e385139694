"""The layer arrows of DESIGN.md hold, and the package has no import cycles.

Imports are read with `ast`, so the checks need no import side effects
(except the last test, which imports every module to look at its package).

* Arrows: a module imports only its own layer and the layers below it, at
  module level or inside functions, type-only imports included ("nothing in
  graph, ops or transforms knows about Tensor").
* Cycles: the imports that run when a module is loaded (module level, not
  under `if TYPE_CHECKING:`) form no cycle inside `funcgrad/`.
* Function-level imports of funcgrad modules exist only to break a cycle,
  and say so with a `# NOTE: cycle` comment on the line above.
* No module is shadowed by an attribute of its package
  (`funcgrad.transforms.backward` cannot be both a module and a function).
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "funcgrad"

# DESIGN's table, bottom to top: layer -> the top-level names of funcgrad in it.
LAYERS: dict[str, set[str]] = {
    "errors": {"errors"},  # one exception class per kind of mistake; every layer may raise them
    "backend": {"backend"},
    "graph": {"graph"},
    "ops": {"ops"},
    # `tree` re-exports the pytree functions of transforms under JAX's names; `extend`
    # makes user primitives (registry records) with rules applied by the transforms.
    "transforms": {"transforms", "tree", "extend", "test_util"},
    # Functional namespaces over ops and transforms.
    "namespaces": {"numpy", "scipy", "builtins"},
    # The PyTorch runtime around tensors: torch.random, torch.cuda, torch.backends,
    # torch.profiler.
    "imperative": {
        "tensors",
        "autograd",
        "random",
        "cuda",
        "backends",
        "profiler",
    },
    # Collectives and process groups (torch.distributed): below training, so that
    # nn.parallel (DistributedDataParallel) and utils.data.distributed build on them.
    "distributed": {"distributed"},
    # PyTorch's torch.nn (with nn.functional, which takes arrays and nodes too),
    # torch.optim, torch.utils; pure optax-style optimizers; torch.save / torch.load (which
    # build nn.Parameters); torch.func (whose functional_call runs nn.Modules); torch.distributions.
    "training": {
        "nn",
        "optim",
        "utils",
        "optimizers",
        "func",
        "serialization",
        "misc",
        "distributions",
        "_compile",  # torch.compile: funcgrad.jit over tensors and modules
    },
    # The public API (`funcgrad/__init__.py`) and `python -m funcgrad` use everything;
    # `functional` (torch.functional) re-exports functions of the public API.
    "top": {"", "__main__", "functional"},
}
ORDER = list(LAYERS)
LAYER_OF = {name: layer for layer, names in LAYERS.items() for name in names}

# Arrows that another part of issue #11 is removing right now. xfail(strict=False), so
# the test turns green (XPASS) when those land; then delete the entries.
PENDING_ARROWS: dict[str, str] = {}


class Import(NamedTuple):
    line: int
    module: str  # the funcgrad module imported (a package's `__init__` for a name in it)
    scope: str  # "module", "function" or "type-checking" (under `if TYPE_CHECKING:`)
    note: str  # the line above the import statement, stripped


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


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(tree: ast.Module) -> Iterator[tuple[ast.Import | ast.ImportFrom, str]]:
    """Yield each import statement with its scope (see `Import`)."""
    stack: list[tuple[ast.AST, str]] = [(tree, "module")]
    while stack:
        node, scope = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, scope
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            scope = "function"
        if isinstance(node, ast.If) and _is_type_checking(node.test) and scope == "module":
            stack += [(child, "type-checking") for child in node.body]
            stack += [(child, scope) for child in node.orelse]
            continue
        stack += [(child, scope) for child in ast.iter_child_nodes(node)]


def imports_of(path: Path, package: Path = PACKAGE) -> list[Import]:
    """Return the funcgrad modules that `path` imports, in line order.

    `from funcgrad import x` counts as importing `funcgrad.x` when `x` is a
    submodule, and as importing the top-level `funcgrad` (which pulls in
    every layer) otherwise.
    """
    module = _module_name(path, package)
    is_package = path.name == "__init__.py"
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    found = []
    for node, scope in _statements(ast.parse(source, str(path))):
        note = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = _resolve(module, is_package, node.level, node.module)
            targets = []
            for alias in node.names:
                rel = f"{base}.{alias.name}".split(".")[1:]
                is_module = bool(rel) and (
                    package.joinpath(*rel).with_suffix(".py").exists()
                    or package.joinpath(*rel).is_dir()
                )
                targets.append(f"{base}.{alias.name}" if is_module else base)
        found += [Import(node.lineno, t, scope, note) for t in targets]
    found = [i for i in found if i.module == "funcgrad" or i.module.startswith("funcgrad.")]
    return sorted(found)


def imported_modules(path: Path, package: Path = PACKAGE) -> list[tuple[int, str]]:
    """Return `(line, module)` for each funcgrad module that `path` imports."""
    return [(i.line, i.module) for i in imports_of(path, package)]


def _layer(module: str) -> str | None:
    return LAYER_OF.get(module.split(".")[1] if "." in module else "")


def _files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _rel(path: Path) -> str:
    return path.relative_to(PACKAGE.parent).as_posix()


def _params(pending: dict[str, str]) -> list:
    return [
        pytest.param(path, marks=pytest.mark.xfail(reason=pending[_rel(path)], strict=False))
        if _rel(path) in pending
        else path
        for path in _files()
    ]


# --- arrows -------------------------------------------------------------------------


def test_every_module_has_a_layer():
    unplaced = [_rel(p) for p in _files() if _layer(_module_name(p, PACKAGE)) is None]
    assert not unplaced, "add these to LAYERS in tests/test_layers.py:\n" + "\n".join(unplaced)


@pytest.mark.parametrize("path", _params(PENDING_ARROWS), ids=_rel)
def test_imports_follow_the_layers(path):
    own = _layer(_module_name(path, PACKAGE))
    allowed = ORDER[: ORDER.index(own) + 1]
    bad = [
        f"{_rel(path)}:{i.line} imports {i.module} ({_layer(i.module)})"
        for i in imports_of(path)
        if _layer(i.module) not in allowed
    ]
    assert not bad, f"the {own} layer may import only {', '.join(allowed)}:\n" + "\n".join(bad)


@pytest.mark.parametrize(
    "layer, forbidden",
    [
        ("backend", ["graph", "ops", "transforms", "numpy", "tensors", "autograd", "nn"]),
        ("graph", ["ops", "transforms", "numpy", "tensors", "autograd", "nn"]),
        ("ops", ["transforms", "numpy", "tensors", "autograd", "nn"]),
        ("transforms", ["numpy", "scipy", "tensors", "autograd", "nn"]),
        ("numpy", ["tensors", "autograd", "nn", "optim", "utils", "distributed"]),
        ("tensors", ["nn", "optim", "utils", "optimizers", "distributed"]),
        ("autograd", ["optim", "utils", "optimizers", "distributed"]),
    ],
)
def test_the_table_reads_as_design_says(layer, forbidden):
    # Spelled out once more, so an edit to LAYERS cannot quietly allow a wrong arrow.
    own = ORDER.index(LAYER_OF[layer])
    for name in forbidden:
        assert ORDER.index(LAYER_OF[name]) > own, (layer, name)


# --- cycles --------------------------------------------------------------------------


def _runtime_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in _files():
        module = _module_name(path, PACKAGE)
        graph[module] = {
            i.module for i in imports_of(path) if i.scope == "module" and i.module != module
        }
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Return the strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles_inside_funcgrad():
    cycles = _cycles(_runtime_graph())
    assert not cycles, "modules that import each other when loaded:\n" + "\n".join(
        " <-> ".join(c) for c in cycles
    )


# Function-level imports that issue #11 (part 3) is removing or documenting.
PENDING_LOCAL: dict[str, str] = {}


@pytest.mark.parametrize("path", _params(PENDING_LOCAL), ids=_rel)
def test_function_level_imports_break_a_documented_cycle(path):
    bad = [
        f"{_rel(path)}:{i.line} imports {i.module}"
        for i in imports_of(path)
        if i.scope == "function" and not i.note.startswith("# NOTE: cycle")
    ]
    assert not bad, (
        "import at module level, or put `# NOTE: cycle <which one>` on the line above:\n"
        + "\n".join(bad)
    )


# --- shadowing -----------------------------------------------------------------------


def test_no_module_is_shadowed_by_an_attribute_of_its_package():
    for path in _files():
        name = _module_name(path, PACKAGE)
        if name.endswith("__main__"):
            continue  # running it is the demo
        importlib.import_module(name)
    shadowed = []
    for name, module in sorted(sys.modules.items()):
        parent, _, child = name.rpartition(".")
        if not parent.startswith("funcgrad") or module is None:
            continue
        attribute = getattr(sys.modules[parent], child, None)
        if attribute is not module:
            shadowed.append(f"{parent}.{child} is {attribute!r}, not the module")
    assert not shadowed, "rename the module or the attribute:\n" + "\n".join(shadowed)


# --- the checker itself ----------------------------------------------------------------


def test_the_import_parser_sees_violations(tmp_path):
    # Absolute, relative, aliased, function-level and TYPE_CHECKING imports.
    fake = tmp_path / "funcgrad"
    (fake / "ops").mkdir(parents=True)
    (fake / "tensors").mkdir()
    (fake / "errors.py").write_text("")
    (fake / "ops" / "bad.py").write_text(
        "import funcgrad.autograd.function as f\n"
        "from ..transforms import backward\n"
        "from funcgrad import tensors\n"
        "from funcgrad import grad\n"
        "from . import registry\n"
        "from funcgrad.errors import OpError\n"
        "import numpy\n"
        "if TYPE_CHECKING:\n"
        "    from funcgrad.numpy import exp\n"
        "def later():\n"
        "    # NOTE: cycle ops <-> tensors\n"
        "    from funcgrad.tensors.tensor_class import Tensor\n"
    )
    found = imports_of(fake / "ops" / "bad.py", fake)
    assert [(i.module, i.scope) for i in found] == [
        ("funcgrad.autograd.function", "module"),
        ("funcgrad.transforms", "module"),
        ("funcgrad.tensors", "module"),
        ("funcgrad", "module"),
        ("funcgrad.ops", "module"),
        ("funcgrad.errors", "module"),
        ("funcgrad.numpy", "type-checking"),
        ("funcgrad.tensors.tensor_class", "function"),
    ]
    assert found[-1].note == "# NOTE: cycle ops <-> tensors"


def test_the_cycle_finder_finds_cycles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert _cycles(graph) == [["a", "b", "c"]]

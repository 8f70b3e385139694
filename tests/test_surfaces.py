"""The public surfaces follow the primitive records, and the public namespaces hold only the API.

Each primitive declares its names once (`Primitive.names`);
`scripts/generate_surfaces.py` writes the functions and tables from them.
These tests fail when a generated file is stale (it is regenerated in
memory and compared), when a declared name is missing from its surface or
does not apply its primitive, and when a public namespace shows more than
its `__all__` and its public submodules (an import such as `Node`,
`namedtuple` or `annotations` leaking into `dir()`).
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import funcgrad
import funcgrad.autograd
import funcgrad.nn
import funcgrad.nn.functional
import funcgrad.nn.init
import funcgrad.nn.utils
import funcgrad.numpy as fnp
import funcgrad.numpy.linalg
from funcgrad.graph import Node
from funcgrad.ops import registry

ROOT = Path(__file__).resolve().parents[1]


def _load_generator():
    spec = importlib.util.spec_from_file_location(
        "generate_surfaces", ROOT / "scripts" / "generate_surfaces.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


generator = _load_generator()
PRIMITIVES = registry.primitives()
DECLARING = [p for p in PRIMITIVES if p.names != registry.Names()]


# --- the generated files -------------------------------------------------------------


def test_generated_files_are_current():
    rendered = generator.render()
    stale = generator.stale(rendered)
    assert not stale, f"stale generated files {stale}: run python scripts/generate_surfaces.py"


def test_generated_modules_say_they_are_generated():
    for path in (
        generator.NUMPY_OUT,
        generator.LINALG_OUT,
        generator.TORCH_OUT,
        generator.INPLACE_OUT,
    ):
        assert "do not edit" in (ROOT / path).read_text(encoding="utf-8")[:400], path


# --- every declared name is on its surface ------------------------------------------------


def _numpy_function(name: str):
    namespace, _, attr = name.rpartition(".")
    module = fnp.linalg if namespace == "linalg" else fnp
    assert attr in module.__all__, f"funcgrad.numpy.{name} is not in its namespace's __all__"
    return getattr(module, attr)


@pytest.mark.parametrize("prim", DECLARING, ids=str)
def test_declared_names_are_on_their_surfaces(prim):
    names = prim.names
    for name in names.numpy:
        assert callable(_numpy_function(name))
    for name in names.torch:
        assert name in funcgrad.__all__ and callable(getattr(funcgrad, name)), f"funcgrad.{name}"
    for name in names.method + names.inplace:
        assert callable(getattr(funcgrad.Tensor, name, None)), f"Tensor.{name}"
    torch_names = set(names.torch)
    for method in names.method:
        # a method is the PyTorch-style function of its name (or the record's first)
        function = getattr(funcgrad, method if method in torch_names else names.torch[0])
        assert getattr(funcgrad.Tensor, method) is function, f"Tensor.{method}"


def _example(prim):
    args, params = generator.example_args(prim)
    return args, params


GENERATED = generator.surfaces(PRIMITIVES)


@pytest.mark.parametrize(
    "item", GENERATED["numpy"] + GENERATED["numpy.linalg"], ids=lambda i: f"{i.surface}.{i.name}"
)
def test_generated_numpy_functions_apply_their_primitive(item):
    prim = item.prim
    args, params = _example(prim)
    leaves = [funcgrad.leaf(a) for a in args]
    module = fnp.linalg if item.surface == "numpy.linalg" else fnp
    for name in (item.name, *item.aliases):
        out = getattr(module, name)(*leaves, **params)
        assert type(out) is Node and out.prim is prim, name
        assert all(a is b for a, b in zip(out.inputs, leaves, strict=True))
        assert np.array_equal(out.value, prim(*args, **params), equal_nan=True)


@pytest.mark.parametrize("item", GENERATED["torch"], ids=lambda i: i.name)
def test_generated_torch_functions_apply_their_primitive(item):
    prim = item.prim
    args, params = _example(prim)
    tensors = [funcgrad.tensor(a, requires_grad=True) for a in args]
    kwargs = {generator.PARAMS[p].torch: v for p, v in params.items()}
    for name in (item.name, *item.aliases):
        out = getattr(funcgrad, name)(*tensors, **kwargs)
        assert out._node.prim is prim, name
        assert all(i is t._node for i, t in zip(out._node.inputs, tensors, strict=True))


def test_hand_written_functions_are_not_generated():
    for surface, items in GENERATED.items():
        hand = generator.hand_written(surface)
        assert not {n for i in items for n in (i.name, *i.aliases)} & hand, surface


def test_a_new_declaration_reaches_every_surface(monkeypatch):
    # What adding a primitive does: one record, and the generator writes the rest.
    prim = registry.Primitive(
        name="cube_test",
        forward=lambda xp, x: x * x * x,
        vjp=(lambda ct, out, x: ct * 3.0 * x * x,),
        jvp=registry.ELEMENTWISE,
        sample=registry.Sample(lambda g: ((g.array(g.shape(), -2.0, 2.0),), {})),
        doc="x ** 3",
        names=registry.Names(
            numpy="cube", torch="cube", method="cube", inplace="cube_", grad_fn="CubeBackward0"
        ),
    )
    monkeypatch.setattr(prim.forward, "__module__", "funcgrad.ops.elementwise")
    monkeypatch.setattr(funcgrad.ops.elementwise, "cube_test", prim, raising=False)
    monkeypatch.setattr(generator, "_records", lambda: [*PRIMITIVES, prim])
    rendered = generator.render()
    numpy_source = rendered[generator.NUMPY_OUT]
    torch_source = rendered[generator.TORCH_OUT]
    assert "def cube(x):" in numpy_source and "_elementwise.cube_test(x)" in numpy_source
    assert "def cube(input: Tensor, *, out: Tensor | None = None) -> Tensor:" in torch_source
    assert "    cube = cube\n" in torch_source
    assert '    cube_ = _inplace("cube_", cube)\n' in torch_source
    assert (
        "| `cube_test` | `fnp.cube` | `funcgrad.cube` | `cube` | `cube_` | `CubeBackward0` |"
        in (rendered[generator.PRIMITIVES_DOC])
    )
    assert "::: funcgrad.cube\n" in rendered[generator.TENSOR_DOC]
    # PyTorch's torch.cube_ (were it in its namespace) follows the declared in-place method
    assert "def cube_(" not in rendered[generator.INPLACE_OUT]
    from funcgrad.tensors import _torch_names

    monkeypatch.setitem(_torch_names.SCOPE, "torch", _torch_names.SCOPE["torch"] | {"cube_"})
    inplace_source = generator.render()[generator.INPLACE_OUT]
    assert (
        "def cube_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002\n"
        '    """In place: `input.cube_(*args, **kwargs)` (PyTorch\'s `torch.cube_`); returns '
        '`input`."""\n    return _method("cube_", input)(*args, **kwargs)\n' in inplace_source
    )
    assert '    "cube_",\n' in inplace_source


def test_the_inplace_functions_are_torchs_names_of_tensors_inplace_methods():
    # every name of PyTorch's namespace ending in `_` that Tensor has (and no other) is
    # generated, each calling the method of its name
    from funcgrad.tensors import inplace_functions
    from funcgrad.tensors._torch_names import SCOPE

    want = sorted(
        n
        for n in SCOPE["torch"]
        if n.endswith("_") and not n.startswith("_") and hasattr(funcgrad.Tensor, n)
    )
    assert inplace_functions.__all__ == want and len(want) >= 59
    for name in want:
        assert getattr(funcgrad, name) is getattr(inplace_functions, name)


# --- the public namespaces -------------------------------------------------------------------

NAMESPACES = [
    funcgrad,
    fnp,
    funcgrad.numpy.linalg,
    funcgrad.autograd,
    funcgrad.nn,
    funcgrad.nn.functional,
    funcgrad.nn.init,
    funcgrad.nn.utils,
    funcgrad.optim,
    funcgrad.optimizers,
    funcgrad.utils.data,
    funcgrad.misc,
    funcgrad.distributions,
    funcgrad.distributions.constraints,
]


@pytest.mark.parametrize("module", NAMESPACES, ids=lambda m: m.__name__)
def test_public_namespace_is_its_all(module):
    exported = set(module.__all__)
    assert len(exported) == len(module.__all__), f"{module.__name__}.__all__ repeats a name"
    missing = sorted(n for n in exported if not hasattr(module, n))
    assert not missing, f"{module.__name__}.__all__ names what it lacks: {missing}"
    leaked = []
    for name in dir(module):
        if name.startswith("_") or name in exported:
            continue
        value = getattr(module, name)
        if isinstance(value, types.ModuleType) and value.__name__ == f"{module.__name__}.{name}":
            continue  # a submodule of the package (funcgrad.ops, funcgrad.autograd.profiler)
        leaked.append(name)
    assert not leaked, (
        f"{module.__name__} shows names that are not its API: {sorted(leaked)}; import them "
        f"under a private name (`as _name`) or add them to __all__"
    )


@pytest.mark.parametrize("module", NAMESPACES, ids=lambda m: m.__name__)
def test_public_namespace_exports_no_foreign_modules(module):
    for name in module.__all__:
        value = getattr(module, name)
        if isinstance(value, types.ModuleType):
            assert value.__name__.startswith("funcgrad."), f"{module.__name__}.{name}"


def test_generated_modules_are_formatted():
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    paths = [generator.NUMPY_OUT, generator.LINALG_OUT, generator.TORCH_OUT, generator.INPLACE_OUT]
    done = subprocess.run(
        [ruff, "format", "--check", *paths], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr

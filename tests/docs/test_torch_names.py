"""PyTorch's names: the scope file is current, the page lists it, and missing names say so.

`funcgrad/tensors/_torch_names.py` is generated from PyTorch by
`scripts/torch_scope.py`; docs/api/torch-names.md's tables are generated
from it and from funcgrad when the site is built (`torch_names_tables()` of
the site's hook). A name of the scope that funcgrad lacks raises
`NotProvidedError` (an `AttributeError`) where funcgrad looks names up; any
other name a plain `AttributeError`.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

import funcgrad
from funcgrad.errors import NotProvidedError
from funcgrad.tensors import _torch_names
from funcgrad.tensors._torch_names import BY_DESIGN, NAMESPACES, SCOPE
from tests.references import requires

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def hooks():
    return _load("torch_names_hooks", DOCS / "_hooks" / "funcgrad_docs.py")


@pytest.fixture(scope="module")
def tables(hooks):
    return hooks.torch_names_tables()


def test_the_scope_file_is_what_the_script_writes_from_this_pytorch():
    torch = requires("torch")
    if torch.__version__.split("+")[0] != _torch_names.TORCH_VERSION:
        pytest.skip(f"the scope was read from PyTorch {_torch_names.TORCH_VERSION}")
    # in a fresh process: the modules other tests import add names to torch's namespaces
    script = ROOT / "scripts" / "torch_scope.py"
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_page_has_the_placeholder_and_is_in_the_nav():
    assert "<!-- torch-names-table -->" in (DOCS / "api" / "torch-names.md").read_text()
    assert "api/torch-names.md" in (ROOT / "mkdocs.yml").read_text()


def _rows(text: str, namespace: str) -> dict[str, tuple[str, str]]:
    section = text.split(f"## `{namespace}`\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for m in re.finditer(r"^\| `([^`]+)` \| ([^|]+) \| (.*) \|$", section, re.MULTILINE):
        assert m[1] not in rows, f"{namespace}.{m[1]} listed twice"
        rows[m[1]] = (m[2].strip(), m[3].strip())
    return rows


@pytest.mark.parametrize("namespace", list(NAMESPACES))
def test_every_scope_name_is_listed_once_with_what_funcgrad_has(tables, hooks, namespace):
    rows = _rows(tables, namespace)
    assert set(rows) == set(SCOPE[namespace])
    target = hooks.torch_namespace(NAMESPACES[namespace])
    for name, (status, detail) in rows.items():
        has = target is not None and hasattr(target, name)
        assert (status == "provided") == has, f"{namespace}.{name}: {status}"
        if status == "not provided, by design":
            assert detail and name in BY_DESIGN[namespace]


# Where funcgrad raises NotProvidedError for the names it lacks: PyTorch's namespace -> funcgrad's.
LOOKED_UP = {
    "torch": lambda: funcgrad,
    "torch.Tensor": lambda: funcgrad.ones(1),
    "torch.autograd": lambda: funcgrad.autograd,
    "torch.cuda": lambda: funcgrad.cuda,
    "torch.func": lambda: funcgrad.func,
    "torch.random": lambda: funcgrad.random,
    "torch.backends": lambda: funcgrad.backends,
    "torch.serialization": lambda: funcgrad.serialization,
    "torch.utils.checkpoint": lambda: funcgrad.utils.checkpoint,
}


@pytest.mark.parametrize("namespace", list(LOOKED_UP))
def test_missing_names_raise_not_provided_and_hasattr_is_false(namespace):
    obj = LOOKED_UP[namespace]()
    owner = type(obj) if namespace == "torch.Tensor" else obj  # properties may raise on a value
    lacking = [n for n in sorted(SCOPE[namespace]) if not hasattr(owner, n)]
    for name in lacking:
        with pytest.raises(NotProvidedError) as caught:
            getattr(obj, name)
        text = str(caught.value)
        assert f".{name} is not provided" in text
        if name in BY_DESIGN.get(namespace, {}):
            assert "by design" in text
        else:
            assert "not provided yet" in text
        assert getattr(obj, name, "default") == "default"
    with pytest.raises(AttributeError) as caught:
        obj.no_such_name_in_pytorch  # noqa: B018
    assert type(caught.value) is AttributeError


def test_mixed_precision_and_bfloat16_say_they_are_not_provided():
    for name in ("autocast", "bfloat16"):
        assert not hasattr(funcgrad, name)
    with pytest.raises(NotProvidedError, match="mixed precision"):
        funcgrad.autocast  # noqa: B018
    with pytest.raises(NotProvidedError, match="mixed precision"):
        funcgrad.cuda.amp  # noqa: B018
    with pytest.raises(NotProvidedError, match="a dtype NumPy does not have"):
        funcgrad.bfloat16  # noqa: B018
    with pytest.raises(NotProvidedError, match="funcgrad.Tensor.to_sparse is not provided"):
        funcgrad.ones(2).to_sparse  # noqa: B018
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'no_such'"):
        funcgrad.ones(2).no_such  # noqa: B018

"""The generated names page (docs/api/names.md) is complete and agrees with the differential tests.

The page's tables come from `names_tables()` of the site's hook. Every name
of `funcgrad.numpy`'s scope is listed once, with a kind; and a kind is a
claim the differential cases (tests/differential/functional_cases*.py) must
bear out: a name called differentiable has a case that differentiates it, a
name called value-only has no case that does (a zero-gradient name may have
either: its gradient is zero).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from funcgrad.numpy import _scope
from tests.references import requires

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _hooks():
    spec = importlib.util.spec_from_file_location(
        "names_page_hooks", DOCS / "_hooks" / "funcgrad_docs.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tables():
    requires("scipy")
    requires("autograd")
    return _hooks().names_tables()


def _rows(text: str, surface: str) -> dict[str, tuple[str, str]]:
    """`name -> (kind, detail)` of the table under `## \\`surface\\``."""
    section = text.split(f"## `{surface}`\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for m in re.finditer(r"^\| `([^`]+)` \| ([^|]+) \| (.*) \|$", section, re.MULTILINE):
        assert m[1] not in rows, f"{surface}.{m[1]} listed twice"
        rows[m[1]] = (m[2].strip(), m[3].strip())
    return rows


def test_the_page_has_the_placeholder_and_is_in_the_nav():
    assert "<!-- names-table -->" in (DOCS / "api" / "names.md").read_text()
    assert "api/names.md" in (DOCS.parent / "mkdocs.yml").read_text()


def test_every_scope_name_of_funcgrad_numpy_is_listed_once(tables):
    rows = _rows(tables, "funcgrad.numpy")
    assert set(rows) == set(_scope.SCOPE)
    kinds = set(_hooks().KINDS)
    assert {kind for kind, _ in rows.values()} <= kinds
    not_provided = {n for n, (kind, _) in rows.items() if kind == "not provided"}
    assert not_provided == set(_scope.NOT_PROVIDED)


def test_each_surface_of_the_issue_has_a_table(tables):
    for surface in (
        "funcgrad.numpy.linalg",
        "funcgrad.numpy.fft",
        "funcgrad.numpy.random",
        "funcgrad.scipy.special",
        "funcgrad.scipy.stats",
    ):
        assert _rows(tables, surface), surface


def test_the_kinds_agree_with_the_differential_cases(tables):
    from tests.differential.functional_cases import CASES, EXEMPT

    cases: dict[str, list[bool]] = {}
    for c in CASES.values():
        cases.setdefault(c.name, []).append(c.differentiable)
    wrong = []
    for surface, prefix in (("funcgrad.numpy", ""), ("funcgrad.numpy.linalg", "linalg.")):
        for name, (kind, _) in _rows(tables, surface).items():
            flags = cases.get(prefix + name)
            if flags is None or prefix + name in EXEMPT:
                continue
            if kind in ("primitive", "composition") and not any(flags):
                wrong.append(f"{prefix}{name}: listed as {kind}, but no case differentiates it")
            if kind == "value-only" and any(flags):
                wrong.append(f"{prefix}{name}: listed as value-only, but a case differentiates it")
    assert not wrong, "\n".join(wrong)


def test_every_public_tensor_member_has_an_entry():
    """docs/api/tensor.md's generated table lists every public name of Tensor, each with a summary."""
    import funcgrad
    from tests.docs.test_docs import hooks

    assert "<!-- tensor-members -->" in (DOCS / "api" / "tensor.md").read_text(encoding="utf-8")
    rows = hooks.tensor_members()
    public = sorted(n for n in dir(funcgrad.Tensor) if not n.startswith("_"))
    assert [name for name, _, _ in rows] == public
    assert len(public) > 300 and all(summary for _, _, summary in rows)
    table = hooks.tensor_members_table()
    for name in ("backward", "grad", "requires_grad", "exp_", "view", "numpy"):
        assert f"| `{name}` |" in table, name

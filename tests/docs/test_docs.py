"""Every code block of the documentation runs, and the generated parts cannot drift.

Each Markdown page under docs/ is run as one test: its Python blocks and
doctest blocks (also those inside admonitions and tabs) in page order, in one
namespace, then its `<!-- draw: ... -->` diagrams. Sybil does the parsing,
configured by the site's own build hook (docs/_hooks/funcgrad_docs.py), so
the tests run exactly what the build runs. A failure names the page and line.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from tests.references import requires

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _load_hooks():
    spec = importlib.util.spec_from_file_location(
        "funcgrad_docs_hooks", DOCS / "_hooks" / "funcgrad_docs.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hooks = _load_hooks()
PAGES = sorted(p for p in DOCS.rglob("*.md") if "vendor" not in p.parts)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_page_examples_run(page):
    english = page.with_name(page.name.replace(".zh.md", ".md"))
    if (
        english != page
        and english.is_file()
        and hooks.examples_of(page) == hooks.examples_of(english)
    ):
        return  # the same code as the English page, which runs it (the site build runs it once too)
    hooks.run_document(page)


def test_pages_were_found():
    assert len(PAGES) >= 15
    names = {str(p.relative_to(DOCS)) for p in PAGES}
    for required in ("index.md", "getting-started.md", "tutorials/autograd.md", "errors.md"):
        assert required in names


@pytest.mark.parametrize(
    "page",
    [
        "getting-started.md",
        "tutorials/autograd.md",
        "tutorials/transforms.md",
        "tutorials/from-pytorch.md",
        "tutorials/from-jax.md",
    ],
)
def test_tutorial_pages_have_runnable_examples(page):
    document = hooks.make_sybil().parse(DOCS / page)
    assert len(list(document.examples())) >= 1, f"{page} has no executed example"


def test_concept_pages_draw_a_graph():
    for page in sorted((DOCS / "concepts").glob("*.md")):
        if page.name.endswith(".zh.md"):
            continue
        assert hooks.DRAW.search(page.read_text(encoding="utf-8")), f"{page.name} draws no graph"


def test_draw_comments_become_mermaid_blocks():
    page = DOCS / "concepts" / "immutable-graph.md"
    text = page.read_text(encoding="utf-8")

    class _File:
        abs_src_path = str(page)
        src_path = "concepts/immutable-graph.md"

    class _Page:
        file = _File()

    built = hooks.on_page_markdown(text, _Page(), None, None)
    assert not hooks.DRAW.search(built)
    # a drawn block: an optional front-matter config, then the flowchart in its direction
    drawn = re.findall(r"```mermaid\n(?:---\n.*?\n---\n)?flowchart (?:LR|TB)\n", built, re.S)
    assert len(drawn) == len(hooks.DRAW.findall(text))


def test_primitives_table_lists_every_primitive():
    import funcgrad  # noqa: F401
    from funcgrad.ops import registry

    table = hooks.primitives_table()
    rows = [line for line in table.splitlines()[2:]]
    assert [re.match(r"\| `([^`]+)`", row)[1] for row in rows] == [
        p.name for p in registry.primitives()
    ]
    assert "| `exp` | e ** x | — | per input | `ELEMENTWISE` | `ExpBackward0` |" in rows
    assert hooks.PRIMITIVES_TABLE.search(
        (DOCS / "api" / "primitives.md").read_text(encoding="utf-8")
    )


def test_every_error_class_has_a_section_with_the_anchor_its_messages_use():
    import funcgrad.errors as errors

    text = (DOCS / "errors.md").read_text(encoding="utf-8")
    classes = [
        obj
        for obj in vars(errors).values()
        if isinstance(obj, type) and issubclass(obj, errors.FuncgradError)
    ]
    assert len(classes) >= 8
    for cls in classes:
        anchor = cls.__name__.lower()
        assert re.search(rf"^## `?{cls.__name__}`? \{{ ?#{anchor} ?\}}$", text, re.MULTILINE), (
            f"docs/errors.md needs a section '## {cls.__name__} {{ #{anchor} }}'"
        )
        assert (
            f"::: funcgrad.errors.{cls.__name__}" in text or f"::: funcgrad.{cls.__name__}" in text
        )
    # The pointer the messages end with is that anchor of the page on the site.
    assert str(errors.ShapeError("x")).endswith(f"\n(see {errors.DOCS_URL}errors/#shapeerror)")
    site_url = re.search(r"^site_url: (\S+)$", (ROOT / "mkdocs.yml").read_text(), re.MULTILINE)
    assert site_url is not None and site_url[1] == errors.DOCS_URL


def _documented_identifiers() -> set[str]:
    """`::: identifier` directives, and `[](){#identifier}` anchors placed on a directive.

    The anchors name objects that griffe reaches only by their defining module,
    because a submodule has the same name (`funcgrad.vjp` is the function, but
    `funcgrad.transforms.gradients` is also a module).
    """
    found = set()
    for page in [*(DOCS / "api").glob("*.md"), DOCS / "errors.md"]:
        text = page.read_text(encoding="utf-8")
        found.update(re.findall(r"^\s*::: ([\w.]+)", text, re.MULTILINE))
        found.update(re.findall(r"^\[\]\(\)\{#([\w.]+)\}\n::: ", text, re.MULTILINE))
    return found


def test_every_public_name_of_funcgrad_is_in_the_api_reference():
    import funcgrad

    documented = _documented_identifiers()
    api_text = "\n".join(p.read_text(encoding="utf-8") for p in (DOCS / "api").glob("*.md"))
    missing = []
    for name in funcgrad.__all__:
        obj = getattr(funcgrad, name)
        if f"funcgrad.{name}" in documented:
            continue
        if hasattr(obj, "__name__") and f"funcgrad.errors.{name}" in documented:
            continue
        # dtype objects are listed in a table, not rendered from docstrings
        if not callable(obj) and f"`funcgrad.{name}`" in api_text:
            continue
        missing.append(name)
    assert not missing, f"public names missing from docs/api/: {missing}"


@pytest.mark.parametrize("module", ["funcgrad.numpy", "funcgrad.nn", "funcgrad.tree"])
def test_public_modules_are_rendered_whole_or_name_by_name(module):
    documented = _documented_identifiers()
    if module in documented:
        return
    import importlib

    names = importlib.import_module(module).__all__
    missing = [n for n in names if f"{module}.{n}" not in documented]
    assert not missing, f"render {module} whole ('::: {module}') or each of: {missing}"


def test_every_public_name_of_funcgrad_autograd_is_in_the_api_reference():
    import funcgrad.autograd

    documented = _documented_identifiers()
    missing = [n for n in funcgrad.autograd.__all__ if f"funcgrad.autograd.{n}" not in documented]
    assert not missing, f"add '::: funcgrad.autograd.<name>' to docs/api/autograd.md for: {missing}"


def test_directives_do_not_render_a_module_in_place_of_a_function():
    """`::: funcgrad.vjp` would render the module `funcgrad.transforms.gradients` (griffe
    resolves the name to the submodule); such names need the anchor form."""
    griffe = requires("griffe")
    import importlib
    import inspect

    package = griffe.load("funcgrad", search_paths=[str(ROOT)], resolve_aliases=True)
    wrong = []
    for page in [*(DOCS / "api").glob("*.md"), DOCS / "errors.md"]:
        for ident in re.findall(
            r"^::: (funcgrad\.[\w.]+)", page.read_text(encoding="utf-8"), re.MULTILINE
        ):
            module_name, _, attr = ident.rpartition(".")
            runtime = getattr(importlib.import_module(module_name), attr, None)
            if runtime is None or inspect.ismodule(runtime):
                continue
            if package[ident.removeprefix("funcgrad.")].is_module:
                wrong.append(f"{page.name}: {ident}")
    assert not wrong, (
        f"these render a module instead of the object; use the [](){{#...}} form: {wrong}"
    )


def test_blocks_in_tabs_and_admonitions_run_and_failures_name_the_line(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "# A page\n"
        "\n"
        '=== "Tab"\n'
        "\n"
        "    ```python\n"
        "    ran = ['tab']\n"
        "    ```\n"
        "\n"
        '!!! note "An admonition"\n'
        "    ```python\n"
        "    ran.append('admonition')\n"
        "    ```\n"
        "\n"
        "```python\n"
        ">>> ran\n"
        "['tab', 'admonition']\n"
        "```\n"
        "\n"
        '??? example "Collapsed"\n'
        "    ```python\n"
        "    assert ran == [], 'this block fails'\n"
        "    ```\n",
        encoding="utf-8",
    )
    with pytest.raises(AssertionError, match=r"page.md, line 20: the example failed"):
        hooks.run_document(page)


def test_a_page_runs_once_per_session_and_a_failure_is_not_kept(tmp_path, monkeypatch):
    """conftest.py's FUNCGRAD_DOCS_RUNS lets the build and these tests share a page's run."""
    monkeypatch.setenv("FUNCGRAD_DOCS_RUNS", str(tmp_path / "runs"))
    (tmp_path / "runs").mkdir()
    runs = tmp_path / "count"
    page = tmp_path / "page.md"
    page.write_text(
        "```python\n"
        f"count = open({str(runs)!r}, 'a').write('x')\n"
        "import funcgrad as fg\n"
        "y = fg.leaf(2.0) * 3.0\n"
        "```\n"
        "\n"
        "<!-- draw: fg.to_mermaid(y) -->\n",
        encoding="utf-8",
    )
    first = hooks.run_document(page)
    assert first == hooks.run_document(page) and first[0].startswith("flowchart LR")
    assert runs.read_text() == "x"
    page.write_text(page.read_text().replace("* 3.0", "* 3.0\nassert False"), encoding="utf-8")
    for _ in range(2):  # new code runs; its failure is reported each time
        with pytest.raises(AssertionError, match="page.md, line 1: the example failed"):
            hooks.run_document(page)
    assert runs.read_text() == "xxx"

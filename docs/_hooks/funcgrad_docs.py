"""MkDocs hooks of the funcgrad site (listed under `hooks:` in mkdocs.yml).

Two placeholders in a page's Markdown are filled in at build time, so what
the site shows is computed by the library itself and cannot drift from it:

* `<!-- draw: EXPR -->` becomes a Mermaid diagram. The page's Python code
  blocks are run first, in order, with Sybil (exactly as the doc tests run
  them, see `tests/docs/`), and EXPR, a call such as
  `fg.to_mermaid(y, names={x: "x"})`, is evaluated in their namespace.
* `<!-- plot: STATEMENTS -->` becomes a picture: STATEMENTS run in the
  page's namespace with `plt` (matplotlib.pyplot, on a new figure) after the
  code blocks before it, and the figure is put in the page as an SVG. Without
  matplotlib the page says that the plot was skipped and why.
* `<!-- include: FILE#Heading -->` becomes the section `## Heading` of FILE
  (a path from the repository root; without `#Heading`, the whole file less
  its title), so the site and the repository show one text (the README's
  benchmark table, CHANGELOG.md).
* `<!-- tensor-members -->` becomes the table of every public attribute and
  method of `funcgrad.Tensor`, read from the class at build time (methods
  are installed at import, which static analysis does not see), each with
  the first line of its docstring (`tensor_members_table`).
* `<!-- primitives-table -->` becomes the table of every primitive in the
  registry (name, one-line doc, parameters, the forms of its rules).
* `<!-- names-table -->` becomes, for each NumPy and SciPy namespace funcgrad
  mirrors, the table of its names: differentiable (by a primitive or a
  composition), zero gradient, value-only, NumPy's own object, or not
  provided and why (`names_catalog`).
* `<!-- torch-names-table -->` becomes, for each PyTorch namespace in the
  scope of `funcgrad/tensors/_torch_names.py` (read from PyTorch by
  `scripts/torch_scope.py`), the table of its names: provided by funcgrad,
  not provided yet, or not provided by design and why (`torch_names_tables`).

The same module gives the doc tests their Sybil configuration
(`make_sybil`), so pages are tested and built by one set of parsers.

The build fails if a file the site serves itself (`VENDORED`: Mermaid,
KaTeX) is missing, since a page would then render raw diagrams and math.
"""

from __future__ import annotations

import base64
import doctest
import hashlib
import html
import json
import os
import re
import sys
from pathlib import Path

# The repository root, so the hook finds funcgrad without an install too.
ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DRAW = re.compile(r"^(?P<indent>[ \t]*)<!--\s*draw:\s*(?P<expr>.+?)\s*-->[ \t]*$", re.MULTILINE)
PLOT = re.compile(r"^(?P<indent>[ \t]*)<!--\s*plot:\s*(?P<code>.+?)\s*-->[ \t]*$", re.MULTILINE)
INCLUDE = re.compile(
    r"^<!--\s*include:\s*(?P<path>[^#\s]+)(?:#(?P<heading>[^>]+?))?\s*-->[ \t]*$", re.MULTILINE
)
TENSOR_MEMBERS = re.compile(r"^<!--\s*tensor-members\s*-->[ \t]*$", re.MULTILINE)
PRIMITIVES_TABLE = re.compile(r"^<!--\s*primitives-table\s*-->[ \t]*$", re.MULTILINE)
NAMES_TABLE = re.compile(r"^<!--\s*names-table\s*-->[ \t]*$", re.MULTILINE)
TORCH_NAMES_TABLE = re.compile(r"^<!--\s*torch-names-table\s*-->[ \t]*$", re.MULTILINE)
DOCTEST_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
RUNS = "FUNCGRAD_DOCS_RUNS"  # a folder where run_document keeps what pages gave (see there)
# Drawn diagrams keep each label on one line (Mermaid wraps at 200 px otherwise).
MERMAID_CONFIG = "---\nconfig:\n  flowchart:\n    wrappingWidth: 1000\n---"
# Served by the site itself (scripts/fetch_doc_assets.sh updates them), relative to docs/.
VENDORED = (
    "assets/vendor/mermaid/mermaid.min.js",
    "assets/vendor/mermaid/LICENSE",
    "assets/vendor/katex/katex.min.js",
    "assets/vendor/katex/katex.min.css",
    "assets/vendor/katex/auto-render.min.js",
    "assets/vendor/katex/LICENSE",
    "assets/vendor/katex/fonts/KaTeX_Main-Regular.woff2",
)


# --- running a page's examples (shared with tests/docs) -------------------------


class DrawParser:
    """Sybil parser for `<!-- draw: EXPR -->`: evaluates EXPR, which must give Mermaid text.

    The result is kept in the document's namespace under `__diagrams__`,
    keyed by the position of the comment, for the build to pick up.
    """

    def __call__(self, document):
        from sybil import Region

        for m in DRAW.finditer(document.text):
            yield Region(m.start(), m.end(), m["expr"], self.evaluate)

    @staticmethod
    def evaluate(example):
        value = eval(example.parsed, example.namespace)  # noqa: S307 (the page's own code)
        if not isinstance(value, str) or not value.startswith("flowchart"):
            return f"draw: {example.parsed} gave {type(value).__name__}, not Mermaid flowchart text"
        example.namespace.setdefault("__diagrams__", {})[example.start] = value
        return None


class PlotParser:
    """Sybil parser for `<!-- plot: STATEMENTS -->`: draws a matplotlib figure, kept as SVG.

    The SVG (or, without matplotlib, a note saying the plot was skipped) is
    kept in the document's namespace under `__plots__`, keyed by position.
    """

    def __call__(self, document):
        from sybil import Region

        for m in PLOT.finditer(document.text):
            yield Region(m.start(), m.end(), m["code"], self.evaluate)

    @staticmethod
    def evaluate(example):
        plots = example.namespace.setdefault("__plots__", {})
        try:
            import matplotlib
        except ImportError:
            plots[example.start] = None
            return None
        import io

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        plt.rcParams["svg.hashsalt"] = "funcgrad"  # the same SVG on every build
        fig = plt.figure(figsize=(6, 3.2), facecolor="white")  # readable in both palettes
        try:
            exec(example.parsed, {**example.namespace, "plt": plt})  # noqa: S102 (the page's own code)
            fig.tight_layout()
            svg = io.StringIO()
            fig.savefig(svg, format="svg", metadata={"Date": None})
        finally:
            plt.close(fig)
        plots[example.start] = svg.getvalue()
        return None


def make_sybil():
    """Return the Sybil that runs a page: Python blocks, doctest blocks, skips, drawings."""
    from sybil import Sybil
    from sybil.parsers.markdown import PythonCodeBlockParser, SkipParser

    return Sybil(
        parsers=[
            PythonCodeBlockParser(doctest_optionflags=DOCTEST_FLAGS),
            SkipParser(),
            DrawParser(),
            PlotParser(),
        ],
        patterns=["*.md"],
    )


def run_document(path: Path) -> list[str]:
    """Run every example of a Markdown page in order; return its diagrams in page order.

    Its plots (SVG text, or None where matplotlib is missing) are in
    `PLOTS[str(path)]`, in page order.

    Where the environment names a folder in `FUNCGRAD_DOCS_RUNS` (tests/docs/conftest.py
    does, for one test session), the results are kept there by the page's code, and a
    page whose code already ran without failing is not run again: the site build (a
    separate process) and the doc tests then run each page once between them.

    Raises:
        AssertionError: naming the page and line of the first example that
            fails (with the exception or the doctest difference).
    """
    document = make_sybil().parse(Path(path))
    examples = list(document.examples())
    runs = os.environ.get(RUNS)
    if runs:  # a page with this code already ran in this test session
        code = "\0".join(str(example.parsed) for example in examples)
        saved = Path(runs) / (hashlib.sha256(code.encode()).hexdigest() + ".json")
        if saved.is_file():
            result = json.loads(saved.read_text(encoding="utf-8"))
            PLOTS[str(path)] = result["plots"]
            return result["diagrams"]
    for example in examples:
        try:
            example.evaluate()
        except Exception as e:
            raise AssertionError(
                f"{path}, line {example.line}: the example failed:\n{type(e).__name__}: {e}"
            ) from e
    diagrams = document.namespace.get("__diagrams__", {})
    plots = document.namespace.get("__plots__", {})
    PLOTS[str(path)] = [plots[k] for k in sorted(plots)]
    result = {"diagrams": [diagrams[k] for k in sorted(diagrams)], "plots": PLOTS[str(path)]}
    if runs:
        partial = saved.with_suffix(f".{os.getpid()}")
        partial.write_text(json.dumps(result), encoding="utf-8")
        partial.replace(saved)
    return result["diagrams"]


PLOTS: dict[str, list[str | None]] = {}


# --- included files ---------------------------------------------------------------


def included(path: str, heading: str | None) -> str:
    """The text of `<!-- include: path#heading -->`: a `## heading` section, or the file less its title."""
    text = (ROOT / path).read_text(encoding="utf-8")
    if heading is None:
        return text.split("\n", 1)[1] if text.startswith("# ") else text
    m = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    if m is None:
        raise RuntimeError(f"include: {path} has no section '## {heading}'")
    return m.group(1).strip() + "\n"


# --- every member of Tensor ---------------------------------------------------------


def tensor_members() -> list[tuple[str, str, str]]:
    """`(name, kind, summary)` of every public attribute of `funcgrad.Tensor`, sorted by name."""
    import inspect

    import funcgrad

    rows = []
    for name in sorted(n for n in dir(funcgrad.Tensor) if not n.startswith("_")):
        member = inspect.getattr_static(funcgrad.Tensor, name)
        if isinstance(member, property):
            kind, doc = "property", member.__doc__ or (member.fget and member.fget.__doc__)
        elif isinstance(member, (staticmethod, classmethod)):
            kind, doc = type(member).__name__, member.__func__.__doc__
        elif callable(member):
            kind, doc = "method", member.__doc__
        else:
            kind, doc = "attribute", None
        summary = inspect.cleandoc(doc).split("\n\n")[0].replace("\n", " ") if doc else ""
        if not summary:
            summary = f"As PyTorch's `torch.Tensor.{name}`."
        rows.append((name, kind, summary))
    return rows


def tensor_members_table() -> str:
    """Return the Markdown table of `tensor_members()`."""
    rows = tensor_members()
    out = [f"{len(rows)} public names.", "", "| name | kind | what it does |", "|---|---|---|"]
    for name, kind, summary in rows:
        summary = html.escape(summary, quote=False).replace("|", "\\|")
        out.append(f"| `{name}` | {kind} | {summary} |")
    return "\n".join(out)


# --- the primitives table --------------------------------------------------------


def _rule_form(rule, kind: str) -> str:
    from funcgrad.ops import registry

    if rule is registry.LINEAR:
        return "`LINEAR`"
    if rule is registry.ELEMENTWISE:
        return "`ELEMENTWISE`"
    if type(rule) is tuple:
        if any(r is None for r in rule):
            none = ", ".join(str(i) for i, r in enumerate(rule) if r is None)
            return f"per input (none for input {none})"
        return "per input"
    return "one rule, all inputs" if kind == "vjp" else "one rule, all tangents"


def primitives_table() -> str:
    """Return the Markdown table of every registered primitive, in registration order."""
    import funcgrad  # noqa: F401  (registers every primitive)
    from funcgrad.ops import registry

    rows = [
        "| primitive | computes | parameters | VJP rule | JVP rule | `grad_fn` |",
        "|---|---|---|---|---|---|",
    ]
    for prim in registry.primitives():
        params = ", ".join(f"`{p}`" for p in prim.params) or "—"
        doc = html.escape(prim.doc).replace("|", "\\|") or "—"
        grad_fn = grad_fn_name(prim)
        grad_fn = f"`{grad_fn}`" if " " not in grad_fn else html.escape(grad_fn).replace("|", "\\|")
        rows.append(
            f"| `{prim.name}` | {doc} | {params} | {_rule_form(prim.vjp, 'vjp')} "
            f"| {_rule_form(prim.jvp, 'jvp')} | {grad_fn} |"
        )
    return "\n".join(rows)


def grad_fn_name(prim) -> str:
    """The imperative layer's `grad_fn` name of a primitive, as its record declares it.

    Where PyTorch's name depends on how the operation was called, this is the
    first line of the record's rule (`PowBackward0 for x ** number, ...`).
    """
    from funcgrad.tensors.grad_fn import declared_name

    return declared_name(prim)


# --- the names page ---------------------------------------------------------------

# What a user gets from each kind of name, in the order the tables list them.
KINDS = {
    "primitive": "differentiable: applies one primitive (its VJP and JVP rules)",
    "composition": "differentiable: a composition of primitives",
    "zero gradient": "floats with a zero derivative: piecewise constant, or constant",
    "value-only": "an integer, boolean, shape or text result, read from values: no gradient",
    "random": "draws from funcgrad's generators",
    "namespace": "a namespace, listed on its own",
    "object": "NumPy's own constant, dtype or class",
    "not provided": "not provided: the name raises NotProvidedError",
}


def _public(module) -> set[str]:
    return {n for n in dir(module) if not n.startswith("_")}


def _surfaces():
    """`(title, funcgrad module or None, scope, not-provided reasons)` of each mirrored namespace.

    The scope of `funcgrad.numpy` is issue #13's (`funcgrad/numpy/_scope.py`:
    jax.numpy and autograd.numpy); of a submodule, NumPy's own submodule; of
    `funcgrad.scipy`'s, what HIPS autograd's `autograd.scipy` wraps from
    SciPy, with what funcgrad adds.
    """
    import importlib

    import funcgrad.numpy as fnp
    from funcgrad.numpy import _scope

    reasons = dict(getattr(_scope, "NOT_PROVIDED_REASONS", {}))
    yield "funcgrad.numpy", fnp, set(_scope.SCOPE), reasons
    for sub in ("linalg", "fft", "random"):
        numpy_module = importlib.import_module(f"numpy.{sub}")
        scope = {n for n in _public(numpy_module) if n not in ("test", "mtrand", "bit_generator")}
        module = getattr(fnp, sub, None)
        yield f"funcgrad.numpy.{sub}", module, scope | (_public(module) if module else set()), {}
    for sub in ("special", "stats", "linalg", "signal", "integrate"):
        autograd_module = importlib.import_module(f"autograd.scipy.{sub}")
        scipy_module = importlib.import_module(f"scipy.{sub}")
        scope = {n for n in _public(autograd_module) if hasattr(scipy_module, n)}
        try:
            module = importlib.import_module(f"funcgrad.scipy.{sub}")
        except ImportError:
            module = None
        yield f"funcgrad.scipy.{sub}", module, scope | (_public(module) if module else set()), {}


def name_kind(module, name: str, surface: str) -> tuple[str, str]:
    """Return `(kind, detail)` of `surface.name`: a key of `KINDS` and what to add."""
    import types

    import numpy as np

    from funcgrad.numpy._kinds import kind_of
    from funcgrad.ops import registry

    missing = object()
    obj = getattr(module, name, missing) if module is not None else missing
    if obj is missing:
        return "not provided", "not provided yet (issue #13)"
    if isinstance(obj, types.ModuleType) and surface.endswith(".stats"):
        functions = sorted(n for n in _public(obj) if callable(getattr(obj, n)))
        return "composition", "distribution: " + ", ".join(f"`{n}`" for n in functions)
    if isinstance(obj, types.ModuleType):
        return "namespace", ""
    if isinstance(obj, type) or not callable(obj):
        return "object", ""
    prefix = surface.split(".", 2)[2] + "." if surface.count(".") > 1 else ""
    declared = f"{prefix}{name}"
    for prim in registry.primitives():
        if declared in prim.names.numpy or declared in prim.names.scipy:
            return "primitive", f"`{prim.name}`"
    kind = kind_of(obj)
    if kind is not None:
        return kind, ""
    if surface.endswith(".random"):
        return "random", ""
    if obj is getattr(np, name, object()):
        return "value-only", "NumPy's own function"
    return "composition", ""


def names_tables() -> str:
    """Return the Markdown of the names page: one table per mirrored namespace."""
    import funcgrad  # noqa: F401  (registers every primitive)

    order = list(KINDS)
    out = []
    for surface, module, scope, reasons in _surfaces():
        rows = []
        for name in sorted(scope):
            kind, detail = name_kind(module, name, surface)
            if kind == "not provided" and name in reasons:
                detail = reasons[name]
            rows.append((order.index(kind), name, kind, detail))
        counts = ", ".join(
            f"{sum(r[2] == k for r in rows)} {k}" for k in order if any(r[2] == k for r in rows)
        )
        out += [f"## `{surface}`", "", f"{len(rows)} names: {counts}.", ""]
        out += ["| name | kind | detail |", "|---|---|---|"]
        for _, name, kind, detail in sorted(rows):
            detail = html.escape(detail).replace("|", "\\|")
            out.append(f"| `{name}` | {kind} | {detail} |")
        out.append("")
    return "\n".join(out)


# --- the torch names page ---------------------------------------------------------

TORCH_STATUSES = {
    "provided": "funcgrad has it, under the same name",
    "not provided yet": "looking it up raises NotProvidedError (an AttributeError)",
    "not provided, by design": "looking it up raises NotProvidedError, saying why",
}


def torch_namespace(where: str):
    """The funcgrad object of a PyTorch namespace (`'funcgrad.Tensor'`, `'funcgrad.cuda'`), or None."""
    import importlib

    import funcgrad

    if where == "funcgrad.Tensor":
        return funcgrad.Tensor
    try:
        return importlib.import_module(where)
    except ImportError:
        return None


def torch_name_status(target, namespace: str, name: str) -> tuple[str, str]:
    """Return `(status, detail)` of `namespace.name`: a key of `TORCH_STATUSES` and the reason."""
    from funcgrad.tensors._torch_names import BY_DESIGN

    if target is not None and hasattr(target, name):
        return "provided", ""
    reason = BY_DESIGN.get(namespace, {}).get(name)
    if reason is not None:
        return "not provided, by design", reason
    return "not provided yet", ""


def torch_names_tables() -> str:
    """Return the Markdown of the torch names page: one table per PyTorch namespace."""
    from funcgrad.tensors._torch_names import NAMESPACES, SCOPE

    order = list(TORCH_STATUSES)
    # every namespace imported first: importing a submodule makes it an attribute of its package
    targets = {namespace: torch_namespace(where) for namespace, where in NAMESPACES.items()}
    out = []
    for namespace, where in NAMESPACES.items():
        target = targets[namespace]
        rows = []
        for name in sorted(SCOPE[namespace]):
            status, detail = torch_name_status(target, namespace, name)
            rows.append((order.index(status), name, status, detail))
        counts = ", ".join(
            f"{sum(r[2] == k for r in rows)} {k}" for k in order if any(r[2] == k for r in rows)
        )
        home = f"`{where}`" if target is not None else f"`{where}` (not there yet)"
        out += [f"## `{namespace}`", "", f"In funcgrad: {home}. {len(rows)} names: {counts}.", ""]
        out += ["| name | status | why |", "|---|---|---|"]
        for _, name, status, detail in sorted(rows):
            detail = html.escape(detail).replace("|", "\\|")
            out.append(f"| `{name}` | {status} | {detail} |")
        out.append("")
    return "\n".join(out)


# --- MkDocs events -----------------------------------------------------------------

_CACHE: dict[tuple[str, ...], tuple[list[str], list[str | None]]] = {}


def examples_of(path: Path) -> tuple[str, ...]:
    """The source of every example of a page, in order: a translation with the same code has the same."""
    return tuple(str(example.parsed) for example in make_sybil().parse(Path(path)).examples())


def on_config(config):
    """Fail the build when a vendored file is missing: pages would show raw diagrams and math."""
    from mkdocs.exceptions import PluginError

    docs = Path(config["docs_dir"])
    missing = [name for name in VENDORED if not (docs / name).is_file()]
    if missing:
        raise PluginError(
            f"funcgrad_docs: missing {', '.join(missing)} under {docs}; "
            "restore docs/assets/vendor/ from git (scripts/fetch_doc_assets.sh --force refetches)"
        )
    return config


def _diagrams_of(path: str) -> list[str]:
    # keyed by the code, so a translated page with the same code is run once for both languages
    key = examples_of(Path(path))
    if key not in _CACHE:
        _CACHE[key] = (run_document(Path(path)), PLOTS[path])
    diagrams, PLOTS[path] = _CACHE[key]
    return diagrams


def on_page_markdown(markdown: str, page, config, files) -> str:
    markdown = INCLUDE.sub(lambda m: included(m["path"], m["heading"]), markdown)
    if TENSOR_MEMBERS.search(markdown):
        markdown = TENSOR_MEMBERS.sub(lambda m: tensor_members_table(), markdown)
    if PRIMITIVES_TABLE.search(markdown):
        markdown = PRIMITIVES_TABLE.sub(lambda m: primitives_table(), markdown)
    if NAMES_TABLE.search(markdown):
        markdown = NAMES_TABLE.sub(lambda m: names_tables(), markdown)
    if TORCH_NAMES_TABLE.search(markdown):
        markdown = TORCH_NAMES_TABLE.sub(lambda m: torch_names_tables(), markdown)
    if DRAW.search(markdown) or PLOT.search(markdown):
        diagrams = iter(_diagrams_of(page.file.abs_src_path))
        plots = iter(PLOTS[page.file.abs_src_path])

        def replace(m: re.Match) -> str:
            indent = m["indent"]
            try:
                text = next(diagrams)
            except StopIteration:
                raise RuntimeError(
                    f"{page.file.src_path}: more draw comments than diagrams"
                ) from None
            body = "\n".join(indent + line for line in f"{MERMAID_CONFIG}\n{text}".splitlines())
            caption = (
                f'{indent}<p class="fg-caption">Drawn by <code>{html.escape(m["expr"])}</code></p>'
            )
            return f"{indent}```mermaid\n{body}\n{indent}```\n\n{caption}"

        def plot(m: re.Match) -> str:
            svg = next(plots)
            if svg is None:
                return (
                    f'{m["indent"]}<p class="fg-caption">(A plot is drawn here when '
                    "matplotlib is installed where the site is built; it was not.)</p>"
                )
            data = base64.b64encode(svg.encode()).decode()
            return f'{m["indent"]}<img class="fg-plot" alt="plot" src="data:image/svg+xml;base64,{data}">'

        markdown = DRAW.sub(replace, markdown)
        markdown = PLOT.sub(plot, markdown)
    return markdown

"""Write `funcgrad/numpy/_scope.py`: the names `funcgrad.numpy` owes its users (issue #13).

The scope is the union of the public names of `jax.numpy` and of
`autograd.numpy` (HIPS autograd), less the exclusions below. `jax.numpy`'s
names are read statically from a JAX wheel (its `jax/numpy/__init__.py`,
parsed with `ast`: jaxlib need not be installed); `autograd.numpy`'s are its
`dir()`. The script also records which scope names `funcgrad.numpy` does
not provide yet (`NOT_PROVIDED`): those raise `funcgrad.errors.NotProvidedError`,
and `tests/numpy/test_scope.py` checks the list against the namespace, so
the list is issue #13's to-do. Run it again after adding names:

    python scripts/numpy_scope.py [path/to/jax-*.whl]

Without a wheel argument the JAX names already in `_scope.py` are kept.
"""

from __future__ import annotations

import ast
import sys
import textwrap
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "funcgrad" / "numpy" / "_scope.py"

# autograd.numpy copies the whole NumPy namespace (`wrap_namespace`), so its dir() also holds
# autograd's own machinery and the NumPy names issue #13 puts outside the scope ("nditer,
# memmap, I/O, char, ..."). A name of jax.numpy is never excluded.
EXCLUDED: dict[str, str] = {
    **dict.fromkeys(
        "Box array_from_args builtins c_class concatenate_args custom_where make_diagonal "
        "metadata notrace_functions notrace_primitive numpy_boxes numpy_jvps numpy_version "
        "numpy_vjps numpy_vspaces numpy_wrapper parse_einsum_input primitive r_class warnings "
        "wrap_if_boxes_inside wrap_intdtype wrap_namespace".split(),
        "autograd's own machinery, not NumPy's API",
    ),
    **dict.fromkeys(
        "nditer nested_iters flatiter ndenumerate memmap".split(),
        "iterators over and memory maps of NumPy buffers",
    ),
    **dict.fromkeys(
        "loadtxt savetxt genfromtxt fromregex savez_compressed".split(), "file input and output"
    ),
    **dict.fromkeys(
        "busday_count busday_offset busdaycalendar datetime64 timedelta64 datetime_as_string "
        "datetime_data is_busday isnat".split(),
        "dates and times",
    ),
    **dict.fromkeys(
        "matrix asmatrix bmat recarray record str_ bytes_ void".split(),
        "matrix, record and string array types",
    ),
    **dict.fromkeys(
        "float128 complex256".split(),
        "platform-dependent names of longdouble and clongdouble (which are in the scope)",
    ),
    **dict.fromkeys(
        "show_config show_runtime get_include info test setbufsize getbufsize seterrcall "
        "geterrcall".split(),
        "NumPy's installation and configuration",
    ),
}


# Names of the scope that funcgrad.numpy leaves out by design, and why: looking one up raises
# `NotProvidedError` with this reason. They stay in `NOT_PROVIDED`.
_ML_DTYPES = (
    "a dtype NumPy does not have: jax.numpy takes it from the ml_dtypes package, and "
    "funcgrad adds no dependency for it; use float16, float32 or an integer dtype of NumPy"
)
NOT_PROVIDED_REASONS: dict[str, str] = dict.fromkeys(
    "bfloat16 float8_e3m4 float8_e4m3 float8_e4m3b11fnuz float8_e4m3fn float8_e4m3fnuz "
    "float8_e5m2 float8_e5m2fnuz int2 int4 uint2 uint4".split(),
    _ML_DTYPES,
)


def jax_numpy_names(wheel: Path) -> set[str]:
    """Return the public names `jax/numpy/__init__.py` of a JAX wheel binds (read, not imported)."""
    with zipfile.ZipFile(wheel) as z:
        source = z.read("jax/numpy/__init__.py").decode("utf-8")
    names: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, ast.Assign):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Delete):
                names.difference_update(t.id for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, (ast.If, ast.Try)):
                visit(node.body)
                visit(node.orelse)
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)
                visit(getattr(node, "finalbody", []))

    visit(ast.parse(source).body)
    return {n for n in names if not n.startswith("_")}


def autograd_numpy_names() -> set[str]:
    """Return the public names of `autograd.numpy` (HIPS autograd must be installed)."""
    import autograd.numpy

    return {n for n in dir(autograd.numpy) if not n.startswith("_")}


def _q(text: str) -> str:
    """Return `text` as a double-quoted Python string literal (as `ruff format` writes it)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _words(names: set[str]) -> str:
    return "\n".join(textwrap.wrap(" ".join(sorted(names)), 96))


def render(jax: set[str], autograd: set[str], provided: set[str]) -> str:
    """Return the text of `_scope.py`."""
    excluded = {n: r for n, r in EXCLUDED.items() if n in autograd and n not in jax}
    scope = (jax | autograd) - set(excluded)
    missing = scope - provided
    reasons = "\n".join(f"    {_q(n)}: {_q(r)}," for n, r in sorted(excluded.items()))
    by_design = "\n".join(
        f"    {_q(n)}: {_q(r)}," for n, r in sorted(NOT_PROVIDED_REASONS.items()) if n in missing
    )
    return f'''"""The names `funcgrad.numpy` owes its users, and those it does not provide yet (issue #13).

Generated by scripts/numpy_scope.py (do not edit; run the script): the public
names of `jax.numpy` (JAX 0.4.38) and of `autograd.numpy` (HIPS autograd),
less `EXCLUDED`. A name of `NOT_PROVIDED` raises
`funcgrad.errors.NotProvidedError` when looked up on `funcgrad.numpy`.
"""

JAX_NUMPY = frozenset(
    """
{_words(jax)}
""".split()
)

AUTOGRAD_NUMPY = frozenset(
    """
{_words(autograd)}
""".split()
)

# autograd.numpy names outside the scope, and why.
EXCLUDED = {{
{reasons}
}}

SCOPE = (JAX_NUMPY | AUTOGRAD_NUMPY) - EXCLUDED.keys()

# The scope's names funcgrad.numpy does not have: issue #13's to-do ({len(missing)} names),
# and those left out by design (`NOT_PROVIDED_REASONS`).
NOT_PROVIDED = frozenset(
    """
{_words(missing)}
""".split()
)

# The names of NOT_PROVIDED left out by design, and why (the NotProvidedError message says it).
NOT_PROVIDED_REASONS = {{
{by_design}
}}
'''


def main(argv: list[str]) -> None:
    if argv:
        jax = jax_numpy_names(Path(argv[0]))
    else:
        from funcgrad.numpy import _scope

        jax = set(_scope.JAX_NUMPY)
    import funcgrad.numpy

    provided = set(vars(funcgrad.numpy)) - {"__getattr__"}
    OUT.write_text(render(jax, autograd_numpy_names(), provided), encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main(sys.argv[1:])

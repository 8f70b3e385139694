"""The "Coming from PyTorch" page lists every deliberate difference the fuzzers allow.

The differential fuzzers keep their allowed differences in one table each:
`DIFFERENCES` in `tests/differential/torch_differences.py` (the Tensor layer
against PyTorch) and in `tests/differential/functional_differences.py` (the
functional API against HIPS autograd). Each entry belongs to an item of
`docs/tutorials/from-pytorch.md`, a heading with a stable anchor
(`#### ... { #diff-... }`); several entries with one reason share an item.
These tests fail when a table gains an entry that no item covers, when an
item disappears, or when the Chinese page lacks an item of the English one.
docs/errors.md's table of exception classes is checked against the classes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.differential import functional_differences, torch_differences

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGE = DOCS / "tutorials" / "from-pytorch.md"
PAGE_ZH = DOCS / "tutorials" / "from-pytorch.zh.md"
ERRORS = DOCS / "errors.md"

ANCHOR = re.compile(r"^#{2,4} .*\{ #(diff-[a-z0-9-]+) \}$", re.MULTILINE)

# Each key of torch_differences.DIFFERENCES -> the anchor of its item.
TORCH_ITEMS = {
    torch_differences.GUARD: "diff-nan-guard",
    "Tensor.__rmatmul__": "diff-numpy-matmul",
    "torch.var": "diff-var-one-element",
    "Tensor.var": "diff-var-one-element",
    "torch.std": "diff-var-one-element",
    "Tensor.std": "diff-var-one-element",
    "Tensor.expand": "diff-expand-leading-minus-one",
    "torch.logsumexp": "diff-logsumexp-empty-dim",
    "Tensor.logsumexp": "diff-logsumexp-empty-dim",
    **{
        name: "diff-pow-edges"
        for name in (
            "torch.pow",
            "Tensor.pow",
            "Tensor.pow_",
            "Tensor.__pow__",
            "Tensor.__ipow__",
            "Tensor.__rpow__",
        )
    },
}

# Entries of functional_differences.DIFFERENCES that are funcgrad's choices -> their item.
# Every other entry is HIPS autograd's own gap (wrong, or no rule; its reason says so),
# compared with central differences instead: those share the item "diff-hips-autograd".
FUNCTIONAL_ITEMS = {
    ("clip", "reference"): "diff-hips-autograd",
}
FUNCTIONAL_NAN_ITEM = "diff-nan-guard"  # kind "nan": the NaN guard, each function named
AUTOGRAD_GAP_ITEM = "diff-hips-autograd"


def _sections(page: Path) -> dict[str, str]:
    """Return each `diff-...` anchor of a page with the text of its item (up to the next heading)."""
    text = page.read_text(encoding="utf-8")
    found = list(ANCHOR.finditer(text))
    sections = {}
    for m, following in zip(found, [*found[1:], None], strict=True):
        end = following.start() if following else len(text)
        nxt = re.search(r"^#{1,4} ", text[m.end() : end], re.MULTILINE)
        sections[m[1]] = text[m.end() : m.end() + nxt.start()] if nxt else text[m.end() : end]
    return sections


def _functional_item(key: tuple[str, str]) -> str:
    if key in FUNCTIONAL_ITEMS:
        return FUNCTIONAL_ITEMS[key]
    case, kind = key
    if kind == "nan":
        return FUNCTIONAL_NAN_ITEM
    reason = functional_differences.DIFFERENCES[key]
    assert kind in ("fd", "fd2", "reference") and re.match(r"(as \w+: )?autograd", reason), (
        f"functional DIFFERENCES entry {key!r} is not HIPS autograd's own gap (its reason "
        f"does not start with 'autograd' or 'as <name>: autograd': {reason!r}): give it an item on "
        f"docs/tutorials/from-pytorch.md (and the .zh.md page) and map it in FUNCTIONAL_ITEMS"
    )
    return AUTOGRAD_GAP_ITEM


def test_every_torch_difference_has_an_item():
    sections = _sections(PAGE)
    missing = sorted(set(torch_differences.DIFFERENCES) - set(TORCH_ITEMS))
    assert not missing, (
        f"torch DIFFERENCES entries without an item: {missing}. Describe each on "
        f"docs/tutorials/from-pytorch.md and its .zh.md twin (what PyTorch does, what funcgrad "
        f"does, why) under a heading '#### ... {{ #diff-... }}', and add it to TORCH_ITEMS here"
    )
    stale = sorted(set(TORCH_ITEMS) - set(torch_differences.DIFFERENCES))
    assert not stale, f"TORCH_ITEMS names entries the table no longer has: {stale}"
    for key, anchor in TORCH_ITEMS.items():
        assert anchor in sections, f"{key!r}: from-pytorch.md has no item {{ #{anchor} }}"


def test_every_functional_difference_has_an_item():
    sections = _sections(PAGE)
    stale = sorted(set(FUNCTIONAL_ITEMS) - set(functional_differences.DIFFERENCES))
    assert not stale, f"FUNCTIONAL_ITEMS names entries the table no longer has: {stale}"
    for key in functional_differences.DIFFERENCES:
        anchor = _functional_item(key)
        assert anchor in sections, f"{key!r}: from-pytorch.md has no item {{ #{anchor} }}"
        case, kind = key
        if kind in ("nan", "raises") or key in FUNCTIONAL_ITEMS:
            # A choice of funcgrad's: its item names the function.
            name = case.split("[")[0].rsplit(".", 1)[-1]
            assert re.search(rf"`[^`]*\b{re.escape(name)}\b[^`]*`", sections[anchor]), (
                f"{key!r}: the item {{ #{anchor} }} does not name `{name}`"
            )


def test_the_chinese_page_has_the_same_items_in_the_same_order():
    english = [m[1] for m in ANCHOR.finditer(PAGE.read_text(encoding="utf-8"))]
    chinese = [m[1] for m in ANCHOR.finditer(PAGE_ZH.read_text(encoding="utf-8"))]
    assert len(english) == len(set(english)), "an anchor is used twice on from-pytorch.md"
    assert chinese == english


@pytest.mark.parametrize("page", [PAGE, PAGE_ZH], ids=lambda p: p.name)
def test_every_item_gives_a_reason_or_an_example(page):
    """An item says why (a **Why** paragraph) or shows the behaviour in code the doc tests run."""
    why = "**原因**" if page.name.endswith(".zh.md") else "**Why**"
    for anchor, text in _sections(page).items():
        assert why in text or "```python" in text or "](#diff-" in text, (
            f"{page.name}: the item {{ #{anchor} }} has no reason and no example"
        )


def test_errors_page_lists_the_builtin_types_each_class_is():
    import funcgrad.errors as errors

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    classes = {cls.__name__: cls for cls in subclasses(errors.FuncgradError)}
    text = ERRORS.read_text(encoding="utf-8")
    section = text[text.index("{ #coming-from-pytorch }") :]
    section = section[: section.index("\n## ")]
    rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]+) \|", section, re.MULTILINE))
    public = [
        name
        for name, obj in vars(errors).items()
        if obj in classes.values() and name == obj.__name__
    ]
    missing = sorted(set(public) - set(rows))
    assert not missing, f"docs/errors.md#coming-from-pytorch has no row for {missing}"
    for name, listed in rows.items():
        assert name in classes, f"docs/errors.md lists {name}, which is not a FuncgradError"
        builtin = [
            c.__name__
            for c in classes[name].__mro__
            if c.__module__ == "builtins"
            and c not in (Exception, BaseException, object, LookupError)
        ]
        assert re.findall(r"`(\w+)`", listed) == builtin, (
            f"docs/errors.md: {name} is also a {', '.join(builtin)}; the table says {listed.strip()}"
        )

"""Each language searches its own pages, and Chinese is searched by word.

Material's search plugin segments Chinese text with `jieba` at build time and
joins the words with U+200B, which the configured separator splits on;
docs/_hooks/search_i18n.py gives each language its own index. These tests read
the indexes of the site that tests/docs/conftest.py builds once per session.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

HAN = re.compile(r"[\u4e00-\u9fff]")
DOCS = Path(__file__).resolve().parents[2] / "docs"


def _index(site: Path, language: str = "") -> dict:
    path = site / language / "search" / "search_index.json"
    return json.loads(path.read_text(encoding="utf-8"))


def _terms(index: dict, text: str) -> list[str]:
    """Split `text` the way the site's search does: its configured separator."""
    separator = re.compile(index["config"]["separator"])  # Python reads JavaScript's \u escapes
    return [t for t in separator.split(text) if t]


@pytest.fixture(scope="module")
def indexes(built_site):
    return _index(built_site), _index(built_site, "zh")


def test_chinese_index_has_cotangent_as_a_word(indexes):
    _, zh = indexes
    assert "zh" in zh["config"]["lang"]
    pages = {}
    for entry in zh["docs"]:
        for term in _terms(zh, entry["title"] + " " + entry["text"]):
            pages.setdefault(term, set()).add(entry["location"].split("#")[0])
    # 余切 (cotangent) is a term of its own inside running Chinese text, on several pages
    assert len(pages.get("余切", ())) >= 3, sorted(pages.get("余切", ()))
    assert "concepts/immutable-graph/" in pages["余切"]
    # and a sentence is not one long term: no indexed term is a whole clause
    assert max(len(t) for t in pages if HAN.match(t)) <= 12


def _location(page: Path) -> str:
    """`concepts/hooks.zh.md` -> `concepts/hooks/`, `index.zh.md` -> `` (the site's URLs)."""
    path = page.relative_to(DOCS).as_posix().removesuffix(".zh.md").removesuffix(".md")
    path = path.removesuffix("index")
    return path if not path or path.endswith("/") else path + "/"


def test_each_language_searches_only_its_own_pages(indexes, built_site):
    en, zh = indexes
    # English: no page under zh/, and Chinese text only where the glossary gives the terms
    for entry in en["docs"]:
        assert not entry["location"].startswith("zh/"), entry["location"]
        if HAN.search(entry["title"] + entry["text"]):
            assert entry["location"].startswith("glossary/"), entry["location"]
    # Chinese: locations relative to zh/, each leading to a built page
    for entry in zh["docs"]:
        page = entry["location"].split("#")[0]
        assert (built_site / "zh" / page / "index.html").is_file(), page
    # every translated page is indexed in Chinese, in the Chinese index only
    zh_pages = {
        e["location"].split("#")[0] for e in zh["docs"] if HAN.search(e["title"] + e["text"])
    }
    translated = {_location(p) for p in DOCS.rglob("*.zh.md")}
    assert len(translated) >= 20
    assert translated <= zh_pages, sorted(translated - zh_pages)


def test_chinese_pages_load_the_chinese_index(built_site):
    """Material fetches `search/search_index.json` from the page's `base`: for zh pages, zh/."""
    config = re.compile(r'<script id="__config" type="application/json">(\{.*?\})</script>', re.S)
    zh_page = (built_site / "zh" / "concepts" / "immutable-graph" / "index.html").read_text("utf-8")
    en_page = (built_site / "concepts" / "immutable-graph" / "index.html").read_text("utf-8")
    # Material resolves the index as new URL("search/search_index.json", new URL(base, page))
    assert json.loads(config.search(zh_page)[1])["base"] == "../../../zh/"
    assert json.loads(config.search(en_page)[1])["base"] == "../.."


def test_every_nav_title_has_a_chinese_title():
    """Chinese navigation shows no English section or page title (module names stay as they are)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    config = yaml.load((DOCS.parent / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)
    titles = []

    def walk(items):
        for item in items:
            if isinstance(item, dict):
                for title, value in item.items():
                    titles.append(title)
                    if isinstance(value, list):
                        walk(value)

    walk(config["nav"])
    (i18n,) = [p["i18n"] for p in config["plugins"] if isinstance(p, dict) and "i18n" in p]
    (zh,) = [lang for lang in i18n["languages"] if lang["locale"] == "zh"]
    missing = [
        t for t in titles if not t.startswith("funcgrad") and t not in zh["nav_translations"]
    ]
    assert not missing, f"add to nav_translations in mkdocs.yml: {missing}"


GENERATED = re.compile(r"<!-- generated: .*?<!-- end generated -->", re.DOTALL)
FENCE = re.compile(r"^([ \t]*)(```+|~~~+).*?^\1\2[ \t]*$", re.MULTILINE | re.DOTALL)
# What renders the same in both languages: API entries and their anchors, the
# build-time tables and diagrams (<!-- names-table -->, <!-- draw: ... -->).
STRUCTURE = re.compile(
    r"^[ \t]*(?::::[^\n]*|\[\]\(\)\{#[^}]*\}|<!--(?! generated| end generated).*?-->)", re.MULTILINE
)


HEADING = re.compile(r"^(#{2,6})[ \t]+(.*?)[ \t]*$", re.MULTILINE)
ATTR_ID = re.compile(r"\{ ?#([\w-]+)[^}]*\}$")


def _text(page: Path) -> str:
    return FENCE.sub("", GENERATED.sub("", page.read_text(encoding="utf-8")))


def _structure(page: Path) -> list[str]:
    return [m.group(0).strip() for m in STRUCTURE.finditer(_text(page))]


def _anchors(page: Path) -> list[str]:
    """The ids of the page's section headings (## and deeper), as the site's `toc` gives them.

    An explicit `{ #id }` wins; otherwise Python-Markdown's slug of the heading's text,
    numbered `_1`, `_2` where it repeats. The page title (#) is left out: links name sections.
    """
    from markdown.extensions.toc import slugify, unique

    used: set[str] = set()
    ids = []
    for m in HEADING.finditer(_text(page)):
        level, title = m.group(1), m.group(2)
        explicit = ATTR_ID.search(title)
        if explicit:
            ident = explicit.group(1)
        else:
            plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)  # [text](link) -> text
            ident = unique(slugify(re.sub(r"<[^>]+>|`", "", plain), "-"), used)
        used.add(ident)
        ids.append(f"{level} #{ident}")
    return ids


@pytest.mark.parametrize(
    "page",
    sorted(
        p for p in DOCS.rglob("*.md") if not p.name.endswith(".zh.md") and "vendor" not in p.parts
    ),
    ids=lambda p: str(p.relative_to(DOCS)),
)
def test_chinese_twin_has_the_english_pages_entries(page):
    """Every page has a Chinese twin with the same API entries, tables, diagrams and anchors.

    Each Chinese section heading carries the English heading's id (`## 节点 { #nodes }`),
    so a link to `page.md#section` (error messages link to errors.md#<class>) lands on
    the same section in both languages.

    The sections scripts/generate_surfaces.py writes are left out: it writes the
    English page only, so the twin links to that section instead of a copy.
    """
    twin = page.with_name(page.name.removesuffix(".md") + ".zh.md")
    assert twin.is_file(), f"{twin.relative_to(DOCS)} is missing"
    assert _structure(twin) == _structure(page)
    assert _anchors(twin) == _anchors(page)


def test_section_anchors_are_the_built_pages_ids(built_site):
    """`_anchors` reads the ids the site really gives: each is an id in both built pages."""
    checked = 0
    for page in DOCS.rglob("*.md"):
        if page.name.endswith(".zh.md") or "vendor" in page.parts:
            continue
        ids = [a.split(" #", 1)[1] for a in _anchors(page)]
        for html in (built_site / _location(page), built_site / "zh" / _location(page)):
            text = (html / "index.html").read_text(encoding="utf-8")
            missing = [i for i in ids if f'id="{i}"' not in text]
            assert not missing, f"{html.relative_to(built_site)}: no id {missing}"
        checked += len(ids)
    assert checked >= 200, checked

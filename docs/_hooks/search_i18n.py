"""One search index per language: English pages search English, Chinese pages Chinese.

mkdocs-static-i18n builds every language into one site and merges all their
search entries into the single `search/search_index.json` that Material's
search loads from the site's base, so English search listed Chinese pages and
the other way round. This hook gives each language its own index:

* after the build (once the i18n plugin has written the merged index),
  the entries under `zh/` move to `zh/search/search_index.json`, with
  locations relative to `zh/`, and the root index keeps the others;
* in every page built under `zh/`, the `base` that Material's search resolves
  the index and the result locations against becomes that language's folder.

The Chinese text was segmented into words by Material's search plugin at
build time (it runs `jieba` when installed, joining the words with U+200B,
which the configured `separator` splits on), so 余切 is a term of its own.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from mkdocs.plugins import event_priority

LANGUAGES = ("zh",)  # the non-default languages, each built under its own folder
CONFIG_BASE = re.compile(
    r'(<script id="__config" type="application/json">\{[^<]*?"base":\s*")([^"]*)(")'
)


def _language(dest_uri: str) -> str | None:
    head = dest_uri.split("/", 1)[0]
    return head if head in LANGUAGES else None


def on_post_page(output: str, page, config) -> str:
    language = _language(page.file.dest_uri)
    if language is None:
        return output
    # Material resolves `base` against the page's URL and then the index against `base`:
    # the trailing slash keeps `zh/` a folder (`new URL("search/...", ".../zh")` drops it).
    return CONFIG_BASE.sub(
        lambda m: m[1] + (f"{m[2]}/" if m[2] not in ("", ".") else "") + f"{language}/" + m[3],
        output,
        count=1,
    )


@event_priority(-200)  # after mkdocs-static-i18n (-100) has written the merged index
def on_post_build(config) -> None:
    site = Path(config.site_dir)
    path = site / "search" / "search_index.json"
    if not path.is_file():
        return
    index = json.loads(path.read_text(encoding="utf-8"))
    by_language: dict[str | None, list[dict]] = {None: [], **{lang: [] for lang in LANGUAGES}}
    for entry in index["docs"]:
        language = _language(entry["location"])
        if language is not None:
            entry = {**entry, "location": entry["location"][len(language) + 1 :]}
        by_language[language].append(entry)
    for language, entries in by_language.items():
        target = path if language is None else site / language / "search" / "search_index.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        data = {"config": index["config"], "docs": entries}
        target.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")

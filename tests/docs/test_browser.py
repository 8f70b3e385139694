"""The built site in a real headless browser (Playwright's Chromium), where one is installed.

Served from 127.0.0.1, every page that draws a diagram or typesets math is
opened in the light and the dark palette, with every other host refused:

* no request leaves 127.0.0.1 and no page logs a console error;
* every Mermaid diagram renders as an SVG, and the text of the classes
  funcgrad draws (leaf, const, seed) and of the backward-pass labels reads
  at WCAG AA contrast (4.5:1) on its fill in both palettes;
* KaTeX typesets every formula.

Skipped, with the reason, where Playwright or a Chromium is missing
(`python -m pip install playwright`, then `python -m playwright install chromium`
or the system's `chromium`).
"""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from pathlib import Path

import pytest

# Material renders each diagram into a closed shadow root: open it, to read the SVG.
OPEN_SHADOWS = """
const attach = Element.prototype.attachShadow;
Element.prototype.attachShadow = function (init) { return attach.call(this, {...init, mode: "open"}); };
"""

# For each diagram: whether it is an SVG, and the contrast of each label on its background.
INSPECT = """
() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).slice(0, 4).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  return [...document.querySelectorAll("div.mermaid")].map((host) => {
    const svg = host.shadowRoot && host.shadowRoot.querySelector("svg");
    if (!svg) return {svg: false, labels: []};
    const labels = [];
    for (const node of svg.querySelectorAll("g.node.leaf, g.node.const, g.node.seed")) {
      const shape = node.querySelector("rect, circle, path, polygon");
      const text = node.querySelector(".nodeLabel, span, p") || node;
      labels.push({what: node.getAttribute("class"),
                   ratio: ratio(rgb(getComputedStyle(text).color), rgb(getComputedStyle(shape).fill))});
    }
    for (const label of svg.querySelectorAll(".edgeLabel")) {
      const inner = label.querySelector("span, p") || label;
      const bg = getComputedStyle(label).backgroundColor;
      if (!inner.textContent.trim() || rgb(bg)[3] === 0) continue;
      labels.push({what: "edge label " + inner.textContent.slice(0, 30),
                   ratio: ratio(rgb(getComputedStyle(inner).color), rgb(bg))});
    }
    return {svg: true, labels};
  });
}
"""


def _chromium():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright is not installed (python -m pip install playwright)")
    manager = sync_playwright().start()
    try:
        return manager, manager.chromium.launch()
    except Exception as e:  # Playwright's own Chromium is missing: try the system's
        reason = str(e).splitlines()[0]
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            try:
                return manager, manager.chromium.launch(executable_path=shutil.which(name))
            except Exception as e:
                reason = str(e).splitlines()[0]
    manager.stop()
    pytest.skip(f"no Chromium for Playwright ({reason}); apt-get install chromium will do")


def _serve(site: Path):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _pages(site: Path) -> list[str]:
    """The English pages with a diagram or math, the home pages, and Getting started in Chinese.

    The other Chinese pages draw the same diagrams with the same code.
    """
    pages = ["", "zh", "zh/getting-started"]
    for html in sorted(site.rglob("index.html")):
        path = html.parent.relative_to(site).as_posix()
        text = html.read_text(encoding="utf-8")
        if (
            path.split("/")[0] != "zh"
            and path
            and ('class="mermaid"' in text or 'class="arithmatex"' in text)
        ):
            pages.append(path)
    return pages


def test_pages_render_offline_in_both_palettes(request):
    manager, browser = _chromium()  # skips before the (slow) build when there is no browser
    try:
        built_site = request.getfixturevalue("built_site")
    except BaseException:
        browser.close()
        manager.stop()
        raise
    try:
        failures = check_pages(browser, built_site)
    finally:
        browser.close()
        manager.stop()
    # Known, not yet fixed: to_mermaid's red backward labels (#d62728) read at 3.2:1 on
    # the dark palette's background (no one red reaches 4.5:1 on both palettes, and
    # Mermaid's linkStyle takes no CSS variable). Anything else fails.
    known = [f for f in failures if "(dark): diagram" in f and "edge label" in f]
    assert len(known) == len(failures), "\n".join([f for f in failures if f not in known][:40])
    if known:
        pytest.xfail(f"{len(known)} backward labels under 4.5:1 in the dark palette: {known[0]}")


def check_pages(browser, site: Path) -> list[str]:
    """Open the pages of `site` in `browser`, in both palettes; return what is wrong."""
    server = _serve(site)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    failures: list[str] = []
    try:
        for scheme in ("light", "dark"):
            context = browser.new_context(color_scheme=scheme)
            context.add_init_script(OPEN_SHADOWS)
            outside: list[str] = []

            def route(r, outside=outside):
                if r.request.url.startswith(base) or r.request.url.startswith("data:"):
                    r.continue_()
                else:
                    outside.append(r.request.url)
                    r.abort()

            context.route("**/*", route)
            for path in _pages(site):
                page = context.new_page()
                errors: list[str] = []
                page.on(
                    "console",
                    lambda m, e=errors: (
                        m.type == "error"
                        and not m.text.startswith(
                            "Failed to load resource"
                        )  # reported as responses
                        and e.append(m.text)
                    ),
                )
                page.on(
                    "response",
                    lambda r, e=errors: (
                        r.status >= 400
                        # Material looks for each language's sitemap.xml next to the page link
                        # mkdocs-static-i18n gives it; without it, the switch keeps that link
                        and not r.url.endswith("/sitemap.xml")
                        and e.append(f"{r.status} for {r.url}")
                    ),
                )
                page.on("pageerror", lambda exc, e=errors: e.append(str(exc)))
                page.goto(base + path, wait_until="networkidle")
                where = f"{path or '/'} ({scheme})"
                if page.locator("pre.mermaid, div.mermaid").count():
                    page.wait_for_function(
                        "() => ![...document.querySelectorAll('div.mermaid')]"
                        ".some(d => !d.shadowRoot) && !document.querySelector('pre.mermaid')",
                        timeout=30000,
                    )
                for i, diagram in enumerate(page.evaluate(INSPECT)):
                    if not diagram["svg"]:
                        failures.append(f"{where}: diagram {i} is not an SVG")
                    for label in diagram["labels"]:
                        if label["ratio"] < 4.5:
                            failures.append(
                                f"{where}: diagram {i}, {label['what']}: contrast "
                                f"{label['ratio']:.2f} < 4.5"
                            )
                math = page.locator(".arithmatex").count()
                if math and page.locator(".arithmatex .katex").count() < math:
                    failures.append(f"{where}: KaTeX typeset only some of {math} formulas")
                failures += [f"{where}: console error: {e}" for e in errors]
                page.close()
            failures += [f"({scheme}) a request to another host: {url}" for url in outside]
            context.close()
    finally:
        server.shutdown()
    return failures

"""The built site in a real headless browser (Playwright's Chromium), where one is installed.

Served from 127.0.0.1, every page that draws a diagram or typesets math is
opened in the light and the dark palette, with every other host refused:

* no request leaves 127.0.0.1 and no page logs a console error;
* every Mermaid diagram renders as an SVG, and every text in it (boxes and
  edge labels) reads at WCAG AA contrast (4.5:1) on what lies under it, in
  both palettes: the colour of the element holding the text, which is not
  always the one Mermaid's class definitions set (Material's stylesheet
  colours the <p> inside a label itself);
* KaTeX typesets every formula.

Skipped, with the reason, where Playwright or a Chromium is missing
(`python -m pip install playwright`, then `python -m playwright install chromium`
or the system's `chromium`).
"""

from __future__ import annotations

import asyncio
import functools
import http.server
import shutil
import threading
from pathlib import Path

import pytest

try:
    from playwright.async_api import TimeoutError as PlaywrightTimeout
    from playwright.async_api import async_playwright
except ImportError:  # the test skips, with the reason
    async_playwright = None

# Material renders each diagram into a closed shadow root: open it, to read the SVG.
OPEN_SHADOWS = """
const attach = Element.prototype.attachShadow;
Element.prototype.attachShadow = function (init) { return attach.call(this, {...init, mode: "open"}); };
"""

# For each diagram: whether it is an SVG, and the contrast of every text it shows (in
# boxes and on edge labels): the colour of the element that holds the text, on what lies
# under it (its ancestors' backgrounds up to the box or label, over the box's fill, over
# the page), translucent colours composited as the browser paints them.
INSPECT = """
() => {
  const rgba = (c) => {
    const v = (c.match(/[\\d.]+/g) || []).map(Number);
    return v.length < 3 ? [0, 0, 0, 0] : [v[0], v[1], v[2], v.length > 3 ? v[3] : 1];
  };
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  // what lies under `el`: the backgrounds from `top` down to `el`, over `base`
  const under = (el, top, base) => {
    const chain = [];
    for (let e = el; e && e !== top.parentNode; e = e.parentNode) chain.unshift(e);
    return chain.reduce((bg, e) => over(rgba(getComputedStyle(e).backgroundColor), bg), base);
  };
  const holders = (root) => [root, ...root.querySelectorAll("*")].filter((e) =>
    [...e.childNodes].some((t) => t.nodeType === 3 && t.textContent.trim()));
  return [...document.querySelectorAll("div.mermaid")].map((host) => {
    const svg = host.shadowRoot && host.shadowRoot.querySelector("svg");
    if (!svg) return {svg: false, labels: []};
    const page = under(host, document.documentElement, [255, 255, 255, 1]);
    const labels = [];
    const measure = (what, root, base) => {
      for (const el of holders(root)) {
        const bg = under(el, root, base);
        labels.push({what: `${what} ${el.textContent.trim().slice(0, 30)}`,
                     ratio: ratio(over(rgba(getComputedStyle(el).color), bg), bg)});
      }
    };
    for (const node of svg.querySelectorAll("g.node")) {
      const shape = node.querySelector("rect, circle, path, polygon");
      const fill = shape ? rgba(getComputedStyle(shape).fill) : [0, 0, 0, 0];
      measure(`node (${node.getAttribute("class")})`, node, over(fill, page));
    }
    for (const label of svg.querySelectorAll("g.edgeLabel")) measure("edge label", label, page);
    return {svg: true, labels};
  });
}
"""


async def _launch(playwright):
    """A Chromium for Playwright: its own, else the system's; or the reason there is none."""
    try:
        return await playwright.chromium.launch(), None
    except Exception as e:  # Playwright's own Chromium is missing: try the system's
        reason = str(e).splitlines()[0]
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            try:
                return await playwright.chromium.launch(executable_path=shutil.which(name)), None
            except Exception as e:
                reason = str(e).splitlines()[0]
    return None, f"no Chromium for Playwright ({reason}); apt-get install chromium will do"


async def _no_browser() -> str | None:
    """Why no browser can run here, or None."""
    async with async_playwright() as playwright:
        browser, reason = await _launch(playwright)
        if browser is not None:
            await browser.close()
        return reason


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def _serve(site: Path):
    handler = functools.partial(_Quiet, directory=str(site))
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
        if path.split("/")[0] not in ("zh", ".") and (
            'class="mermaid"' in text or 'class="arithmatex"' in text
        ):
            pages.append(path)
    return pages


@pytest.fixture(scope="session")
def chromium_here() -> None:
    """Skip, with the reason, where Playwright or a Chromium is missing."""
    if async_playwright is None:
        pytest.skip("Playwright is not installed (python -m pip install playwright)")
    reason = asyncio.run(_no_browser())
    if reason:
        pytest.skip(reason)


def test_pages_render_offline_in_both_palettes(chromium_here, built_site):
    # chromium_here comes first: no browser, no (slow) build for this test
    failures = asyncio.run(check_pages(built_site))
    assert not failures, "\n".join(failures[:40])


# Every diagram drawn (Material replaces each pre.mermaid by a div with a shadow root)
# and every formula typeset by KaTeX.
_ALL_TYPESET = (
    '[...document.querySelectorAll(".arithmatex")].every((m) => m.querySelector(".katex"))'
)
TYPESET = f"() => {_ALL_TYPESET}"
RENDERED = f"""() =>
  ![...document.querySelectorAll("div.mermaid")].some((d) => !d.shadowRoot)
  && !document.querySelector("pre.mermaid")
  && {_ALL_TYPESET}
"""


async def check_pages(site: Path, at_once: int = 4) -> list[str]:
    """Open the pages of `site` in Chromium, in both palettes, `at_once` at a time; return what is wrong."""
    server = _serve(site)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    failures: list[str] = []
    slots = asyncio.Semaphore(at_once)

    async def check(context, path: str, scheme: str) -> None:
        async with slots:
            page = await context.new_page()
            errors: list[str] = []
            page.on(
                "console",
                lambda m: (
                    m.type == "error"
                    and not m.text.startswith("Failed to load resource")  # reported as responses
                    and errors.append(m.text)
                ),
            )
            page.on(
                "response",
                lambda r: (
                    r.status >= 400
                    # Material looks for each language's sitemap.xml next to the page link
                    # mkdocs-static-i18n gives it; without it, the switch keeps that link
                    and not r.url.endswith("/sitemap.xml")
                    and errors.append(f"{r.status} for {r.url}")
                ),
            )
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            where = f"{path or '/'} ({scheme})"
            await page.goto(base + path, wait_until="networkidle")
            try:
                await page.wait_for_function(RENDERED, timeout=90000)
            except PlaywrightTimeout:  # what is missing is reported below
                failures.append(f"{where}: diagrams or math not rendered 90 s after the load")
            for i, diagram in enumerate(await page.evaluate(INSPECT)):
                if not diagram["svg"]:
                    failures.append(f"{where}: diagram {i} is not an SVG")
                for label in diagram["labels"]:
                    if label["ratio"] < 4.5:
                        failures.append(
                            f"{where}: diagram {i}, {label['what']}: contrast "
                            f"{label['ratio']:.2f} < 4.5"
                        )
            math = await page.locator(".arithmatex").count()
            try:  # typesetting can still be under way (seen twice under load): wait for it
                await page.wait_for_function(TYPESET, timeout=30000)
            except PlaywrightTimeout:
                done = await page.locator(".arithmatex .katex").count()
                failures.append(f"{where}: KaTeX typeset only {done} of {math} formulas")
            failures.extend(f"{where}: console error: {e}" for e in errors)
            await page.close()

    async def route(r, outside: list[str]) -> None:
        if r.request.url.startswith(base) or r.request.url.startswith("data:"):
            await r.continue_()
        else:
            outside.append(r.request.url)
            await r.abort()

    try:
        async with async_playwright() as playwright:
            browser, reason = await _launch(playwright)
            assert browser is not None, reason
            contexts = {}
            for scheme in ("light", "dark"):
                context = await browser.new_context(color_scheme=scheme)
                await context.add_init_script(OPEN_SHADOWS)
                outside: list[str] = []
                await context.route("**/*", lambda r, outside=outside: route(r, outside))
                contexts[scheme] = context, outside
            await asyncio.gather(
                *(
                    check(context, path, scheme)
                    for scheme, (context, _) in contexts.items()
                    for path in _pages(site)
                )
            )
            for scheme, (context, outside) in contexts.items():
                failures.extend(f"({scheme}) a request to another host: {url}" for url in outside)
                await context.close()
            await browser.close()
    finally:
        server.shutdown()
    return sorted(failures)

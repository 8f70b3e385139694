"""Check a built site offline: no CDN links, and every Mermaid diagram renders.

    python docs/_hooks/check_site.py [site]      # run by scripts/build_docs.sh --check

1. No page loads a script, stylesheet or font from another host.
2. Every ```mermaid block of the site is rendered to SVG by the Mermaid that
   the site serves itself, in headless Chromium with all other hosts made
   unreachable. A diagram that Mermaid cannot parse, or that renders to
   something other than an SVG, fails the check.

Needs Debian's `chromium` (or `chromium-browser`, `google-chrome`); exits 2
without it.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

MERMAID_BLOCK = re.compile(r'<pre class="mermaid"><code>(.*?)</code></pre>', re.DOTALL)
EXTERNAL = re.compile(
    r'<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)="(?:https?:)?//[^"]*"[^>]*>', re.IGNORECASE
)
NOT_LOADED = re.compile(r'\brel="(?:canonical|alternate)"')  # links, not loads

PAGE = """<!doctype html>
<html><head><meta charset="utf-8">
<script src="%s"></script></head>
<body><pre id="result">pending</pre>
<script>
const diagrams = %s;
mermaid.initialize({startOnLoad: false});
(async () => {
  const results = [];
  for (let i = 0; i < diagrams.length; i++) {
    try {
      const {svg} = await mermaid.render("d" + i, diagrams[i]);
      results.push(svg.startsWith("<svg") ? null : "not an SVG");
    } catch (e) {
      results.push(String(e && e.message || e));
    }
  }
  document.getElementById("result").textContent = JSON.stringify(results);
})();
</script></body></html>
"""


def find_browser() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return name
    return None


def render_mermaid(
    diagrams: list[str], mermaid_js: Path, browser: str | None = None
) -> list | None:
    """Render each Mermaid text in headless Chromium, offline, with the given mermaid.min.js.

    Returns:
        One entry per diagram: None if it rendered to an SVG, else Mermaid's
        error message; or None if the page never finished.
    """
    browser = browser or find_browser()
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "check.html"
        page.write_text(
            PAGE % (Path(mermaid_js).resolve().as_uri(), json.dumps(diagrams)), encoding="utf-8"
        )
        dom = subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--host-resolver-rules=MAP * ~NOTFOUND",
                "--allow-file-access-from-files",
                "--virtual-time-budget=20000",
                "--dump-dom",
                page.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=180,
        ).stdout
    m = re.search(r'<pre id="result">(.*?)</pre>', dom, re.DOTALL)
    if m is None or m.group(1) == "pending":
        return None
    return json.loads(html.unescape(m.group(1)))


def main(site: Path) -> int:
    pages = sorted(p for p in site.rglob("*.html") if "zh" not in p.relative_to(site).parts[:1])
    failures = []
    diagrams: list[tuple[str, str]] = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for m in EXTERNAL.finditer(text):
            if NOT_LOADED.search(m.group(0)):
                continue
            failures.append(
                f"{page.relative_to(site)}: loads from another host: {m.group(0)[:120]}"
            )
        for m in MERMAID_BLOCK.finditer(text):
            diagrams.append((str(page.relative_to(site)), html.unescape(m.group(1))))
    print(f"check_site: {len(pages)} pages, {len(diagrams)} Mermaid diagrams")

    browser = find_browser()
    if browser is None:
        print(
            "check_site: no chromium found; install it (apt-get install -y chromium)",
            file=sys.stderr,
        )
        return 2
    errors = render_mermaid(
        [d for _, d in diagrams], site / "assets/vendor/mermaid/mermaid.min.js", browser
    )
    if errors is None:
        failures.append("the diagrams did not finish rendering (is mermaid.min.js in the site?)")
    else:
        for (page, text), error in zip(diagrams, errors, strict=True):
            if error is not None:
                failures.append(f"{page}: a Mermaid diagram does not render: {error}\n{text[:300]}")
    for failure in failures:
        print(f"check_site: {failure}", file=sys.stderr)
    if not failures:
        print("check_site: every diagram renders offline; no page loads from another host")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "site")))

"""The documentation site builds with `mkdocs build --strict` (warnings are errors).

This is how CI checks the site: the test suite builds it into a temporary
folder with `scripts/build_docs.sh`, which first fetches Mermaid and KaTeX
from the npm registry (the site serves them itself and needs no CDN).
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_site_builds_strictly(tmp_path):
    fetch = subprocess.run(
        ["bash", str(ROOT / "scripts" / "fetch_doc_assets.sh")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert fetch.returncode == 0, fetch.stdout[-3000:] + fetch.stderr[-3000:]
    site = tmp_path / "site"
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    assert (site / "index.html").is_file()
    assert (site / "zh" / "index.html").is_file()
    assert (site / "assets" / "vendor").is_dir()  # Mermaid served by the site itself

"""The documentation site builds with `mkdocs build --strict` (warnings are errors), from Python alone.

This is how CI checks the site. Mermaid and KaTeX are committed under
docs/assets/vendor/ (the site serves them itself and needs no CDN), so the
build needs no npm and no network; a missing one fails the build.
"""

import re
import subprocess
from pathlib import Path

import pytest

from tests.docs.test_docs import hooks

ROOT = Path(__file__).resolve().parents[2]


def test_site_builds_strictly(built_site):
    site = built_site
    assert (site / "index.html").is_file()
    assert (site / "zh" / "index.html").is_file()
    for name in hooks.VENDORED:  # served by the site itself
        assert (site / name).is_file(), name
    # the hook filled in what the library computes
    tensor = (site / "api" / "tensor" / "index.html").read_text(encoding="utf-8")
    assert "<code>requires_grad_</code>" in tensor
    performance = (site / "performance" / "index.html").read_text(encoding="utf-8")
    assert "W1" in performance and "<!-- include" not in performance
    regression = (site / "examples" / "linear-logistic-regression" / "index.html").read_text(
        encoding="utf-8"
    )
    assert 'class="fg-plot"' in regression or "matplotlib is installed" in regression
    page = (site / "index.html").read_text(encoding="utf-8")
    assert "copy-runnable.js" in page and "wrappingWidth" in page


def test_the_vendored_assets_are_committed_with_their_licences():
    tracked = subprocess.run(
        ["git", "ls-files", "docs/assets/vendor"], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")  # e.g. an unpacked sdist
    for name in hooks.VENDORED:
        assert f"docs/{name}" in tracked, name


def test_a_missing_vendored_asset_fails_the_build(tmp_path):
    from mkdocs.exceptions import PluginError

    docs = tmp_path / "docs"
    for name in hooks.VENDORED[1:]:
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text("x")
    with pytest.raises(PluginError, match="mermaid.min.js"):
        hooks.on_config({"docs_dir": str(docs)})
    (docs / hooks.VENDORED[0]).write_text("x")
    assert hooks.on_config({"docs_dir": str(docs)}) == {"docs_dir": str(docs)}


def _install_section(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    m = re.search(r"^## Install\n.*?(?=<!-- /install -->)", text, re.MULTILINE | re.DOTALL)
    assert m is not None, f"{path} has no Install section ending with <!-- /install -->"
    return m.group(0)


def test_the_install_section_is_the_same_in_the_readme_and_on_the_site():
    readme = _install_section(ROOT / "README.md")
    assert readme == _install_section(ROOT / "docs" / "getting-started.md")
    assert "python -m pip install ." in readme
    for extra in ("[scipy]", "[gpu]", "[mpi]"):
        assert f'python -m pip install ".{extra}"' in readme, extra
    # the README does not send readers to files outside the repository
    assert "shared/seeds" not in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_gpu_status_is_stated_on_one_page():
    statements = re.compile(r"not yet (been )?run on a GPU|are planned|still being completed", re.I)
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        if "vendor" in page.parts:
            continue
        assert not statements.search(page.read_text(encoding="utf-8")), page
    assert "## Status" in (ROOT / "docs" / "gpu.md").read_text(encoding="utf-8")

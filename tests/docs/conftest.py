"""The documentation site, built once per test session (the strict build is slow)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session", autouse=True)
def _pages_run_once(tmp_path_factory):
    """The site build and test_docs.py share what each page's code gave, so it runs once.

    The build runs the pages that draw a diagram or a plot, test_docs.py every page;
    docs/_hooks/funcgrad_docs.py's `run_document` keeps results in this folder by the
    page's code, and skips a page whose code already ran without failing.
    """
    if os.environ.get("PYTEST_XDIST_WORKER"):  # one folder for all workers of this run
        runs = tmp_path_factory.getbasetemp().parent / "page-runs"
        runs.mkdir(exist_ok=True)
    else:
        runs = tmp_path_factory.mktemp("page-runs")
    old = os.environ.get("FUNCGRAD_DOCS_RUNS")
    os.environ["FUNCGRAD_DOCS_RUNS"] = str(runs)
    yield
    if old is None:
        del os.environ["FUNCGRAD_DOCS_RUNS"]
    else:
        os.environ["FUNCGRAD_DOCS_RUNS"] = old


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """Build the site with `mkdocs build --strict` into a temporary folder and return it.

    Mermaid and KaTeX are committed in docs/assets/vendor/, so this needs only Python.
    """
    site = tmp_path_factory.mktemp("docs") / "site"
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    return site

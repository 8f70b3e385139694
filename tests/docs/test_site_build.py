"""The documentation site builds with `mkdocs build --strict` (warnings are errors).

This is how CI checks the site: the test suite builds it into a temporary
folder with `scripts/build_docs.sh`, which first fetches Mermaid and KaTeX
from the npm registry (the site serves them itself and needs no CDN).
"""


def test_site_builds_strictly(built_site):
    # the build itself (fetch, then `mkdocs build --strict`) is tests/docs/conftest.py's
    # `built_site`, shared with the tests that read the built site
    site = built_site
    assert (site / "index.html").is_file()
    assert (site / "zh" / "index.html").is_file()
    assert (site / "assets" / "vendor").is_dir()  # Mermaid served by the site itself

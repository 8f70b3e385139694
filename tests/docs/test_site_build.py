"""The documentation site builds with `mkdocs build --strict` (warnings are errors).

This is how CI checks the site: the test suite builds it once into a temporary
folder (tests/docs/conftest.py's `built_site`), with the Mermaid and KaTeX the
site serves itself from docs/assets/vendor/ (no CDN, no npm).
"""


def test_site_builds_strictly(built_site):
    # the build itself (`mkdocs build --strict`) is tests/docs/conftest.py's
    # `built_site`, shared with the tests that read the built site
    site = built_site
    assert (site / "index.html").is_file()
    assert (site / "zh" / "index.html").is_file()
    assert (site / "assets" / "vendor").is_dir()  # Mermaid served by the site itself

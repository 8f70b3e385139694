#!/usr/bin/env bash
# Build the documentation site into site/ (strict: any warning fails).
#
#   scripts/build_docs.sh            # build
#   scripts/build_docs.sh --check    # ... then check the site offline in headless
#                                    # Chromium: every diagram renders, no CDN
#   scripts/build_docs.sh --serve    # ... then serve it at http://127.0.0.1:8000
#
# Needs the docs extra (pip install -e ".[docs]"), nothing else: Mermaid and
# KaTeX are committed in docs/assets/vendor/ (scripts/fetch_doc_assets.sh
# updates them). --check needs chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

python -m mkdocs build --strict
case "${1:-}" in
  --check) python docs/_hooks/check_site.py site ;;
  --serve) python -m http.server --directory site --bind 127.0.0.1 8000 ;;
  "") ;;
  *) echo "build_docs.sh: unknown option $1 (use --check or --serve)" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# Update the site's third-party JavaScript (Mermaid for diagrams, KaTeX for
# math) in docs/assets/vendor/, which is committed: building the site and
# running the tests need only Python. Run this only to move to new versions
# (edit the pins below), then commit docs/assets/vendor/.
#
#   scripts/fetch_doc_assets.sh          # fetch if VERSIONS differs from the pins
#   scripts/fetch_doc_assets.sh --force  # fetch again
#
# Needs npm and the npm registry (npm honours its usual registry settings).
# Versions and the registry's sha512 integrity of each tarball are pinned here;
# a tarball that does not match is refused. The site build fails if a file is
# missing (docs/_hooks/funcgrad_docs.py, VENDORED).
set -euo pipefail
cd "$(dirname "$0")/.."

MERMAID_VERSION=11.17.2
MERMAID_INTEGRITY=sha512-V6K3C8EBdEsPFZXSKMJe6ppQOENxuHARr9GvHX4hh47lAbhMRD9qf4oEK7LoaRQxULMa80/qt5gHO73aCleBBg==
KATEX_VERSION=0.16.47
KATEX_INTEGRITY=sha512-Eeo8Ys1doU1z+x8AZsPpQu+p/QcZBI5PeOo7QGQdy2x2m0MU/hYagBbGOmXwr5KVbEfVuWv9LpnQWeehogurjg==

VENDOR=docs/assets/vendor
STAMP="$VENDOR/VERSIONS"
WANT="mermaid@$MERMAID_VERSION katex@$KATEX_VERSION"

if [[ "${1:-}" != "--force" && -f "$STAMP" && "$(cat "$STAMP")" == "$WANT" ]]; then
  exit 0
fi

command -v npm >/dev/null || { echo "fetch_doc_assets.sh: npm is needed to fetch Mermaid and KaTeX" >&2; exit 1; }

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

fetch() {  # fetch NAME VERSION INTEGRITY -> $TMP/NAME/package/...
  local name=$1 version=$2 integrity=$3 tarball actual
  (cd "$TMP" && npm pack --silent "$name@$version" >/dev/null)
  tarball="$TMP/$name-$version.tgz"
  actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
  if [[ "$actual" != "$integrity" ]]; then
    echo "fetch_doc_assets.sh: $name@$version has integrity $actual, expected $integrity" >&2
    exit 1
  fi
  mkdir -p "$TMP/$name"
  tar -xzf "$tarball" -C "$TMP/$name"
}

fetch mermaid "$MERMAID_VERSION" "$MERMAID_INTEGRITY"
fetch katex "$KATEX_VERSION" "$KATEX_INTEGRITY"

rm -rf "$VENDOR"
mkdir -p "$VENDOR/mermaid" "$VENDOR/katex"
cp "$TMP/mermaid/package/dist/mermaid.min.js" "$TMP/mermaid/package/LICENSE" "$VENDOR/mermaid/"
cp -r "$TMP/katex/package/dist/katex.min.js" "$TMP/katex/package/dist/katex.min.css" \
      "$TMP/katex/package/dist/fonts" "$TMP/katex/package/LICENSE" "$VENDOR/katex/"
cp "$TMP/katex/package/dist/contrib/auto-render.min.js" "$VENDOR/katex/"
echo "$WANT" > "$STAMP"
echo "fetch_doc_assets.sh: $WANT in $VENDOR"

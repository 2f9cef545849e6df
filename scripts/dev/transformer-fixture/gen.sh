#!/usr/bin/env bash
# gen.sh: regenerates the transformer test fixtures in tests/fixtures/transformer/: the tiny
# random-weight BERT model directory (tiny-bert/), tokens.json (ids of 1,000+ varied strings from
# Hugging Face's Rust tokenizers) and embeddings.json (pooled vectors from PyTorch's
# TransformerEncoderLayer). The C++ tests only read the committed files; nothing here runs in
# setup or CI.
#
# Dev-only requirements, none of them build or CI dependencies:
#   apt-get install python3-torch unicode-data    (Debian 12; python3-torch 1.13)
#   Node.js with npm (the npm package below is installed into ~/.cache/scout/dev, not the repo)
# Usage: scripts/dev/transformer-fixture/gen.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="$root/tests/fixtures/transformer"
cache="${SCOUT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/scout}/dev/transformer-fixture"
python=/usr/bin/python3  # Debian's interpreter, where python3-torch lives

if ! "$python" -c 'import torch' 2>/dev/null; then
  echo "gen.sh: PyTorch not found for $python (apt-get install python3-torch)" >&2
  exit 1
fi
mkdir -p "$cache"
if [ ! -d "$cache/node_modules/@anush008/tokenizers" ]; then
  npm install --silent --no-save --no-package-lock --prefix "$cache" @anush008/tokenizers@0.6.0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$python" "$here/make_model.py" "$work/tiny-bert"
NODE_PATH="$cache/node_modules" node "$here/reference_tokens.js" "$work/tiny-bert" "$work"
"$python" "$here/reference_embeddings.py" "$work/tiny-bert" "$work"

rm -rf "$out"
mkdir -p "$out"
cp -r "$work/tiny-bert" "$out/tiny-bert"
cp "$work/tokens.json" "$work/embeddings.json" "$out/"
du -sh "$out"

#!/usr/bin/env bash
# fetch-model.sh: downloads a BERT-family sentence encoder for `--embedder transformer:DIR` from
# its public source (huggingface.co), at a pinned revision, and checks every file's SHA-256
# before it is kept. Never run by setup or CI: scout's default stays offline. Needs curl and a
# network that reaches huggingface.co; when it cannot, it says so and exits 3, leaving nothing
# half-written.
#
# Usage: scripts/fetch-model.sh NAME [DIR]
#   NAME  all-MiniLM-L6-v2 (sentence-transformers/all-MiniLM-L6-v2: 6 layers, 384 dimensions,
#         mean pooling, normalized, 256 tokens)
#   DIR   where the model directory goes (default ~/.cache/scout/models/NAME)
# Then: scout search --catalog FILE --embedder transformer:DIR "query"
#
# Pins are added per model: the revision and each file's SHA-256, read from the model
# repository's file listing (LFS files show theirs). SCOUT_MODEL_BASE_URL replaces
# https://huggingface.co (a mirror holding the same paths).
set -euo pipefail

name="${1:-}"
base="${SCOUT_MODEL_BASE_URL:-https://huggingface.co}"

case "$name" in
  all-MiniLM-L6-v2)
    repo="sentence-transformers/all-MiniLM-L6-v2"
    revision="1110a243fdf4706b3f48f1d95db1a4f5529b4d41"
    files=(
      "config.json 953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
      "tokenizer.json be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
      "model.safetensors 53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
    )
    # The sentence-transformers settings of the model card (small files, written here).
    modules='[{"idx":0,"name":"0","path":"","type":"sentence_transformers.models.Transformer"},
 {"idx":1,"name":"1","path":"1_Pooling","type":"sentence_transformers.models.Pooling"},
 {"idx":2,"name":"2","path":"2_Normalize","type":"sentence_transformers.models.Normalize"}]'
    pooling='{"word_embedding_dimension":384,"pooling_mode_cls_token":false,"pooling_mode_mean_tokens":true,"pooling_mode_max_tokens":false,"pooling_mode_mean_sqrt_len_tokens":false}'
    sbert='{"max_seq_length":256,"do_lower_case":false}'
    ;;
  "" | -h | --help)
    sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
  *)
    echo "fetch-model: no pinned files for '$name' (known: all-MiniLM-L6-v2)." >&2
    echo "fetch-model: other BERT-family models (bge-small-en-v1.5, e5-small-v2, gte-small) load the same way:" >&2
    echo "fetch-model: put config.json, model.safetensors, tokenizer.json (and the sentence-transformers" >&2
    echo "fetch-model: files modules.json, 1_Pooling/config.json) in one directory and pass transformer:DIR." >&2
    exit 2
    ;;
esac

if ! command -v curl >/dev/null 2>&1; then
  echo "fetch-model: curl is needed (apt-get install curl)" >&2
  exit 3
fi
cache="${SCOUT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/scout}"
dest="${2:-$cache/models/$name}"
staging="$(mktemp -d "${TMPDIR:-/tmp}/scout-model.XXXXXX")"
trap 'rm -rf "$staging"' EXIT

for entry in "${files[@]}"; do
  file="${entry%% *}"
  sha256="${entry##* }"
  if [ -f "$dest/$file" ] && echo "$sha256  $dest/$file" | sha256sum -c --quiet - 2>/dev/null; then
    cp "$dest/$file" "$staging/$file"
    continue
  fi
  url="$base/$repo/resolve/$revision/$file"
  echo "fetch-model: $url"
  if ! curl --fail --location --silent --show-error --connect-timeout 15 --max-time 900 \
      --retry 2 --output "$staging/$file" "$url"; then
    echo "fetch-model: could not download $file from $base." >&2
    echo "fetch-model: this machine may not reach $base (some networks allow only package registries)." >&2
    echo "fetch-model: fetch the files elsewhere (same revision) into $dest, or set SCOUT_MODEL_BASE_URL" >&2
    echo "fetch-model: to a mirror; scout keeps working offline with its default static embedder." >&2
    exit 3
  fi
  if ! echo "$sha256  $staging/$file" | sha256sum -c --quiet -; then
    echo "fetch-model: SHA-256 mismatch for $file (expected $sha256); nothing was kept" >&2
    exit 4
  fi
done
mkdir -p "$staging/1_Pooling"
printf '%s\n' "$modules" > "$staging/modules.json"
printf '%s\n' "$pooling" > "$staging/1_Pooling/config.json"
printf '%s\n' "$sbert" > "$staging/sentence_bert_config.json"
mkdir -p "$(dirname "$dest")"
rm -rf "$dest.tmp"
cp -r "$staging" "$dest.tmp"
rm -rf "$dest"
mv "$dest.tmp" "$dest"
echo "fetch-model: $name in $dest (use --embedder transformer:$dest)"

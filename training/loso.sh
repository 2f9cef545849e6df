#!/usr/bin/env bash
# loso.sh: leave-one-source-out validation of the labelled training sources. For each of bfcl,
# metatool and seal_tools, trains scout's static model on the other two plus the usual corpora
# (training/build-model.sh --with-labelled, reusing the pair files, int8 export) and measures
# dense-only retrieval on the held-out source's own catalog and queries with `scout eval`. The
# evaluation datasets are never used here (they are only kept out of the pairs).
#   training/loso.sh LABELLED_DIR NAME [build-model.sh options...]
# prints one markdown row per held-out source: | NAME | source | H@1 | H@5 | MRR |.
# Needs a pair directory from one `training/build-model.sh --with-labelled DIR` run (or its
# make_pairs step) and the scout binary ($SCOUT_BIN, default build/bin/scout).
set -euo pipefail
cd "$(dirname "$0")/.."
labelled="$1"
name="$2"
shift 2
scout="${SCOUT_BIN:-build/bin/scout}"
work="${SCOUT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/scout}/training/loso"
mkdir -p "$work"
all="bfcl metatool seal_tools"
for held in $all; do
  train=$(for s in $all; do [ "$s" = "$held" ] || printf '%s,' "$s"; done)
  out="$work/$name-without-$held.swm"
  bash training/build-model.sh --reuse-pairs --int8 --with-labelled "$labelled" \
    --labelled-sources "${train%,}" --out "$out" "$@" >"$out.log" 2>&1
  "$scout" eval --catalog "$labelled/$held/catalog.json" --queries "$labelled/$held/queries.json" \
    --mode dense --embedder "static:$out" 2>/dev/null |
    awk -v name="$name" -v held="$held" '$1 == "dense" { printf "| %s | %s | %.3f | %.3f | %.3f |\n", name, held, $2, $3, $5 }'
done

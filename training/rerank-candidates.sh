#!/usr/bin/env bash
# rerank-candidates.sh: writes the re-ranker's training rows (`scout eval --rerank-candidates`)
# for the three training sources, then trains the weights file with train_reranker.py:
#
#   training/rerank-candidates.sh [BUILD_DIR] [OUT_DIR]
#
# BUILD_DIR holds bin/scout (default build-dev); OUT_DIR receives <source>.txt (default
# $SCOUT_CACHE_DIR/training/rerank, else ~/.cache/scout/training/rerank). The training sets are
# $SCOUT_TRAINING (default ../shared/training next to the checkout); the evaluation sets are never
# read. The default embedder (scout's static model) and default options, as a search uses them.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build-dev}"
out="${2:-${SCOUT_CACHE_DIR:-$HOME/.cache/scout}/training/rerank}"
training="${SCOUT_TRAINING:-../shared/training}"
mkdir -p "$out"
# <source>.txt holds every fused candidate; <source>.dN.txt the first N, their features computed
# over those N, for a model of depth N (train_reranker.py's DEPTHS).
for source in bfcl metatool seal_tools; do
    "$build/bin/scout" eval --quiet --mode hybrid \
        --catalog "$training/$source/catalog.json" --queries "$training/$source/queries.json" \
        --rerank-candidates "$out/$source.txt"
    for depth in 10 5; do
        "$build/bin/scout" eval --quiet --mode hybrid \
            --catalog "$training/$source/catalog.json" --queries "$training/$source/queries.json" \
            --rerank-candidates "$out/$source.d$depth.txt" --rerank-depth "$depth"
    done
done
python3 training/train_reranker.py --candidates "$out" --out data/scout-reranker.txt
sha256sum data/scout-reranker.txt

#!/usr/bin/env bash
# rerank_table.sh: the learned re-ranker's quality table (docs/quality.md): Hit@1 / Hit@5 / MRR
# of BM25, dense, the default hybrid and hybrid + re-ranker on every dataset, with the p50
# latency of hybrid and of hybrid + re-ranker (one thread).
#   benchmarks/quality/rerank_table.sh [MODEL]   (default data/scout-reranker.txt)
set -euo pipefail
source "$(dirname "$0")/datasets.sh"
model="${1:-$root/data/scout-reranker.txt}"
printf '| dataset | bm25 | dense | hybrid (default) | **hybrid + re-ranker** | p50 µs hybrid / + re-ranker |\n|---|---|---|---|---|---|\n'
run() {  # name catalog queries
    "$scout" eval --quiet --catalog "$2" --queries "$3" --mode all --rerank "$model" 2>/dev/null |
        awk -v name="$1" '
            $1 == "bm25" || $1 == "dense" || $1 == "hybrid" || $1 == "hybrid+rerank" {
                m[$1] = sprintf("%.3f / %.3f / %.3f", $2, $3, $5); p[$1] = $8 }
            END { printf "| %s | %s | %s | %s | %s | %s / %s |\n", name, m["bm25"], m["dense"],
                  m["hybrid"], m["hybrid+rerank"], p["hybrid"], p["hybrid+rerank"] }'
}
each_dataset run

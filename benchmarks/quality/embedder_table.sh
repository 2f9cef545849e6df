#!/usr/bin/env bash
# embedder_table.sh: per dataset and offline embedder (GloVe, scout's static model), Hit@1 /
# Hit@5 / MRR of BM25, dense alone and the default hybrid, and the union bound (a relevant tool
# in the top 5 of BM25 or of dense: what no fusion can beat at 5). Datasets: the public ones in
# $SCOUT_DATASETS (default ../shared/datasets next to the checkout, read at run time) and the
# project's own data/enterprise_catalog.json + data/queries-49.json. Extra arguments go to every
# scout eval. Usage: benchmarks/quality/embedder_table.sh [--embedders "glove static"] [...]
set -euo pipefail
source "$(dirname "$0")/datasets.sh"
embedders="glove static"
if [[ "${1:-}" == "--embedders" ]]; then
    embedders="$2"
    shift 2
fi
printf '| dataset | embedder | bm25 | dense | hybrid (default) | union bound H@5 |\n|---|---|---|---|---|---|\n'
run() {  # name catalog queries [args...]
    local name="$1" catalog="$2" queries="$3"
    shift 3
    for e in $embedders; do
        "$scout" eval --catalog "$catalog" --queries "$queries" --mode all --embedder "$e" "$@" 2>/dev/null |
            awk -v name="$name" -v e="$e" '
                $1 == "bm25" || $1 == "dense" || $1 == "hybrid" { m[$1] = sprintf("%.3f / %.3f / %.3f", $2, $3, $5) }
                $1 == "union" { u = sprintf("%.3f", $3) }
                END { printf "| %s | %s | %s | %s | %s | %s |\n", name, e, m["bm25"], m["dense"], m["hybrid"], u }'
    done
}
each_dataset run "$@"

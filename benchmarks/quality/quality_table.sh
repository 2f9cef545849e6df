#!/usr/bin/env bash
# quality_table.sh: one retrieval-quality table over every labelled dataset: the public ones in
# $SCOUT_DATASETS (default ../shared/datasets next to the checkout, read at run time, never
# copied) and the
# project's own data/enterprise_catalog.json + data/queries-49.json; rows bm25, dense and hybrid
# with each fusion method (scout eval --fusion all). Extra arguments go to every scout eval.
# Usage: benchmarks/quality/quality_table.sh [--auto-k on] [other scout eval options]
set -euo pipefail
source "$(dirname "$0")/datasets.sh"
printf '| dataset | mode | H@1 | H@5 | MRR | mean auto k | H@auto k |\n|---|---|---|---|---|---|---|\n'
run() {  # name catalog queries [args...]
    local name="$1" catalog="$2" queries="$3"
    shift 3
    "$scout" eval --catalog "$catalog" --queries "$queries" --fusion all "$@" 2>/dev/null |
        awk -v name="$name" '$1 ~ /^(bm25|dense|hybrid)/ {
            auto_k = NF >= 12 ? sprintf("%s | %s", $11, $12) : "- | -"
            printf "| %s | %s | %s | %s | %s | %s |\n", name, $1, $2, $3, $5, auto_k }'
}
each_dataset run "$@"

#!/usr/bin/env bash
# calibration_table.sh: per labelled dataset (datasets.sh), Hit@1 / Hit@5 / MRR of BM25, dense,
# the default hybrid and the hybrid with a calibration file from `scout calibrate` (fitted on
# the training sets only). Extra arguments (e.g. --embedder SPEC, which must be the calibrated
# model) go to every scout eval.
# Usage: benchmarks/quality/calibration_table.sh CALIBRATION [scout eval options]
set -euo pipefail
source "$(dirname "$0")/datasets.sh"
[ $# -ge 1 ] || { echo "usage: $0 CALIBRATION [scout eval options]" >&2; exit 2; }
calibration="$1"
shift
cell() {  # eval output, mode
    awk -v mode="$2" '$1 == mode { printf "%s / %s / %s", $2, $3, $5 }' <<<"$1"
}
row() {  # name catalog queries [args...]
    local name="$1" catalog="$2" queries="$3" all calibrated
    shift 3
    all="$("$scout" eval --catalog "$catalog" --queries "$queries" --mode all "$@" 2>/dev/null)"
    calibrated="$("$scout" eval --catalog "$catalog" --queries "$queries" --mode hybrid \
        --calibration "$calibration" "$@" 2>/dev/null)"
    printf '| %s | %s | %s | %s | %s |\n' "$name" "$(cell "$all" bm25)" "$(cell "$all" dense)" \
        "$(cell "$all" hybrid)" "$(cell "$calibrated" hybrid)"
}
printf '| dataset | BM25 | dense | hybrid, default | hybrid, calibrated |\n|---|---|---|---|---|\n'
each_dataset row "$@"

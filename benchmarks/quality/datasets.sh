# datasets.sh: sourced by the quality tables. Sets root, scout and datasets, and defines
# each_dataset <fn> [args...], which calls fn <name> <catalog> <queries> [args...] for every
# labelled public dataset in $SCOUT_DATASETS (default ../shared/datasets next to the checkout,
# read at run time, never copied) and then for the project's own 49-query set.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
scout="${SCOUT_BIN:-$root/build/bin/scout}"
datasets="${SCOUT_DATASETS:-$root/../shared/datasets}"

each_dataset() {
    local fn="$1" dir
    shift
    for dir in "$datasets"/*/; do
        if [[ -f "$dir/catalog.json" && -f "$dir/queries.json" ]]; then
            "$fn" "$(basename "$dir")" "$dir/catalog.json" "$dir/queries.json" "$@"
        fi
    done
    "$fn" queries-49 "$root/data/enterprise_catalog.json" "$root/data/queries-49.json" "$@"
}

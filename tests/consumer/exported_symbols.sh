#!/usr/bin/env bash
# exported_symbols.sh LIB [WANTED...]: libscout.so (or a component's library) exports scout's
# public API (the C++ classes and the C ABI) and nothing of its internals: no hnswlib, nlohmann,
# Eigen or scout::detail symbol, so two copies of scout, or scout next to another copy of those
# libraries, never clash in one process. WANTED: symbols it must export (default: libscout's).
set -euo pipefail
lib="$1"
shift
wanted=('scout::Catalog::create' 'scout::Searcher::search' 'scout::version()'
    'scout_catalog_create' 'scout_searcher_search' 'scout_last_error' 'typeinfo for scout::Embedder')
if [ "$#" -gt 0 ]; then
    wanted=("$@")
fi
symbols="$(nm -DC --defined-only "$lib" | cut -d" " -f3-)"
count="$(wc -l <<<"$symbols")"
leaks="$(grep -E 'hnswlib|nlohmann|Eigen|scout_eigen|scout::detail|::Impl::|^(std|__gnu_cxx)::' <<<"$symbols" || true)"
if [ -n "$leaks" ]; then
    echo "exported_symbols: $lib exports internals:" >&2
    head -20 <<<"$leaks" >&2
    exit 1
fi
for symbol in "${wanted[@]}"; do
    grep -qF "$symbol" <<<"$symbols" || {
        echo "exported_symbols: $lib does not export $symbol" >&2
        exit 1
    }
done
echo "exported_symbols: $count defined dynamic symbols, none internal"

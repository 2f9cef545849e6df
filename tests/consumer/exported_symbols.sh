#!/usr/bin/env bash
# exported_symbols.sh LIB: libscout.so exports scout's public API (the C++ classes and the C ABI)
# and nothing of its internals: no hnswlib, nlohmann or scout::detail symbol, so two copies of
# scout, or scout next to another copy of those libraries, never clash in one process.
set -euo pipefail
lib="$1"
symbols="$(nm -DC --defined-only "$lib" | cut -d" " -f3-)"
count="$(wc -l <<<"$symbols")"
leaks="$(grep -E 'hnswlib|nlohmann|scout::detail|::Impl::|^(std|__gnu_cxx)::' <<<"$symbols" || true)"
if [ -n "$leaks" ]; then
    echo "exported_symbols: $lib exports internals:" >&2
    head -20 <<<"$leaks" >&2
    exit 1
fi
for wanted in 'scout::Catalog::create' 'scout::Searcher::search' 'scout::version()' \
    'scout_catalog_create' 'scout_searcher_search' 'scout_last_error' 'typeinfo for scout::Embedder'; do
    grep -qF "$wanted" <<<"$symbols" || {
        echo "exported_symbols: $lib does not export $wanted" >&2
        exit 1
    }
done
echo "exported_symbols: $count defined dynamic symbols, none internal"

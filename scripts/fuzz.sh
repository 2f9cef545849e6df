#!/usr/bin/env bash
# fuzz.sh: builds the index-reader fuzzer with clang (libFuzzer + ASan + UBSan) in build-fuzz/
# and runs it for a bounded time (default 60 s; SCOUT_FUZZ_SECONDS overrides), seeded with real
# index files written by the scout CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${SCOUT_FUZZ_SECONDS:-60}"
cxx="$(command -v clang++-14 || command -v clang++ || true)"
if [ -z "$cxx" ]; then
  echo "fuzz: clang++ not found (scripts/debian-packages.txt lists clang and libclang-rt-14-dev)" >&2
  exit 1
fi

cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSCOUT_FUZZ=ON -DSCOUT_SANITIZE=address,undefined -DSCOUT_BUILD_TESTS=OFF \
  -DSCOUT_BUILD_BENCHMARKS=OFF -DSCOUT_BUILD_EXAMPLES=ON -DSCOUT_WERROR=OFF
cmake --build build-fuzz -j"$(nproc)" --target scout_fuzz_index_reader scout_cli

corpus="build-fuzz/corpus"
rm -rf "$corpus"
mkdir -p "$corpus"
# Seeds: a tiny catalog with and without vectors (small inputs keep executions fast).
cat > build-fuzz/tiny.json <<'JSON'
{"servers": [{"name": "files", "description": "file store", "environment": "prod",
  "tools": [{"name": "read_file", "description": "read a file",
             "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}]},
 {"name": "mail", "description": "email", "status": "DEGRADED",
  "tools": [{"name": "send", "description": "send mail"}]}]}
JSON
build-fuzz/bin/scout index --catalog build-fuzz/tiny.json --embedder hashing:4 --out "$corpus/tiny-vecs.scoutidx"
build-fuzz/bin/scout index --catalog build-fuzz/tiny.json --embedder none --out "$corpus/tiny.scoutidx"

ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 \
  build-fuzz/bin/scout_fuzz_index_reader "$corpus" -max_total_time="$seconds" -max_len=65536 \
  -rss_limit_mb=2048 -print_final_stats=1

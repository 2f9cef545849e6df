#!/usr/bin/env bash
# sanitizers.sh: builds the tests with ASan+UBSan (all of them) and with TSan (the [concurrency]
# ones and the gateway tests, whose gateway runs dozens of threads), in build-asan/ and
# build-tsan/, and runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="$(nproc)"

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSCOUT_SANITIZE=address,undefined \
  -DSCOUT_BUILD_BENCHMARKS=OFF -DSCOUT_WERROR=ON
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"

cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCOUT_SANITIZE=thread \
  -DSCOUT_BUILD_BENCHMARKS=OFF -DSCOUT_WERROR=ON
cmake --build build-tsan -j"$jobs"
TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" ctest --test-dir build-tsan --output-on-failure -j"$jobs" -R 'concurrency|gateway_faults|^test_gateway(_http)?:'

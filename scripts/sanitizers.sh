#!/usr/bin/env bash
# sanitizers.sh: builds the tests with ASan+UBSan (all of them, in build-asan/, the build that also
# holds the fuzz targets: scripts/lib/asan-build.sh) and with TSan (the tests whose names mark
# concurrency, and the gateway tests, whose gateway runs dozens of threads, in build-tsan/), and
# runs them. Debug info is line tables only (-g1): all a sanitizer report needs, and much less to
# compile and link. In both builds the library and the gateway's parts are compiled at -O1 and the
# rest (tests, tools) at -O0, which compiles in about half the time of -O1
# (SCOUT_LIBRARY_COMPILE_OPTIONS). The ASan build's tests share a precompiled header; the TSan
# build's do not: GCC's (115 MB) costs about what it saves there (8 test files: 49.8 CPU s
# without, about the same with).
# Both builds are unity builds (SCOUT_UNITY_BUILD, on by default: the library, scout_mcp,
# scout_registry, the gateway's parts, the tools and the test programs in batches of 8 files),
# like the Release build.
# Usage: scripts/sanitizers.sh [all|asan|tsan-build|tsan-test]   (default all: the three in turn;
# tsan-test runs the tests of an existing tsan-build)
# The parts let .ci/run build the TSan tests beside other work and run them later.
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"
jobs="$(nproc)"

asan() {
  source scripts/lib/asan-build.sh
  configure_asan_build
  cmake --build build-asan -j"$jobs"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j"$jobs"
}

# TSan builds only the test programs that hold the selected tests (and what they run).
tsan_tests='concurrency|gateway_faults|^test_gateway(_http)?:'
tsan_targets=(test_concurrency test_concurrency_hnsw test_embed test_hardening test_http_embedder test_gateway
  test_gateway_http test_gateway_faults scout_gateway scout_fake_mcp_backend)

tsan_build() {
  # Every program that holds a selected test (as the full build lists them) must be built here.
  if [ -f build/CTestTestfile.cmake ]; then
    for program in $(ctest --test-dir build -N -R "$tsan_tests" |
                     sed -n 's/^ *Test *#[0-9]*: \([a-z_0-9]*\):.*/\1/p' | sort -u); do
      if [[ " ${tsan_targets[*]} " != *" $program "* ]]; then
        echo "sanitizers: $program holds TSan tests but is not in tsan_targets" >&2
        exit 1
      fi
    done
  fi
  cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCOUT_SANITIZE=thread \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O0 -g1 -DNDEBUG" \
    -DSCOUT_LIBRARY_COMPILE_OPTIONS=-O1 \
    -DSCOUT_BUILD_BENCHMARKS=OFF -DSCOUT_WERROR=ON
  cmake --build build-tsan -j"$jobs" --target "${tsan_targets[@]}"
}

tsan_test() {
  if [ ! -f build-tsan/CTestTestfile.cmake ]; then
    echo "sanitizers: build-tsan/ is not built; run '$0 tsan-build' first (or '$0' for all)" >&2
    exit 1
  fi
  TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" \
    ctest --test-dir build-tsan --output-on-failure -j"$jobs" -R "$tsan_tests"
}

case "$what" in
  all) asan; tsan_build; tsan_test ;;
  asan) asan ;;
  tsan-build) tsan_build ;;
  tsan-test) tsan_test ;;  # after tsan-build, which .ci/run runs in its lane
  *) echo "usage: $0 [all|asan|tsan-build|tsan-test]" >&2; exit 2 ;;
esac

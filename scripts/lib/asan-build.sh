# asan-build.sh (sourced by sanitizers.sh and fuzz.sh): configures build-asan/, the one
# AddressSanitizer + UndefinedBehaviorSanitizer build that holds both the tests and the libFuzzer
# targets, so the library is compiled once for both. clang, because libFuzzer is clang's. Debug's
# assertions stay on (an assertion a fuzzer trips is a finding). The library, the gateway's parts
# and the fuzz drivers, where the tests and the fuzzers spend their time, are compiled at -O1
# (much faster under ASan than -O0); the tests and tools at -O0, which compiles in half the time
# of -O1. Debug info is line tables only (-g1), all a report needs. The tests share one
# precompiled header (Catch2, nlohmann/json: SCOUT_PRECOMPILE_HEADERS), which at -O0 takes about
# 40% off their compile time (75 to 44 CPU s over 14 test files); every program links with lld
# when installed (CMakeLists.txt), a quarter of GNU ld's CPU time per test program.
configure_asan_build() {
  local cxx cc
  cxx="$(command -v clang++-14 || command -v clang++ || true)"
  cc="$(command -v clang-14 || command -v clang || true)"
  if [ -z "$cxx" ] || [ -z "$cc" ]; then
    echo "$0: clang not found (scripts/debian-packages.txt lists clang and libclang-rt-14-dev)" >&2
    exit 1
  fi
  # Warnings are not errors here: the Release build (GCC) is the warnings gate.
  cmake -S . -B build-asan -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" -DCMAKE_C_FLAGS_DEBUG="-O0 -g1" \
    -DSCOUT_LIBRARY_COMPILE_OPTIONS=-O1 -DSCOUT_PRECOMPILE_HEADERS=ON \
    -DSCOUT_SANITIZE=address,undefined -DSCOUT_FUZZ=ON -DSCOUT_BUILD_BENCHMARKS=OFF \
    -DSCOUT_WERROR=OFF
}

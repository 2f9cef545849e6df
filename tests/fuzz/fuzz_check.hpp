// fuzz_check.hpp: the fuzz targets' invariant check. A broken invariant traps, so libFuzzer
// records the input as a crash even in a build without assertions.
#pragma once

namespace scout::fuzz {

inline void check(bool ok) {
    if (!ok) {
        __builtin_trap();
    }
}

}  // namespace scout::fuzz

// index_reader_fuzz.cpp: libFuzzer target for the index file reader. Any byte string must give
// a clean Status (corrupt, version_unsupported) or a verified index, never a crash, a leak or
// undefined behaviour. Built with -DSCOUT_FUZZ=ON and clang (scripts/fuzz.sh); that build
// skips checksum comparisons so mutations reach the JSON and vector parsers behind them.
#include <cstddef>
#include <cstdint>
#include <span>

#include "scout/persistence.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto info = scout::inspect_index(std::span<const std::uint8_t>(data, size));
    if (info.ok() && info->file_bytes != size) {
        __builtin_trap();  // a verified index must describe exactly the bytes it was given
    }
    return 0;
}

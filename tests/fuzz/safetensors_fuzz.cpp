// safetensors_fuzz.cpp: libFuzzer target for the safetensors reader. Any byte string must give a
// clean Status or a tensor table whose every byte range lies inside the data, readable as floats
// without touching memory outside the input (ASan checks). Built by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "transformer/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    auto file = scout::detail::bert::parse_safetensors(bytes);
    if (!file.ok()) {
        return 0;
    }
    for (const auto& [name, info] : file->tensors) {
        if (info.end > file->data.size() || info.begin > info.end) {
            __builtin_trap();  // the parser promised in-bounds ranges
        }
        if (info.elements() <= (1U << 20)) {
            (void)file->floats(name, info.shape);
        }
    }
    return 0;
}

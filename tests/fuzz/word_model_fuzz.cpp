// word_model_fuzz.cpp: libFuzzer target for the static word model reader (.swm). Any byte
// string must give a clean Status or a model whose sizes agree with each other, never a crash,
// a leak or undefined behaviour. The target skips the checksum comparison so mutations
// reach the header, vocabulary, scale and weight checks behind it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "embed/word_model.hpp"
#include "util/fuzzing_mode.hpp"

// Mutated inputs get past the checksums to the parsers behind them.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
    scout::detail::skip_checksums_for_fuzzing();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    auto model = scout::detail::parse_word_model(bytes, "fuzz.swm");
    if (model.ok()) {
        const auto& table = model->table;
        if (table.values().size() != table.size() * table.dim() ||
            (!model->weights.empty() && model->weights.size() != table.size())) {
            __builtin_trap();
        }
        // Every word must be found at its own row.
        for (std::uint32_t row = 0; row < table.size(); ++row) {
            if (table.find(table.word(row)) != row) {
                __builtin_trap();
            }
        }
    }
    return 0;
}

// tokenizer_json_fuzz.cpp: libFuzzer target for tokenizer.json parsing and the tokenizer built
// from it. The input is a tokenizer.json, a 0 byte, then a text to tokenize: any bytes must give
// a clean Status, or ids within the tokenizer's range. Built by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "transformer/tokenizer_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::size_t split = input.find('\0');
    const std::string_view json = input.substr(0, split);
    const std::string_view text =
        split == std::string_view::npos ? std::string_view() : input.substr(split + 1);
    auto spec = scout::detail::bert::parse_tokenizer_json(json);
    if (!spec.ok()) {
        return 0;
    }
    const scout::detail::bert::WordPieceTokenizer tokenizer(std::move(spec.value()));
    for (std::int32_t id : tokenizer.encode(text, 16)) {
        if (id < 0 || id > tokenizer.max_id()) {
            __builtin_trap();
        }
    }
    return 0;
}

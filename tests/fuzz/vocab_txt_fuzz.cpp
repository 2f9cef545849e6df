// vocab_txt_fuzz.cpp: libFuzzer target for vocab.txt parsing and the tokenizer built from it.
// The input is a vocab.txt, a 0 byte, then a text to tokenize: any bytes must give a clean
// Status, or ids that are all in the vocabulary, with [CLS] ... [SEP] and truncation honoured.
// Built by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "transformer/tokenizer_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::size_t split = input.find('\0');
    const std::string_view vocab = input.substr(0, split);
    const std::string_view text =
        split == std::string_view::npos ? std::string_view() : input.substr(split + 1);
    auto spec = scout::detail::bert::parse_vocab_txt(vocab, scout::detail::bert::VocabSettings{});
    if (!spec.ok()) {
        return 0;
    }
    const scout::detail::bert::WordPieceTokenizer tokenizer(std::move(spec.value()));
    for (std::size_t max_length : {std::size_t{0}, std::size_t{8}}) {
        const auto ids = tokenizer.encode(text, max_length);
        if (ids.size() < 2 || (max_length > 0 && ids.size() > max_length)) {
            __builtin_trap();
        }
        for (std::int32_t id : ids) {
            if (id < 0 || id > tokenizer.max_id()) {
                __builtin_trap();
            }
        }
    }
    return 0;
}

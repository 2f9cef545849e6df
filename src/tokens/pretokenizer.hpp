// pretokenizer.hpp: the split step of byte-level BPE: UTF-8 -> code points -> pieces, following
// the cl100k_base and o200k_base patterns of gpt-tokenizer (hand-written, no regex engine).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "scout/token_counter.hpp"

namespace scout::detail::tokens {

/// Text decoded for splitting: the code points, and their UTF-8 bytes with every malformed byte
/// replaced by U+FFFD (as a JavaScript UTF-8 decoder would, approximately).
struct DecodedText {
    std::u32string cps;
    std::string bytes;                ///< re-encoded UTF-8, valid
    std::vector<std::size_t> offset;  ///< byte offset of each code point in `bytes`; size cps+1
};

[[nodiscard]] DecodedText decode_utf8(std::string_view text);

/// A piece is the code point range [begin, end).
struct Piece {
    std::size_t begin;
    std::size_t end;
};

/// Splits decoded text into pieces with the encoding's pattern; pieces cover the text in order.
[[nodiscard]] std::vector<Piece> split_pieces(std::u32string_view cps, TokenEncoding encoding);

}  // namespace scout::detail::tokens

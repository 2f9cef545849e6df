// utf8.hpp: UTF-8 validation, decoding and encoding (RFC 3629), shared by the analyzer, the
// token counter, the vector-file reader and the input validators.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace scout::detail {

/// Length of the well-formed UTF-8 sequence starting at text[i], or 0 if it is malformed
/// (overlong, surrogate, above U+10FFFF, truncated).
[[nodiscard]] std::size_t utf8_sequence_length(std::string_view text, std::size_t i) noexcept;

/// The code point of the well-formed sequence of `length` bytes at text[i]
/// (length from utf8_sequence_length, 1..4).
[[nodiscard]] char32_t utf8_decode_at(std::string_view text,
                                      std::size_t i,
                                      std::size_t length) noexcept;

/// Appends the UTF-8 encoding of `cp` (a scalar value, at most U+10FFFF) to `out`.
void utf8_append(std::string& out, char32_t cp);

/// True when `text` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
[[nodiscard]] bool is_valid_utf8(std::string_view text) noexcept;

}  // namespace scout::detail

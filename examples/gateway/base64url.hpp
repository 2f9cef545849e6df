// base64url.hpp: the unpadded base64url of JWS (RFC 7515 section 2), strict both ways: a decoder
// that accepts one spelling per byte string, so two different texts never verify as one token.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace scout::gateway {

/// The value 0..63 of one base64 character, whose alphabets differ only in the last two digits
/// ('+' '/' in base64, '-' '_' in base64url); -1 for any other character.
[[nodiscard]] int base64_sextet(char c, char digit62, char digit63) noexcept;

/// Bytes as base64url without padding.
[[nodiscard]] std::string base64url_encode(std::string_view bytes);

/// The bytes `text` spells, or nullopt when it is not canonical unpadded base64url: a character
/// outside [A-Za-z0-9_-], '=' padding, a length of 1 mod 4, or non-zero unused trailing bits.
[[nodiscard]] std::optional<std::string> base64url_decode(std::string_view text);

}  // namespace scout::gateway

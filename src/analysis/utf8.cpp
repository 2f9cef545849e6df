// utf8.cpp: UTF-8 validation (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
#include <cstdint>

#include "analysis/utf8.hpp"
#include "scout/analyzer.hpp"

namespace scout {

std::size_t utf8_sequence_length(std::string_view text, std::size_t i) noexcept {
    const auto byte = [&](std::size_t j) { return static_cast<std::uint8_t>(text[j]); };
    const auto cont = [&](std::size_t j) { return j < text.size() && (byte(j) & 0xC0U) == 0x80U; };
    const std::uint8_t b0 = byte(i);
    if (b0 < 0x80U) {
        return 1;
    }
    if (b0 >= 0xC2U && b0 <= 0xDFU) {
        return cont(i + 1) ? 2 : 0;
    }
    if (b0 >= 0xE0U && b0 <= 0xEFU) {
        if (!cont(i + 1) || !cont(i + 2)) {
            return 0;
        }
        const std::uint8_t b1 = byte(i + 1);
        if ((b0 == 0xE0U && b1 < 0xA0U) || (b0 == 0xEDU && b1 >= 0xA0U)) {
            return 0;  // overlong, or a UTF-16 surrogate
        }
        return 3;
    }
    if (b0 >= 0xF0U && b0 <= 0xF4U) {
        if (!cont(i + 1) || !cont(i + 2) || !cont(i + 3)) {
            return 0;
        }
        const std::uint8_t b1 = byte(i + 1);
        if ((b0 == 0xF0U && b1 < 0x90U) || (b0 == 0xF4U && b1 >= 0x90U)) {
            return 0;  // overlong, or above U+10FFFF
        }
        return 4;
    }
    return 0;
}

bool is_valid_utf8(std::string_view text) noexcept {
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = utf8_sequence_length(text, i);
        if (n == 0) {
            return false;
        }
        i += n;
    }
    return true;
}

}  // namespace scout

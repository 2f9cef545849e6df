// utf8.cpp: UTF-8 validation (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF),
// decoding and encoding.
#include "util/utf8.hpp"

#include <cstdint>
#include <cstring>

namespace scout::detail {

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

char32_t utf8_decode_at(std::string_view text, std::size_t i, std::size_t length) noexcept {
    const auto b = [&](std::size_t k) {
        return static_cast<char32_t>(static_cast<unsigned char>(text[i + k]));
    };
    switch (length) {
        case 1:
            return b(0);
        case 2:
            return ((b(0) & 0x1FU) << 6U) | (b(1) & 0x3FU);
        case 3:
            return ((b(0) & 0x0FU) << 12U) | ((b(1) & 0x3FU) << 6U) | (b(2) & 0x3FU);
        default:
            return ((b(0) & 0x07U) << 18U) | ((b(1) & 0x3FU) << 12U) | ((b(2) & 0x3FU) << 6U) |
                   (b(3) & 0x3FU);
    }
}

void utf8_append(std::string& out, char32_t cp) {
    const auto byte = [&](char32_t v) {
        out.push_back(static_cast<char>(static_cast<unsigned char>(v)));
    };
    if (cp < 0x80U) {
        byte(cp);
    } else if (cp < 0x800U) {
        byte(0xC0U | (cp >> 6U));
        byte(0x80U | (cp & 0x3FU));
    } else if (cp < 0x10000U) {
        byte(0xE0U | (cp >> 12U));
        byte(0x80U | ((cp >> 6U) & 0x3FU));
        byte(0x80U | (cp & 0x3FU));
    } else {
        byte(0xF0U | (cp >> 18U));
        byte(0x80U | ((cp >> 12U) & 0x3FU));
        byte(0x80U | ((cp >> 6U) & 0x3FU));
        byte(0x80U | (cp & 0x3FU));
    }
}

bool is_valid_utf8(std::string_view text) noexcept {
    for (std::size_t i = 0; i < text.size();) {
        // Eight ASCII bytes at a time: most text is ASCII, and index files check tens of MB.
        constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;
        while (text.size() - i >= sizeof(std::uint64_t)) {
            std::uint64_t word = 0;
            std::memcpy(&word, text.data() + i, sizeof word);
            if ((word & kHighBits) != 0) {
                break;
            }
            i += sizeof word;
        }
        if (i == text.size()) {
            break;
        }
        const std::size_t n = utf8_sequence_length(text, i);
        if (n == 0) {
            return false;
        }
        i += n;
    }
    return true;
}

}  // namespace scout::detail

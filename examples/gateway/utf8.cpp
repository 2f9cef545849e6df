// utf8.cpp: see utf8.hpp. The well-formed byte sequences of Unicode's table 3-7.
#include "utf8.hpp"

#include <cstddef>

namespace scout::gateway::detail {
namespace {

bool continuation(unsigned char b) noexcept {
    return (b & 0xC0U) == 0x80U;
}

/// The length of the well-formed sequence at `i`, or 0 when it is not one.
std::size_t sequence_length(std::string_view text, std::size_t i) noexcept {
    const auto at = [&text](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = at(i);
    if (lead < 0x80U) {
        return 1;
    }
    std::size_t n = 0;
    unsigned char low = 0x80U;  // the range of the second byte, narrower for some leads
    unsigned char high = 0xBFU;
    if (lead >= 0xC2U && lead <= 0xDFU) {
        n = 2;
    } else if (lead >= 0xE0U && lead <= 0xEFU) {
        n = 3;
        low = lead == 0xE0U ? 0xA0U : low;    // no overlong forms
        high = lead == 0xEDU ? 0x9FU : high;  // no surrogates
    } else if (lead >= 0xF0U && lead <= 0xF4U) {
        n = 4;
        low = lead == 0xF0U ? 0x90U : low;    // no overlong forms
        high = lead == 0xF4U ? 0x8FU : high;  // nothing above U+10FFFF
    } else {
        return 0;
    }
    if (text.size() - i < n || at(i + 1) < low || at(i + 1) > high) {
        return 0;
    }
    for (std::size_t k = 2; k < n; ++k) {
        if (!continuation(at(i + k))) {
            return 0;
        }
    }
    return n;
}

}  // namespace

bool is_valid_utf8(std::string_view text) noexcept {
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = sequence_length(text, i);
        if (n == 0) {
            return false;
        }
        i += n;
    }
    return true;
}

}  // namespace scout::gateway::detail

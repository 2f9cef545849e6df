// unicode_class.cpp: code point -> CpClass lookup over the generated range table.
#include <algorithm>
#include <array>

#include "tokens/unicode_tables.hpp"

namespace scout::detail::tokens {
namespace {

CpClass search(char32_t cp) noexcept {
    const CpRange* begin = kCpRanges;
    const CpRange* end = kCpRanges + kCpRangeCount;
    const CpRange* it =
        std::upper_bound(begin, end, cp, [](char32_t v, const CpRange& r) { return v < r.first; });
    if (it == begin) {
        return CpClass::kOther;
    }
    --it;
    return cp <= it->last ? it->cls : CpClass::kOther;
}

// ASCII dominates JSON and English text; a flat table avoids the search for it.
const std::array<CpClass, 128> kAscii = [] {
    std::array<CpClass, 128> table{};
    for (char32_t c = 0; c < 128; ++c) {
        table[c] = search(c);
    }
    return table;
}();

}  // namespace

CpClass cp_class(char32_t cp) noexcept {
    return cp < 128 ? kAscii[cp] : search(cp);
}

}  // namespace scout::detail::tokens

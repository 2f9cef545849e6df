// unicode_tables.hpp: the code point classes the BPE pre-tokenizer needs (letters split by
// case, marks, numbers, JavaScript whitespace), as sorted ranges generated from Node.js's
// Unicode data (scripts/dev/gen-unicode-tables.js), plus a binary-search lookup.
#pragma once

#include <cstddef>
#include <cstdint>

namespace scout::detail::tokens {

/// One class per code point. Surrogates and unassigned code points are kOther.
enum class CpClass : std::uint8_t {
    kOther,
    kUpper,        ///< Lu
    kLower,        ///< Ll
    kTitle,        ///< Lt
    kModifier,     ///< Lm
    kOtherLetter,  ///< Lo
    kMark,         ///< M (Mn, Mc, Me)
    kNumber,       ///< N (Nd, Nl, No)
    kSpace,        ///< JavaScript \s: Unicode White_Space plus U+FEFF
};

struct CpRange {
    char32_t first;
    char32_t last;
    CpClass cls;
};

extern const CpRange kCpRanges[];
extern const std::size_t kCpRangeCount;

/// Class of a code point (ASCII by table, the rest by binary search over kCpRanges).
[[nodiscard]] CpClass cp_class(char32_t cp) noexcept;

[[nodiscard]] inline bool is_letter(CpClass c) noexcept {
    return c >= CpClass::kUpper && c <= CpClass::kOtherLetter;
}

}  // namespace scout::detail::tokens

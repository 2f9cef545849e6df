// bert_unicode_tables.hpp: the Unicode data of the BERT normalizer and pre-tokenizer, generated
// by scripts/dev/gen-bert-unicode.js (see there for sources and versions). Every table is sorted
// by code point, for binary search.
#pragma once

#include <cstddef>
#include <cstdint>

namespace scout::detail::bert {

struct CodeRange {
    char32_t first;
    char32_t last;
};

/// A code point whose canonical decomposition (NFD, fully expanded) is kDecompositionPool
/// [offset, offset + length). Hangul syllables are decomposed algorithmically, not listed.
struct Decomposition {
    char32_t code;
    std::uint16_t offset;
    std::uint8_t length;
};

struct CombiningClass {
    char32_t code;
    std::uint8_t value;
};

/// Full lowercase mapping: up to three code points, unused slots 0.
struct CaseMapping {
    char32_t code;
    char32_t lower[3];
};

extern const CodeRange kControlRanges[];  ///< Cc, Cf, Co
extern const std::size_t kControlCount;
extern const CodeRange kWhitespaceRanges[];  ///< White_Space
extern const std::size_t kWhitespaceCount;
extern const CodeRange kPunctuationRanges[];  ///< P* (ASCII symbols are added by the caller)
extern const std::size_t kPunctuationCount;
extern const CodeRange kNonspacingMarkRanges[];  ///< Mn
extern const std::size_t kNonspacingMarkCount;
extern const Decomposition kDecompositions[];
extern const std::size_t kDecompositionCount;
extern const char32_t kDecompositionPool[];
extern const CombiningClass kCombiningClasses[];  ///< non-zero canonical combining classes
extern const std::size_t kCombiningClassCount;
extern const CaseMapping kLowercase[];  ///< code points whose lowercase differs
extern const std::size_t kLowercaseCount;

}  // namespace scout::detail::bert

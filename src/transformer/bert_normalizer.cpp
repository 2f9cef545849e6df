// bert_normalizer.cpp: see bert_normalizer.hpp. Table lookups are binary searches over the
// generated bert_unicode_tables.cpp.
#include "transformer/bert_normalizer.hpp"

#include <algorithm>
#include <cstdint>

#include "transformer/bert_unicode_tables.hpp"

namespace scout::detail::bert {
namespace {

bool in_ranges(const CodeRange* ranges, std::size_t count, char32_t c) noexcept {
    const CodeRange* end = ranges + count;
    const CodeRange* it = std::upper_bound(
        ranges, end, c, [](char32_t v, const CodeRange& r) { return v < r.first; });
    return it != ranges && c <= (it - 1)->last;
}

template <typename Row>
const Row* find_row(const Row* rows, std::size_t count, char32_t c) noexcept {
    const Row* end = rows + count;
    const Row* it =
        std::lower_bound(rows, end, c, [](const Row& r, char32_t v) { return r.code < v; });
    return it != end && it->code == c ? it : nullptr;
}

std::uint8_t combining_class(char32_t c) noexcept {
    const CombiningClass* row = find_row(kCombiningClasses, kCombiningClassCount, c);
    return row == nullptr ? 0 : row->value;
}

bool is_nonspacing_mark(char32_t c) noexcept {
    return in_ranges(kNonspacingMarkRanges, kNonspacingMarkCount, c);
}

constexpr char32_t kHangulBase = 0xAC00;
constexpr char32_t kHangulCount = 11172;

void append_decomposition(std::u32string& out, char32_t c) {
    if (c >= kHangulBase && c < kHangulBase + kHangulCount) {
        const char32_t index = c - kHangulBase;
        out.push_back(0x1100 + index / 588);
        out.push_back(0x1161 + (index % 588) / 28);
        if (index % 28 != 0) {
            out.push_back(0x11A7 + index % 28);
        }
        return;
    }
    if (const Decomposition* d = find_row(kDecompositions, kDecompositionCount, c)) {
        out.append(kDecompositionPool + d->offset, d->length);
        return;
    }
    out.push_back(c);
}

/// NFD: full decomposition, then the canonical ordering of each run of non-starters.
std::u32string nfd(std::u32string_view text) {
    std::u32string out;
    out.reserve(text.size());
    for (char32_t c : text) {
        append_decomposition(out, c);
    }
    std::size_t i = 0;
    while (i < out.size()) {
        if (combining_class(out[i]) == 0) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < out.size() && combining_class(out[j]) != 0) {
            ++j;
        }
        std::stable_sort(
            out.begin() + static_cast<std::ptrdiff_t>(i),
            out.begin() + static_cast<std::ptrdiff_t>(j),
            [](char32_t a, char32_t b) { return combining_class(a) < combining_class(b); });
        i = j;
    }
    return out;
}

}  // namespace

std::u32string decode_utf8(std::string_view text) {
    std::u32string out;
    out.reserve(text.size());
    const auto byte = [&](std::size_t j) { return static_cast<std::uint8_t>(text[j]); };
    std::size_t i = 0;
    while (i < text.size()) {
        const std::uint8_t b0 = byte(i);
        if (b0 < 0x80) {
            out.push_back(b0);
            ++i;
            continue;
        }
        std::size_t need = 0;
        char32_t code = 0;
        std::uint8_t lo = 0x80;
        std::uint8_t hi = 0xBF;
        if (b0 >= 0xC2 && b0 <= 0xDF) {
            need = 1;
            code = b0 & 0x1FU;
        } else if (b0 >= 0xE0 && b0 <= 0xEF) {
            need = 2;
            code = b0 & 0x0FU;
            lo = b0 == 0xE0 ? 0xA0 : 0x80;  // no overlongs
            hi = b0 == 0xED ? 0x9F : 0xBF;  // no surrogates
        } else if (b0 >= 0xF0 && b0 <= 0xF4) {
            need = 3;
            code = b0 & 0x07U;
            lo = b0 == 0xF0 ? 0x90 : 0x80;
            hi = b0 == 0xF4 ? 0x8F : 0xBF;
        } else {
            out.push_back(0xFFFD);
            ++i;
            continue;
        }
        // The maximal subpart: consume continuation bytes while they stay well-formed.
        std::size_t j = i + 1;
        bool complete = true;
        for (std::size_t k = 0; k < need; ++k, ++j) {
            const bool first = k == 0;
            if (j >= text.size() || byte(j) < (first ? lo : 0x80) ||
                byte(j) > (first ? hi : 0xBF)) {
                complete = false;
                break;
            }
            code = (code << 6U) | (byte(j) & 0x3FU);
        }
        out.push_back(complete ? code : 0xFFFD);
        i = j;
    }
    return out;
}

bool is_bert_whitespace(char32_t c) noexcept {
    return c == '\t' || c == '\n' || c == '\r' || in_ranges(kWhitespaceRanges, kWhitespaceCount, c);
}

bool is_bert_control(char32_t c) noexcept {
    return c != '\t' && c != '\n' && c != '\r' && in_ranges(kControlRanges, kControlCount, c);
}

bool is_bert_punctuation(char32_t c) noexcept {
    const bool ascii = (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
                       (c >= 123 && c <= 126);
    return ascii || in_ranges(kPunctuationRanges, kPunctuationCount, c);
}

bool is_chinese_char(char32_t c) noexcept {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
           (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
           (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

std::u32string normalize(std::u32string_view text, const NormalizerOptions& options) {
    std::u32string out;
    out.reserve(text.size() + 8);
    for (char32_t c : text) {
        if (options.clean_text) {
            if (c == 0 || c == 0xFFFD || is_bert_control(c)) {
                continue;
            }
            if (is_bert_whitespace(c)) {
                c = ' ';
            }
        }
        if (options.handle_chinese_chars && is_chinese_char(c)) {
            out.push_back(' ');
            out.push_back(c);
            out.push_back(' ');
        } else {
            out.push_back(c);
        }
    }
    if (options.strip_accents) {
        std::u32string decomposed = nfd(out);
        out.clear();
        for (char32_t c : decomposed) {
            if (!is_nonspacing_mark(c)) {
                out.push_back(c);
            }
        }
    }
    if (options.lowercase) {
        std::u32string lowered;
        lowered.reserve(out.size());
        for (char32_t c : out) {
            if (c < 0x80) {
                lowered.push_back(c >= 'A' && c <= 'Z' ? c + 32 : c);
            } else if (const CaseMapping* m = find_row(kLowercase, kLowercaseCount, c)) {
                for (char32_t l : m->lower) {
                    if (l != 0) {
                        lowered.push_back(l);
                    }
                }
            } else {
                lowered.push_back(c);
            }
        }
        out = std::move(lowered);
    }
    return out;
}

}  // namespace scout::detail::bert

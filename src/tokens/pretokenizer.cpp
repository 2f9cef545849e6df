// pretokenizer.cpp: hand-written matchers for gpt-tokenizer's split patterns. Each alternative of
// the JavaScript regex is tried in order at the current position, with the backtracking a regex
// engine would do written out explicitly:
//   cl100k: '(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]) | [^\r\n\p{L}\p{N}]?\p{L}+ |
//           \p{N}{1,3} |  ?[^\s\p{L}\p{N}]+[\r\n]* | \s+$ | \s*[\r\n] | \s+(?!\S) | \s
//   o200k:  [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'s|...)?
//   |
//           [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'s|...)?
//           | \p{N}{1,3} |  ?[^\s\p{L}\p{N}]+[\r\n/]* | \s*[\r\n]+ | \s+(?!\S) | \s+
// (contraction suffixes are case-insensitive in both).
#include "tokens/pretokenizer.hpp"

#include "tokens/unicode_tables.hpp"
#include "util/utf8.hpp"

namespace scout::detail::tokens {
namespace {

constexpr char32_t kReplacement = 0xFFFD;

/// The per-position view the matchers need: classes are looked up once per code point.
class Scanner {
public:
    explicit Scanner(std::u32string_view cps) : cps_(cps), cls_(cps.size()) {
        for (std::size_t i = 0; i < cps.size(); ++i) {
            cls_[i] = cp_class(cps[i]);
        }
    }
    [[nodiscard]] std::size_t size() const { return cps_.size(); }
    [[nodiscard]] bool newline(std::size_t i) const {
        return i < size() && (cps_[i] == U'\r' || cps_[i] == U'\n');
    }
    [[nodiscard]] bool space(std::size_t i) const {
        return i < size() && cls_[i] == CpClass::kSpace;
    }
    [[nodiscard]] bool letter(std::size_t i) const { return i < size() && is_letter(cls_[i]); }
    [[nodiscard]] bool number(std::size_t i) const {
        return i < size() && cls_[i] == CpClass::kNumber;
    }
    /// [^\s\p{L}\p{N}]
    [[nodiscard]] bool punct(std::size_t i) const {
        return i < size() && !space(i) && !letter(i) && !number(i);
    }
    /// [^\r\n\p{L}\p{N}]
    [[nodiscard]] bool prefix(std::size_t i) const {
        return i < size() && !newline(i) && !letter(i) && !number(i);
    }
    /// [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
    [[nodiscard]] bool upper_ish(std::size_t i) const {
        if (i >= size()) {
            return false;
        }
        const CpClass c = cls_[i];
        return c == CpClass::kUpper || c == CpClass::kTitle || c == CpClass::kModifier ||
               c == CpClass::kOtherLetter || c == CpClass::kMark;
    }
    /// [\p{Ll}\p{Lm}\p{Lo}\p{M}]
    [[nodiscard]] bool lower_ish(std::size_t i) const {
        if (i >= size()) {
            return false;
        }
        const CpClass c = cls_[i];
        return c == CpClass::kLower || c == CpClass::kModifier || c == CpClass::kOtherLetter ||
               c == CpClass::kMark;
    }
    [[nodiscard]] bool is(std::size_t i, char lower) const {
        return i < size() && (cps_[i] == static_cast<char32_t>(lower) ||
                              cps_[i] == static_cast<char32_t>(lower - 'a' + 'A'));
    }
    /// Length of '(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]) at i, or 0.
    [[nodiscard]] std::size_t contraction(std::size_t i) const {
        if (i >= size() || cps_[i] != U'\'') {
            return 0;
        }
        if (is(i + 1, 's') || is(i + 1, 'd') || is(i + 1, 'm') || is(i + 1, 't')) {
            return 2;
        }
        if ((is(i + 1, 'l') && is(i + 2, 'l')) || (is(i + 1, 'v') && is(i + 2, 'e')) ||
            (is(i + 1, 'r') && is(i + 2, 'e'))) {
            return 3;
        }
        return 0;
    }
    template <typename Pred>
    [[nodiscard]] std::size_t run_end(std::size_t i, Pred pred) const {
        while (i < size() && pred(i)) {
            ++i;
        }
        return i;
    }

private:
    std::u32string_view cps_;
    std::vector<CpClass> cls_;
};

/// \p{N}{1,3}
std::size_t match_digits(const Scanner& s, std::size_t i) {
    std::size_t e = i;
    while (e < s.size() && e - i < 3 && s.number(e)) {
        ++e;
    }
    return e;
}

/// ' '?[^\s\p{L}\p{N}]+ followed by [\r\n]* (cl100k) or [\r\n/]* (o200k); i if no match.
std::size_t match_punct(const Scanner& s, std::u32string_view cps, std::size_t i, bool slash) {
    std::size_t p = i;
    if (cps[p] == U' ' && s.punct(p + 1)) {
        ++p;
    }
    if (!s.punct(p)) {
        return i;
    }
    std::size_t e = s.run_end(p, [&](std::size_t k) { return s.punct(k); });
    return s.run_end(e, [&](std::size_t k) { return s.newline(k) || (slash && cps[k] == U'/'); });
}

/// End (exclusive) of the last [\r\n] inside the whitespace run [i, run_end), or i if none.
std::size_t last_newline_end(const Scanner& s, std::size_t i, std::size_t run_end) {
    for (std::size_t k = run_end; k > i; --k) {
        if (s.newline(k - 1)) {
            return k;
        }
    }
    return i;
}

std::size_t next_cl100k(const Scanner& s, std::u32string_view cps, std::size_t i) {
    if (std::size_t c = s.contraction(i)) {
        return i + c;
    }
    if (s.prefix(i) && s.letter(i + 1)) {
        return s.run_end(i + 1, [&](std::size_t k) { return s.letter(k); });
    }
    if (s.letter(i)) {
        return s.run_end(i, [&](std::size_t k) { return s.letter(k); });
    }
    if (s.number(i)) {
        return match_digits(s, i);
    }
    if (std::size_t e = match_punct(s, cps, i, false); e > i) {
        return e;
    }
    // Whitespace: \s+$ | \s*[\r\n] | \s+(?!\S) | \s
    const std::size_t run = s.run_end(i, [&](std::size_t k) { return s.space(k); });
    if (run == s.size()) {
        return run;
    }
    if (std::size_t e = last_newline_end(s, i, run); e > i) {
        return e;
    }
    if (run - i >= 2) {
        return run - 1;
    }
    return i + 1;
}

/// The two letter alternatives of o200k; i if neither matches.
std::size_t match_o200k_word(const Scanner& s, std::size_t i) {
    const bool has_prefix = s.prefix(i);
    // Alternative 1: prefix? upper_ish* lower_ish+ contraction?; the prefix is tried first.
    for (int with = has_prefix ? 1 : 0; with >= 0; --with) {
        const std::size_t p = i + static_cast<std::size_t>(with);
        const std::size_t k = s.run_end(p, [&](std::size_t j) { return s.upper_ish(j); });
        for (std::size_t j = k + 1; j-- > p;) {  // upper_ish* gives back one code point at a time
            if (s.lower_ish(j)) {
                const std::size_t e = s.run_end(j, [&](std::size_t m) { return s.lower_ish(m); });
                return e + s.contraction(e);
            }
        }
    }
    // Alternative 2: prefix? upper_ish+ lower_ish* contraction?
    for (int with = has_prefix ? 1 : 0; with >= 0; --with) {
        const std::size_t p = i + static_cast<std::size_t>(with);
        const std::size_t k = s.run_end(p, [&](std::size_t j) { return s.upper_ish(j); });
        if (k > p) {
            const std::size_t e = s.run_end(k, [&](std::size_t m) { return s.lower_ish(m); });
            return e + s.contraction(e);
        }
    }
    return i;
}

std::size_t next_o200k(const Scanner& s, std::u32string_view cps, std::size_t i) {
    if (std::size_t e = match_o200k_word(s, i); e > i) {
        return e;
    }
    if (s.number(i)) {
        return match_digits(s, i);
    }
    if (std::size_t e = match_punct(s, cps, i, true); e > i) {
        return e;
    }
    // Whitespace: \s*[\r\n]+ | \s+(?!\S) | \s+
    const std::size_t run = s.run_end(i, [&](std::size_t k) { return s.space(k); });
    if (std::size_t e = last_newline_end(s, i, run); e > i) {
        return e;
    }
    if (run == s.size() || run - i < 2) {
        return run;
    }
    return run - 1;
}

}  // namespace

DecodedText decode_utf8(std::string_view text) {
    DecodedText out;
    out.cps.reserve(text.size());
    out.bytes.reserve(text.size());
    out.offset.reserve(text.size() + 1);
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = detail::utf8_sequence_length(text, i);
        const char32_t cp = n == 0 ? kReplacement : detail::utf8_decode_at(text, i, n);
        out.offset.push_back(out.bytes.size());
        out.cps.push_back(cp);
        if (n == 0) {
            detail::utf8_append(out.bytes, cp);
            i += 1;
        } else {
            out.bytes.append(text.substr(i, n));
            i += n;
        }
    }
    out.offset.push_back(out.bytes.size());
    return out;
}

std::vector<Piece> split_pieces(std::u32string_view cps, TokenEncoding encoding) {
    const Scanner scanner(cps);
    std::vector<Piece> pieces;
    for (std::size_t i = 0; i < cps.size();) {
        const std::size_t e = encoding == TokenEncoding::cl100k_base ? next_cl100k(scanner, cps, i)
                                                                     : next_o200k(scanner, cps, i);
        pieces.push_back({i, e});
        i = e;
    }
    return pieces;
}

}  // namespace scout::detail::tokens

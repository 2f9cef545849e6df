// analyzer.cpp: tokenizer and filter chain. Tokens are runs of letters/digits; identifier
// boundaries (case changes, letter/digit changes, _ - .) split them; CJK characters are single
// tokens; invalid UTF-8 bytes separate tokens. Then lowercase, stop words, stemming.
#include "analysis/analyzer.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "analysis/term_pipeline.hpp"
#include "util/utf8.hpp"

namespace scout::detail {
namespace {

enum class CharClass : std::uint8_t { separator, lower, upper, digit, other_letter, cjk };

struct CodePoint {
    CharClass cls;
    std::size_t len;
};

bool is_cjk(std::uint32_t cp) {
    return (cp >= 0x3040 && cp <= 0x30FF) ||  // kana
           (cp >= 0x3400 && cp <= 0x9FFF) ||  // CJK ideographs
           (cp >= 0xAC00 && cp <= 0xD7AF) ||  // Hangul syllables
           (cp >= 0xF900 && cp <= 0xFAFF) ||  // compatibility ideographs
           (cp >= 0x20000 && cp <= 0x2FFFF);
}

bool is_unicode_separator(std::uint32_t cp) {
    return (cp >= 0x2000 && cp <= 0x206F) ||  // general punctuation, spaces
           (cp >= 0x3000 && cp <= 0x303F) ||  // CJK punctuation
           (cp >= 0xFF00 && cp <= 0xFF0F) || cp == 0x00A0 || (cp >= 0x00A1 && cp <= 0x00BF) ||
           cp == 0x00D7 || cp == 0x00F7 || cp == 0xFEFF;
}

/// Classes of the ASCII bytes, one table per setting of keep_joiners (`_ - .` inside tokens).
using AsciiClasses = std::array<CharClass, 128>;

constexpr AsciiClasses ascii_classes(bool keep_joiners) {
    AsciiClasses table{};
    for (std::size_t c = 0; c < table.size(); ++c) {
        CharClass cls = CharClass::separator;
        // Joiners kept inside tokens count as lower-case letters.
        const bool joiner = keep_joiners && (c == '_' || c == '-' || c == '.');
        if ((c >= 'a' && c <= 'z') || joiner) {
            cls = CharClass::lower;
        } else if (c >= 'A' && c <= 'Z') {
            cls = CharClass::upper;
        } else if (c >= '0' && c <= '9') {
            cls = CharClass::digit;
        }
        table[c] = cls;
    }
    return table;
}

constexpr AsciiClasses kSplitClasses = ascii_classes(false);
constexpr AsciiClasses kJoinerClasses = ascii_classes(true);

/// The class of a character that is not ASCII, and its length in bytes.
CodePoint classify_non_ascii(std::string_view s, std::size_t i) {
    const std::size_t len = utf8_sequence_length(s, i);
    if (len == 0) {
        return {CharClass::separator, 1};  // an invalid byte separates, and is dropped
    }
    const std::uint32_t cp = utf8_decode_at(s, i, len);
    if (is_unicode_separator(cp)) {
        return {CharClass::separator, len};
    }
    return {is_cjk(cp) ? CharClass::cjk : CharClass::other_letter, len};
}

inline CodePoint classify(std::string_view s, std::size_t i, const AsciiClasses& ascii) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80U) {
        return {ascii[c], 1};
    }
    return classify_non_ascii(s, i);
}

/// True when a token must end between a character of class `prev` and one of class `cur`;
/// `next` is the class after `cur` (for "HTTPServer" -> "HTTP", "Server").
bool identifier_boundary(CharClass prev, CharClass cur, CharClass next) {
    const bool prev_alpha = prev == CharClass::lower || prev == CharClass::upper;
    const bool cur_alpha = cur == CharClass::lower || cur == CharClass::upper;
    if ((prev == CharClass::digit && cur_alpha) || (prev_alpha && cur == CharClass::digit)) {
        return true;
    }
    if (prev == CharClass::lower && cur == CharClass::upper) {
        return true;
    }
    return prev == CharClass::upper && cur == CharClass::upper && next == CharClass::lower;
}

/// Calls emit(token, joined) for every raw lowercase token of `text`. With `catenate`, a word of
/// ASCII letters that case changes split ("MySQL", "GitHub", "getPullRequest") is also emitted
/// whole after its parts (joined = true), so "MySQL" meets "mysql" as well as "sql". Words with
/// digits or other letters ("getV2Items", "ÉtatCivil") are not joined.
///
/// A token, and a word, is always a contiguous range of `text` (separators end both), so the
/// loop only tracks where they start; the bytes are copied and lowercased once, when emitted.
template <typename Emit>
void tokenize(std::string_view text, bool split_identifiers, bool catenate, Emit&& emit) {
    const AsciiClasses& ascii = split_identifiers ? kSplitClasses : kJoinerClasses;
    std::string token;
    std::size_t token_start = 0;
    bool in_token = false;
    std::size_t word_start = 0;  // the current word: its first letter, once `in_word`
    bool in_word = false;
    std::size_t word_parts = 0;  // parts the case changes cut it into so far
    bool word_broken = false;    // it holds a digit or a non-ASCII letter: never joined
    const auto emit_range = [&](std::size_t begin, std::size_t end, bool joined) {
        token.assign(text.data() + begin, end - begin);
        for (char& c : token) {
            if (c >= 'A' && c <= 'Z') {
                c = static_cast<char>(c - 'A' + 'a');
            }
        }
        emit(token, joined);
    };
    const auto flush = [&](std::size_t end) {
        if (in_token) {
            emit_range(token_start, end, false);
            in_token = false;
        }
    };
    const auto end_word = [&](std::size_t end) {
        if (catenate && in_word && !word_broken && word_parts >= 2) {
            emit_range(word_start, end, true);
        }
        in_word = false;
        word_parts = 0;
        word_broken = false;
    };
    CharClass prev = CharClass::separator;
    std::size_t i = 0;
    const std::size_t n = text.size();
    while (i < n) {
        const CodePoint cur = classify(text, i, ascii);
        const std::size_t next_i = i + cur.len;
        if (cur.cls == CharClass::separator) {
            flush(i);
            end_word(i);
        } else if (cur.cls == CharClass::cjk) {
            flush(i);
            end_word(i);
            emit_range(i, next_i, false);
        } else {
            if (split_identifiers && in_token) {
                // Only an upper-case letter after another needs the class of the character
                // after it ("HTTPServer" cuts before the S).
                const bool cut =
                    prev == CharClass::upper && cur.cls == CharClass::upper
                        ? next_i < n && classify(text, next_i, ascii).cls == CharClass::lower
                        : identifier_boundary(prev, cur.cls, CharClass::separator);
                if (cut) {
                    flush(i);
                    ++word_parts;
                }
            }
            if (!in_token) {
                token_start = i;
                in_token = true;
            }
            if (!in_word) {
                word_start = i;
                in_word = true;
            }
            if (cur.cls == CharClass::lower || cur.cls == CharClass::upper) {
                word_parts = std::max<std::size_t>(word_parts, 1);
            } else {
                word_broken = true;
            }
            if (cur.cls == CharClass::lower) {
                // A lower-case letter after one changes nothing (no cut, same token and word):
                // skip the rest of the run.
                std::size_t j = next_i;
                while (j < n && static_cast<unsigned char>(text[j]) < 0x80U &&
                       ascii[static_cast<unsigned char>(text[j])] == CharClass::lower) {
                    ++j;
                }
                prev = CharClass::lower;
                i = j;
                continue;
            }
        }
        prev = cur.cls;
        i = next_i;
    }
    flush(text.size());
    end_word(text.size());
}

}  // namespace

std::size_t Analyzer::kept_bytes(std::string_view token, std::size_t limit) noexcept {
    if (token.size() <= limit) {
        return token.size();
    }
    std::size_t cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(token[cut]) & 0xC0U) == 0x80U) {
        --cut;
    }
    return cut;
}

void Analyzer::raw_tokens(std::string_view text,
                          bool split_identifiers,
                          bool catenate,
                          std::string& arena,
                          std::vector<RawToken>& tokens) {
    tokenize(text, split_identifiers, catenate, [&](const std::string& token, bool joined) {
        tokens.push_back({arena.size(), token.size(), joined});
        arena += token;
    });
}

void Analyzer::analyze(std::string_view text, std::vector<std::string>& out) const {
    StringTermSink sink{out};
    tokenize(text,
             options_.split_identifiers,
             options_.keep_joined_case,
             [&](const std::string& token, bool) {
                 emit_word_terms(options_, kept_word(options_, token), 1.0f, sink);
             });
}

std::vector<std::string> Analyzer::analyze(std::string_view text) const {
    std::vector<std::string> out;
    analyze(text, out);
    return out;
}

std::string Analyzer::split_words(std::string_view identifier) {
    std::string out;
    tokenize(identifier, true, false, [&](const std::string& token, bool) {
        if (!out.empty()) {
            out.push_back(' ');
        }
        out += token;
    });
    return out;
}

}  // namespace scout::detail

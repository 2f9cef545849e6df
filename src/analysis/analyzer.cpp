// analyzer.cpp: tokenizer and filter chain. Tokens are runs of letters/digits; identifier
// boundaries (case changes, letter/digit changes, _ - .) split them; CJK characters are single
// tokens; invalid UTF-8 bytes separate tokens. Then lowercase, stop words, stemming.
#include "analysis/analyzer.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "analysis/stem_memo.hpp"
#include "analysis/term.hpp"
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

CodePoint classify(std::string_view s, std::size_t i, bool keep_joiners) {
    const char c = s[i];
    if (c >= 'a' && c <= 'z') {
        return {CharClass::lower, 1};
    }
    if (c >= 'A' && c <= 'Z') {
        return {CharClass::upper, 1};
    }
    if (c >= '0' && c <= '9') {
        return {CharClass::digit, 1};
    }
    if (keep_joiners && (c == '_' || c == '-' || c == '.')) {
        return {CharClass::lower, 1};
    }
    if (static_cast<unsigned char>(c) < 0x80U) {
        return {CharClass::separator, 1};
    }
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

/// Cuts `token` to at most `limit` bytes without splitting a UTF-8 sequence.
void truncate_utf8(std::string& token, std::size_t limit) {
    if (token.size() <= limit) {
        return;
    }
    std::size_t cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(token[cut]) & 0xC0U) == 0x80U) {
        --cut;
    }
    token.resize(cut);
}

/// Calls emit(token) for every raw lowercase token of `text`. With `catenate`, a word of ASCII
/// letters that case changes split ("MySQL", "GitHub", "getPullRequest") is also emitted whole
/// after its parts, so "MySQL" meets "mysql" as well as "sql". Words with digits or other
/// letters ("getV2Items", "ÉtatCivil") are not joined.
template <typename Emit>
void tokenize(std::string_view text, bool split_identifiers, bool catenate, Emit&& emit) {
    std::string token;
    std::string run;            // the letters of the current word, lowercase
    std::size_t run_parts = 0;  // parts the case changes cut it into so far
    bool run_broken = false;    // it holds a digit or a non-ASCII letter: never joined
    CharClass prev = CharClass::separator;
    std::size_t i = 0;
    CodePoint cur =
        text.empty() ? CodePoint{CharClass::separator, 0} : classify(text, 0, !split_identifiers);
    const auto flush = [&] {
        if (!token.empty()) {
            emit(token);
            token.clear();
        }
    };
    const auto end_run = [&] {
        if (catenate && !run_broken && run_parts >= 2) {
            emit(run);
        }
        run.clear();
        run_parts = 0;
        run_broken = false;
    };
    const auto is_alpha = [](CharClass c) {
        return c == CharClass::lower || c == CharClass::upper;
    };
    while (i < text.size()) {
        const std::size_t next_i = i + cur.len;
        const CodePoint next = next_i < text.size() ? classify(text, next_i, !split_identifiers)
                                                    : CodePoint{CharClass::separator, 0};
        if (cur.cls == CharClass::separator) {
            flush();
            end_run();
        } else if (cur.cls == CharClass::cjk) {
            flush();
            end_run();
            token.assign(text.substr(i, cur.len));
            flush();
        } else {
            if (split_identifiers && !token.empty() &&
                identifier_boundary(prev, cur.cls, next.cls)) {
                flush();
                ++run_parts;
            }
            if (cur.cls == CharClass::upper) {
                token.push_back(static_cast<char>(text[i] - 'A' + 'a'));
            } else {
                token.append(text.substr(i, cur.len));
            }
            if (is_alpha(cur.cls)) {
                run.push_back(token.back());
                run_parts = std::max<std::size_t>(run_parts, 1);
            } else {
                run_broken = true;
            }
        }
        prev = cur.cls;
        i = next_i;
        cur = next;
    }
    flush();
    end_run();
}

}  // namespace

void Analyzer::analyze(std::string_view text, std::vector<std::string>& out) const {
    tokenize(text, options_.split_identifiers, options_.keep_joined_case, [&](std::string& token) {
        truncate_utf8(token, options_.max_token_bytes);
        if (token.empty() || (options_.remove_stop_words && is_stop_word(token))) {
            return;
        }
        if (!options_.stem) {
            out.push_back(token);
        } else if (!options_.keep_surface) {
            out.push_back(memo_porter_stem(token));
        } else {
            out.push_back(token);
            out.push_back(make_term(TermKind::stem, memo_porter_stem(token)));
        }
    });
}

std::vector<std::string> Analyzer::analyze(std::string_view text) const {
    std::vector<std::string> out;
    analyze(text, out);
    return out;
}

std::string Analyzer::split_words(std::string_view identifier) {
    std::string out;
    tokenize(identifier, true, false, [&](const std::string& token) {
        if (!out.empty()) {
            out.push_back(' ');
        }
        out += token;
    });
    return out;
}

}  // namespace scout::detail

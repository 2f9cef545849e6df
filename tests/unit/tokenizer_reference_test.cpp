// tokenizer_reference_test.cpp: the analyzer's tokenizer tracks token ranges instead of building
// each token a character at a time. Its output must equal that of the plain character-at-a-time
// tokenizer kept here as the reference, on random text mixing every character class.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "analysis/analyzer.hpp"
#include "util/utf8.hpp"

using scout::AnalyzerOptions;
using scout::detail::Analyzer;

namespace {

enum class Cls { separator, lower, upper, digit, other_letter, cjk };

struct Cp {
    Cls cls;
    std::size_t len;
};

bool cjk(std::uint32_t cp) {
    return (cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0x3400 && cp <= 0x9FFF) ||
           (cp >= 0xAC00 && cp <= 0xD7AF) || (cp >= 0xF900 && cp <= 0xFAFF) ||
           (cp >= 0x20000 && cp <= 0x2FFFF);
}

bool unicode_separator(std::uint32_t cp) {
    return (cp >= 0x2000 && cp <= 0x206F) || (cp >= 0x3000 && cp <= 0x303F) ||
           (cp >= 0xFF00 && cp <= 0xFF0F) || cp == 0x00A0 || (cp >= 0x00A1 && cp <= 0x00BF) ||
           cp == 0x00D7 || cp == 0x00F7 || cp == 0xFEFF;
}

Cp classify(std::string_view s, std::size_t i, bool keep_joiners) {
    const char c = s[i];
    if (c >= 'a' && c <= 'z') {
        return {Cls::lower, 1};
    }
    if (c >= 'A' && c <= 'Z') {
        return {Cls::upper, 1};
    }
    if (c >= '0' && c <= '9') {
        return {Cls::digit, 1};
    }
    if (keep_joiners && (c == '_' || c == '-' || c == '.')) {
        return {Cls::lower, 1};
    }
    if (static_cast<unsigned char>(c) < 0x80U) {
        return {Cls::separator, 1};
    }
    const std::size_t len = scout::detail::utf8_sequence_length(s, i);
    if (len == 0) {
        return {Cls::separator, 1};
    }
    const std::uint32_t cp = scout::detail::utf8_decode_at(s, i, len);
    if (unicode_separator(cp)) {
        return {Cls::separator, len};
    }
    return {cjk(cp) ? Cls::cjk : Cls::other_letter, len};
}

bool boundary(Cls prev, Cls cur, Cls next) {
    const bool prev_alpha = prev == Cls::lower || prev == Cls::upper;
    const bool cur_alpha = cur == Cls::lower || cur == Cls::upper;
    if ((prev == Cls::digit && cur_alpha) || (prev_alpha && cur == Cls::digit)) {
        return true;
    }
    if (prev == Cls::lower && cur == Cls::upper) {
        return true;
    }
    return prev == Cls::upper && cur == Cls::upper && next == Cls::lower;
}

/// The raw tokens, built a character at a time (the analyzer's tokenizer before it tracked
/// ranges).
std::vector<std::string> reference_tokens(std::string_view text, bool split, bool catenate) {
    std::vector<std::string> out;
    std::string token;
    std::string run;
    std::size_t run_parts = 0;
    bool run_broken = false;
    Cls prev = Cls::separator;
    std::size_t i = 0;
    Cp cur = text.empty() ? Cp{Cls::separator, 0} : classify(text, 0, !split);
    const auto flush = [&] {
        if (!token.empty()) {
            out.push_back(token);
            token.clear();
        }
    };
    const auto end_run = [&] {
        if (catenate && !run_broken && run_parts >= 2) {
            out.push_back(run);
        }
        run.clear();
        run_parts = 0;
        run_broken = false;
    };
    while (i < text.size()) {
        const std::size_t next_i = i + cur.len;
        const Cp next =
            next_i < text.size() ? classify(text, next_i, !split) : Cp{Cls::separator, 0};
        if (cur.cls == Cls::separator) {
            flush();
            end_run();
        } else if (cur.cls == Cls::cjk) {
            flush();
            end_run();
            token.assign(text.substr(i, cur.len));
            flush();
        } else {
            if (split && !token.empty() && boundary(prev, cur.cls, next.cls)) {
                flush();
                ++run_parts;
            }
            if (cur.cls == Cls::upper) {
                token.push_back(static_cast<char>(text[i] - 'A' + 'a'));
            } else {
                token.append(text.substr(i, cur.len));
            }
            if (cur.cls == Cls::lower || cur.cls == Cls::upper) {
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
    return out;
}

/// Random text drawn from pieces of every class: ASCII letters of both cases, digits, joiners,
/// spaces and punctuation, Latin and Greek letters, CJK, Unicode separators, invalid bytes.
std::string random_text(std::mt19937& rng) {
    static const std::vector<std::string> pieces = {"a",
                                                    "b",
                                                    "z",
                                                    "A",
                                                    "B",
                                                    "Z",
                                                    "Q",
                                                    "x",
                                                    "0",
                                                    "7",
                                                    "9",
                                                    "_",
                                                    "-",
                                                    ".",
                                                    " ",
                                                    "  ",
                                                    "\t",
                                                    "/",
                                                    ",",
                                                    "(",
                                                    "\n",
                                                    "\xC3\xA9",
                                                    "\xC3\x89",
                                                    "\xCE\xB1",
                                                    "\xE4\xB8\xAD",
                                                    "\xE3\x81\x82",
                                                    "\xEC\x95\x88",
                                                    "\xE2\x80\x94",
                                                    "\xC2\xA0",
                                                    "\xEF\xBB\xBF",
                                                    "\xF0\x9F\x98\x80",
                                                    "\xFF",
                                                    "\xC3",
                                                    "\x80",
                                                    "\xED\xA0\x80",
                                                    "Http",
                                                    "HTTPServer",
                                                    "getV2",
                                                    "MySQL",
                                                    "iOS",
                                                    "gitHub",
                                                    "snake_case",
                                                    "kebab-case",
                                                    "dot.ted"};
    std::uniform_int_distribution<std::size_t> length(0, 40);
    std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
    std::string text;
    for (std::size_t n = length(rng); n > 0; --n) {
        text += pieces[pick(rng)];
    }
    return text;
}

}  // namespace

TEST_CASE("the tokenizer equals the character-at-a-time reference", "[analyzer]") {
    std::mt19937 rng(20261203);
    const bool settings[][2] = {{true, true}, {true, false}, {false, false}, {false, true}};
    for (const auto& [split, catenate] : settings) {
        const Analyzer analyzer(AnalyzerOptions{.split_identifiers = split,
                                                .keep_joined_case = catenate,
                                                .remove_stop_words = false,
                                                .stem = false,
                                                .keep_surface = false,
                                                .max_token_bytes = 1 << 20});
        for (int round = 0; round < 4000; ++round) {
            const std::string text = random_text(rng);
            INFO("split " << split << " catenate " << catenate << " text '" << text << "'");
            REQUIRE(analyzer.analyze(text) == reference_tokens(text, split, catenate));
        }
    }
}

TEST_CASE("split_words equals the reference tokens joined by spaces", "[analyzer]") {
    std::mt19937 rng(7);
    for (int round = 0; round < 4000; ++round) {
        const std::string text = random_text(rng);
        std::string expected;
        for (const std::string& token : reference_tokens(text, true, false)) {
            expected += expected.empty() ? "" : " ";
            expected += token;
        }
        INFO("text '" << text << "'");
        REQUIRE(Analyzer::split_words(text) == expected);
    }
}

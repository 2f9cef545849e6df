// analyzer_test.cpp: tokenization, identifier splitting, stop words, stemming, hostile input.
#include "analysis/analyzer.hpp"

#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "analysis/term.hpp"
#include "util/utf8.hpp"

using scout::AnalyzerOptions;
using scout::detail::Analyzer;
using scout::detail::make_term;
using scout::detail::term_kind;
using scout::detail::TermKind;

namespace {
Analyzer plain() {
    return Analyzer(
        AnalyzerOptions{.split_identifiers = true, .remove_stop_words = false, .stem = false});
}
using Terms = std::vector<std::string>;
}  // namespace

TEST_CASE("identifiers split on every convention", "[analyzer]") {
    const Analyzer a = plain();
    CHECK(a.analyze("create_pull_request") == Terms{"create", "pull", "request"});
    CHECK(a.analyze("createPullRequest") ==
          Terms{"create", "pull", "request", "createpullrequest"});
    CHECK(a.analyze("create-pull-request") == Terms{"create", "pull", "request"});
    CHECK(a.analyze("repo.pulls.create") == Terms{"repo", "pulls", "create"});
    CHECK(a.analyze("HTTPServerError") == Terms{"http", "server", "error", "httpservererror"});
    // A word with digits is not joined.
    CHECK(a.analyze("getV2Items") == Terms{"get", "v", "2", "items"});
    CHECK(a.analyze("ec2 s3") == Terms{"ec", "2", "s", "3"});
}

TEST_CASE("words that case changes split are also kept whole", "[analyzer]") {
    const Analyzer a = plain();
    CHECK(a.analyze("MySQL servers") == Terms{"my", "sql", "mysql", "servers"});
    CHECK(a.analyze("GitHub repo_list") == Terms{"git", "hub", "github", "repo", "list"});
    CHECK(a.analyze("mysql") == Terms{"mysql"});           // nothing split, nothing added
    CHECK(a.analyze("get_user") == Terms{"get", "user"});  // separators are not case changes
    CHECK(a.analyze("\xC3\x89tatCivil") ==
          Terms{"\xC3\x89tat", "civil"});  // non-ASCII letters: not joined
    AnalyzerOptions off = a.options();
    off.keep_joined_case = false;
    CHECK(Analyzer(off).analyze("MySQL servers") == Terms{"my", "sql", "servers"});
    // Joined words are cut like any token.
    AnalyzerOptions short_tokens = a.options();
    short_tokens.max_token_bytes = 4;
    CHECK(Analyzer(short_tokens).analyze("MySQL") == Terms{"my", "sql", "mysq"});
}

TEST_CASE("without identifier splitting, joiners stay inside tokens", "[analyzer]") {
    const Analyzer a(
        AnalyzerOptions{.split_identifiers = false, .remove_stop_words = false, .stem = false});
    CHECK(a.analyze("create_pull_request now") == Terms{"create_pull_request", "now"});
}

TEST_CASE("stop words are removed and words stemmed when enabled", "[analyzer]") {
    const Analyzer a(AnalyzerOptions{.keep_surface = false});
    CHECK(a.analyze("List all of the running pods in the cluster") ==
          Terms{"list", "all", "run", "pod", "cluster"});
}

TEST_CASE("keep_surface emits the word and its marked stem", "[analyzer]") {
    const Analyzer a(AnalyzerOptions{});
    CHECK(a.options().keep_surface);
    const auto stem = [](std::string_view s) { return make_term(TermKind::stem, s); };
    CHECK(a.analyze("running pods") == Terms{"running", stem("run"), "pods", stem("pod")});
    // A stem never collides with a surface word: "~run" vs "run".
    CHECK(a.analyze("run") == Terms{"run", stem("run")});
    CHECK(term_kind(stem("run")) == TermKind::stem);
    CHECK(term_kind("run") == TermKind::word);
}

TEST_CASE("split_words renders identifiers for people", "[analyzer]") {
    CHECK(Analyzer::split_words("getPullRequest_v2") == "get pull request v 2");
    CHECK(Analyzer::split_words("") == "");
}

TEST_CASE("non-ASCII letters are kept, CJK characters are single tokens", "[analyzer]") {
    const Analyzer a = plain();
    CHECK(a.analyze("café menü") == Terms{"café", "menü"});
    CHECK(a.analyze("查询天气 weather") == Terms{"查", "询", "天", "气", "weather"});
    CHECK(a.analyze("a\xE2\x80\x94"
                    "b") == Terms{"a", "b"});  // em dash separates
}

TEST_CASE("invalid UTF-8, empty and huge input never crash", "[analyzer]") {
    const Analyzer a = plain();
    CHECK(a.analyze("").empty());
    CHECK(a.analyze("   \t\n").empty());
    CHECK(a.analyze("ab\xFF\xFE"
                    "cd") == Terms{"ab", "cd"});
    CHECK(a.analyze("\xC3").empty());                       // truncated sequence
    CHECK(a.analyze("x\xED\xA0\x80y") == Terms{"x", "y"});  // UTF-16 surrogate
    CHECK(a.analyze("\xF0\x82\x82\xAC").empty());           // overlong
    const std::string huge(1 << 20, 'a');
    const Terms t = a.analyze(huge);
    REQUIRE(t.size() == 1);
    CHECK(t[0].size() == AnalyzerOptions{}.max_token_bytes);
    std::string words;
    for (int i = 0; i < 100000; ++i) {
        words += "word ";
    }
    CHECK(a.analyze(words).size() == 100000);
}

TEST_CASE("long multi-byte tokens are cut at a character boundary", "[analyzer]") {
    const Analyzer a(AnalyzerOptions{.split_identifiers = true,
                                     .remove_stop_words = false,
                                     .stem = false,
                                     .max_token_bytes = 5});
    const Terms t = a.analyze("ééé");  // 6 bytes
    REQUIRE(t.size() == 1);
    CHECK(t[0] == "éé");
    CHECK(scout::detail::is_valid_utf8(t[0]));
}

TEST_CASE("UTF-8 validation", "[analyzer]") {
    CHECK(scout::detail::is_valid_utf8(""));
    CHECK(scout::detail::is_valid_utf8("plain ascii"));
    CHECK(scout::detail::is_valid_utf8("\xF0\x9F\x98\x80"));        // U+1F600
    CHECK_FALSE(scout::detail::is_valid_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
    CHECK_FALSE(scout::detail::is_valid_utf8("\xC0\xAF"));          // overlong slash
    CHECK_FALSE(scout::detail::is_valid_utf8("\x80"));
}

TEST_CASE("stop words: the whole list and nothing near it", "[analyzer]") {
    using scout::detail::is_stop_word;
    for (std::string_view w : {"a",
                               "about",
                               "and",
                               "by",
                               "i",
                               "please",
                               "the",
                               "which",
                               "yours",
                               "yourself",
                               "your",
                               "you",
                               "would",
                               "us",
                               "to",
                               "of"}) {
        CHECK(is_stop_word(w));
    }
    // Prefixes, extensions, other cases and other bytes of stop words are kept.
    for (std::string_view w :
         {"",         "ab",     "abouts", "yourselves", "yourselfs", "The", "THE", "th",
          "b",        "z",      "zz",     "list",       "get",       "all", "1",   "_a",
          "\xc3\xa9", "theirs", "wh",     "whom",       "anda",      "aa"}) {
        CHECK_FALSE(is_stop_word(w));
    }
}

TEST_CASE("stop words: exactly the list, over every short word and every near miss", "[analyzer]") {
    using scout::detail::is_stop_word;
    const std::set<std::string> list = {
        "a",     "about", "an",     "and",   "are",    "as",    "at",   "be",    "been",
        "but",   "by",    "can",    "could", "do",     "does",  "for",  "from",  "had",
        "has",   "have",  "he",     "her",   "him",    "his",   "how",  "i",     "if",
        "in",    "into",  "is",     "it",    "its",    "me",    "my",   "of",    "on",
        "or",    "our",   "please", "she",   "should", "so",    "some", "than",  "that",
        "the",   "their", "them",   "then",  "there",  "these", "they", "this",  "those",
        "to",    "us",    "was",    "we",    "were",   "what",  "when", "where", "which",
        "while", "who",   "will",   "with",  "would",  "you",   "your", "yours", "yourself"};
    // Every word of one to three letters a-z.
    std::string w;
    for (char a = 'a'; a <= 'z'; ++a) {
        for (char b = '`'; b <= 'z'; ++b) {      // '`' stands for "no second letter"
            for (char c = '`'; c <= 'z'; ++c) {  // and for "no third letter"
                if (b == '`' && c != '`') {
                    continue;
                }
                w.assign(1, a);
                if (b != '`') {
                    w += b;
                }
                if (c != '`') {
                    w += c;
                }
                INFO(w);
                CHECK(is_stop_word(w) == (list.count(w) != 0));
            }
        }
    }
    // Each listed word, its prefixes, its extensions by a letter and a NUL byte, and its upper
    // case.
    for (const std::string& word : list) {
        CHECK(is_stop_word(word));
        for (std::size_t n = 1; n < word.size(); ++n) {
            CHECK(is_stop_word(word.substr(0, n)) == (list.count(word.substr(0, n)) != 0));
        }
        CHECK(is_stop_word(word + "s") == (list.count(word + "s") != 0));
        CHECK_FALSE(is_stop_word(word + std::string(1, '\0')));
        CHECK_FALSE(is_stop_word(std::string(1, '\0') + word));
        std::string upper = word;
        for (char& ch : upper) {
            ch = static_cast<char>(ch - 'a' + 'A');
        }
        CHECK_FALSE(is_stop_word(upper));
    }
}

TEST_CASE("the stemming analyzer is the surface analyzer plus a last stemming step", "[analyzer]") {
    // A search derives the query's terms from its surface words (search/bm25_query.cpp) instead
    // of analyzing it twice; that is exact only while this holds for every option.
    const std::vector<std::string> texts = {
        "List the GitHub pull requests of MySQL servers",
        "getPullRequest HTTPServer v2Items snake_case_name kebab-case dotted.name",
        "the of and please",
        "",
        "   ",
        "ÉtatCivil naïve café 東京タワー 서울",
        std::string(200, 'x') + " running " + std::string(70, 'b') + "ing",
        "invalid \xff\xfe bytes \xc3 and digits 2024 v1.2.3 x86_64",
        "Running runners ran quickly; organizations' organizational"};
    for (bool split : {true, false}) {
        for (bool joined : {true, false}) {
            for (bool stops : {true, false}) {
                for (bool keep_surface : {true, false}) {
                    for (std::size_t max_bytes : {8U, 64U}) {
                        AnalyzerOptions o{.split_identifiers = split,
                                          .keep_joined_case = joined,
                                          .remove_stop_words = stops,
                                          .stem = true,
                                          .keep_surface = keep_surface,
                                          .max_token_bytes = max_bytes};
                        AnalyzerOptions surface_options = o;
                        surface_options.stem = false;
                        const Analyzer stemming(o);
                        const Analyzer surface(surface_options);
                        for (const std::string& text : texts) {
                            Terms derived;
                            for (const std::string& w : surface.analyze(text)) {
                                if (keep_surface) {
                                    derived.push_back(w);
                                    derived.push_back(
                                        make_term(TermKind::stem, scout::detail::porter_stem(w)));
                                } else {
                                    derived.push_back(scout::detail::porter_stem(w));
                                }
                            }
                            CHECK(stemming.analyze(text) == derived);
                        }
                    }
                }
            }
        }
    }
}

TEST_CASE("raw tokens, cut, filtered and stemmed, are what the analyzer gives", "[analyzer]") {
    // A search cuts its query into raw tokens once (search/bm25_query.cpp) and derives the
    // analyzer's terms, the surface words and the plain words from them.
    const std::vector<std::string> texts = {
        "List the GitHub pull requests of MySQL servers",
        "getPullRequest HTTPServer v2Items snake_case_name kebab-case dotted.name",
        "the of and please",
        "",
        "ÉtatCivil naïve café 東京タワー 서울 ÉtatÉtatÉtat",
        std::string(200, 'x') + " running " + std::string(70, 'b') + "ing " + std::string(62, 'c') +
            "\xc3\xa9\xc3\xa9",
        "invalid \xff\xfe bytes \xc3 and digits 2024 v1.2.3 x86_64"};
    for (bool split : {true, false}) {
        for (bool joined : {true, false}) {
            for (bool stops : {true, false}) {
                for (bool stem : {true, false}) {
                    for (std::size_t max_bytes : {0U, 3U, 8U, 63U, 64U}) {
                        const AnalyzerOptions o{.split_identifiers = split,
                                                .keep_joined_case = joined,
                                                .remove_stop_words = stops,
                                                .stem = stem,
                                                .keep_surface = true,
                                                .max_token_bytes = max_bytes};
                        for (const std::string& text : texts) {
                            std::string arena = "prefix";
                            std::vector<scout::detail::RawToken> tokens;
                            Analyzer::raw_tokens(text, split, joined, arena, tokens);
                            Terms derived;
                            for (const auto& t : tokens) {
                                const std::string_view raw(arena.data() + t.begin, t.size);
                                const std::string w(
                                    raw.substr(0, Analyzer::kept_bytes(raw, max_bytes)));
                                if (w.empty() || (stops && scout::detail::is_stop_word(w))) {
                                    continue;
                                }
                                derived.push_back(w);
                                if (stem) {
                                    derived.push_back(
                                        make_term(TermKind::stem, scout::detail::porter_stem(w)));
                                }
                            }
                            CHECK(Analyzer(o).analyze(text) == derived);
                            // Joined words are marked, and only split ones are joined.
                            for (const auto& t : tokens) {
                                CHECK((!t.joined || (joined && split)));
                            }
                        }
                    }
                }
            }
        }
    }
}

TEST_CASE("kept_bytes cuts at a character boundary", "[analyzer]") {
    CHECK(Analyzer::kept_bytes("abc", 5) == 3);
    CHECK(Analyzer::kept_bytes("abcdef", 5) == 5);
    CHECK(Analyzer::kept_bytes("ab\xc3\xa9", 3) == 2);  // é would be split
    CHECK(Analyzer::kept_bytes("ab\xc3\xa9", 4) == 4);
    CHECK(Analyzer::kept_bytes("\xe6\x9d\xb1", 2) == 0);
    CHECK(Analyzer::kept_bytes("", 0) == 0);
}

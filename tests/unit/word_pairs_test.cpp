// word_pairs_test.cpp: adjacent word pairs as terms, and their effect through Catalog + Searcher.
#include "analysis/word_pairs.hpp"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"

#include "analysis/analyzer.hpp"
#include "analysis/term.hpp"

using TermList = std::vector<std::string>;

namespace {

TermList pairs(std::string_view text) {
    TermList out;
    scout::detail::append_word_pairs(text, out);
    for (std::string& t : out) {
        REQUIRE_FALSE(t.empty());
        CHECK(scout::detail::term_kind(t) == scout::detail::TermKind::pair);
        t.erase(0, scout::detail::term_prefix::kPair.size());  // compare the readable part
    }
    return out;
}

}  // namespace

TEST_CASE("pairs of neighbouring words, stemmed, without stop words", "[pairs]") {
    CHECK(pairs("Convert speech to text") == TermList{"convert speech", "speech text"});
    CHECK(pairs("Convert text to speech") == TermList{"convert text", "text speech"});
    CHECK(pairs("getImportErrorDetails") == TermList{"get import", "import error", "error detail"});
    CHECK(pairs("list_pull_requests") == TermList{"list pull", "pull request"});
    CHECK(pairs("one").empty());
    CHECK(pairs("").empty());
    CHECK(pairs("the of a").empty());
}

TEST_CASE("pairs are appended and hostile text is harmless", "[pairs]") {
    TermList out{"kept"};
    scout::detail::append_word_pairs("read file", out);
    REQUIRE(out.size() == 2);
    CHECK(out[0] == "kept");
    const std::string huge(1 << 20, 'x');
    out.clear();
    scout::detail::append_word_pairs(huge + " " + huge, out);
    REQUIRE(out.size() == 1);
    CHECK(out[0].size() <= 1 + 64 + 1 + 64);
    out.clear();
    scout::detail::append_word_pairs("speech \xff\xfe text", out);
    CHECK(out.size() == 1);
}

TEST_CASE("word order tells apart tools with the same words", "[pairs][search]") {
    scout::CatalogSpec spec;
    spec.servers.push_back(
        {"speech",
         "Speech services.",
         "",
         "",
         scout::ServerStatus::active,
         {{"recognize", "", "Convert speech to text from an audio file.", "", ""},
          {"synthesize", "", "Convert text to speech into an audio file.", "", ""}}});
    const auto top = [&](float pair_weight, std::string_view query) {
        scout::CatalogOptions options;
        options.expansion.pair_weight = pair_weight;
        auto catalog = scout::Catalog::create(options);
        REQUIRE(catalog.ok());
        REQUIRE(catalog->upsert_servers(spec).ok());
        REQUIRE(catalog->commit().ok());
        auto r = catalog->searcher().search(query, {.mode = scout::Mode::bm25});
        REQUIRE(r.ok());
        REQUIRE(r->hits.size() == 2);
        CHECK(r->hits[0].score >= r->hits[1].score);
        return std::make_pair(r->hits[0].tool, r->hits[0].score - r->hits[1].score);
    };
    // Without pairs the two score the same (the tie goes to index order).
    CHECK(top(0.0f, "convert speech to text").second == Approx(0.0f).margin(1e-6));
    CHECK(top(0.0f, "convert text to speech").second == Approx(0.0f).margin(1e-6));
    CHECK(top(0.5f, "convert speech to text").first == "recognize");
    CHECK(top(0.5f, "convert text to speech").first == "synthesize");
    CHECK(top(0.5f, "convert text to speech").second > 0.0f);
}

TEST_CASE("pairs from plain words equal pairs of a stop-word-removing analyzer", "[pairs]") {
    // A search tokenizes the query once for its action and its pairs (plain_words), so the
    // pairs skip stop words themselves; this is what an analyzer that drops them would give.
    using scout::detail::Analyzer;
    const Analyzer words_only(scout::AnalyzerOptions{.split_identifiers = true,
                                                     .keep_joined_case = false,
                                                     .remove_stop_words = true,
                                                     .stem = false,
                                                     .keep_surface = false,
                                                     .max_token_bytes = 64});
    for (std::string text : {std::string("Convert the speech to text, please"),
                             std::string("the of and"),
                             std::string(""),
                             std::string("getPullRequest for MySQL in HTTPServer"),
                             std::string(70, 'a') + " the " + std::string(66, 't') + "he x",
                             std::string("caf\xc3\xa9 \xff the naïve tool_name v2 kebab-case")}) {
        std::vector<std::string> expected;
        std::string previous;
        for (const std::string& w : words_only.analyze(text)) {
            const std::string stem = scout::detail::porter_stem(w);
            if (!previous.empty()) {
                expected.push_back(
                    scout::detail::make_term(scout::detail::TermKind::pair, previous + " " + stem));
            }
            previous = stem;
        }
        std::vector<std::string> from_plain;
        scout::detail::append_word_pairs_of(scout::detail::plain_words(text), from_plain);
        std::vector<std::string> direct;
        scout::detail::append_word_pairs(text, direct);
        CHECK(from_plain == expected);
        CHECK(direct == expected);
    }
}

TEST_CASE("plain words are the raw tokens that are not joined words, cut at 64 bytes", "[pairs]") {
    // A search takes its plain words from the analyzer's raw tokens (search/bm25_query.cpp).
    using scout::detail::Analyzer;
    for (std::string text :
         {std::string("Convert the speech to text, please"),
          std::string("getPullRequest for MySQL in HTTPServer"),
          std::string(70, 'a') + " the " + std::string(62, 't') + "\xc3\xa9\xc3\xa9",
          std::string("caf\xc3\xa9 \xff the naïve tool_name v2 kebab-case")}) {
        for (bool catenate : {true, false}) {
            std::string arena;
            std::vector<scout::detail::RawToken> tokens;
            Analyzer::raw_tokens(text, true, catenate, arena, tokens);
            std::vector<std::string> plain;
            for (const auto& t : tokens) {
                if (!t.joined) {
                    const std::string_view raw(arena.data() + t.begin, t.size);
                    plain.emplace_back(raw.substr(0, Analyzer::kept_bytes(raw, 64)));
                }
            }
            CHECK(plain == scout::detail::plain_words(text));
        }
    }
}

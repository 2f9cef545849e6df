// bm25_vocabulary_test.cpp: the BM25 vocabulary's table (packed terms, open addressing) and its
// extensions over a shared table must map every term to the id a plain map gives, never change
// the table they extend, and refuse a term list with a term twice.
#include "sparse/bm25_vocabulary.hpp"

#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

using scout::detail::Bm25Vocabulary;
using scout::detail::TermId;

namespace {

/// Every term of `expected` under its id, and a few terms it lacks missing.
void check_vocabulary_matches(const Bm25Vocabulary& vocabulary,
                              const std::vector<std::string>& expected) {
    REQUIRE(vocabulary.size() == expected.size());
    for (std::size_t id = 0; id < expected.size(); ++id) {
        INFO("term " << expected[id]);
        CHECK(vocabulary.term(static_cast<TermId>(id)) == expected[id]);
        const auto found = vocabulary.find(expected[id]);
        REQUIRE(found.has_value());
        CHECK(*found == id);
        CHECK(vocabulary.find({expected[id], scout::detail::word_hash(expected[id])}) == found);
    }
    CHECK_FALSE(vocabulary.find("absent-term").has_value());
    CHECK_FALSE(vocabulary.find("").has_value());
}

/// "<prefix><a>_<b>", built by appending (GCC 12 warns falsely about `"w" + std::to_string`).
std::string vocabulary_term(char prefix, std::size_t a, std::size_t b) {
    std::string out(1, prefix);
    out.append(std::to_string(a));
    out.push_back('_');
    out.append(std::to_string(b));
    return out;
}

}  // namespace

TEST_CASE("a vocabulary of stored terms finds each under its position", "[bm25]") {
    std::vector<std::string> words;
    for (int i = 0; i < 5000; ++i) {
        words.push_back(vocabulary_term('w', static_cast<std::size_t>(i) * 7919 % 100003, 0));
    }
    const std::vector<std::string_view> views(words.begin(), words.end());
    const auto vocabulary = Bm25Vocabulary::of_terms(views);
    REQUIRE(vocabulary != nullptr);
    check_vocabulary_matches(*vocabulary, words);

    std::vector<std::string_view> twice = views;
    twice.push_back(views[1234]);
    CHECK(Bm25Vocabulary::of_terms(twice) == nullptr);
    CHECK(Bm25Vocabulary::of_terms({})->empty());
}

TEST_CASE("vocabularies extending a shared one keep its ids and leave it unchanged", "[bm25]") {
    std::mt19937 rng(7);
    std::vector<std::string> expected;
    std::shared_ptr<const Bm25Vocabulary> shared = std::make_shared<Bm25Vocabulary>();
    // Rounds of a few or many new terms: the extensions carry their own terms along while they
    // are few and pack everything into one table once they are many.
    for (int round = 0; round < 40; ++round) {
        const std::size_t before = shared->size();
        const std::vector<std::string> frozen = expected;
        std::shared_ptr<Bm25Vocabulary> next = Bm25Vocabulary::extending(shared);
        check_vocabulary_matches(*next, expected);
        const std::size_t fresh = round % 10 == 0 ? 2000 : rng() % 30;
        for (std::size_t i = 0; i < fresh; ++i) {
            const std::string term = vocabulary_term('t', static_cast<std::size_t>(round), i);
            // An old term interned again keeps its id; a new one takes the next.
            if (!expected.empty()) {
                const std::string& old = expected[rng() % expected.size()];
                CHECK(next->intern(old, scout::detail::word_hash(old)) == *next->find(old));
            }
            CHECK(next->intern(term, scout::detail::word_hash(term)) == expected.size());
            expected.push_back(term);
        }
        // The shared table saw none of it.
        check_vocabulary_matches(*shared, frozen);
        CHECK(shared->size() == before);
        check_vocabulary_matches(*next, expected);
        shared = next;
    }
    // A copy adds on its own.
    Bm25Vocabulary copy = *shared;
    copy.add("only-in-the-copy");
    CHECK(copy.find("only-in-the-copy") == static_cast<TermId>(expected.size()));
    CHECK_FALSE(shared->find("only-in-the-copy").has_value());
}

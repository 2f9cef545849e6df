// bm25_test.cpp: BM25 scores against values computed by hand from the formula.
#include <array>
#include <cmath>
#include <random>
#include <string>

#include <catch2/catch.hpp>

#include "sparse/bm25_index.hpp"

using scout::detail::Bm25Index;
using scout::detail::ScoredDoc;

namespace {

Bm25Index build(const std::vector<std::vector<std::string>>& docs,
                scout::Bm25Options options = {}) {
    Bm25Index::Builder b;
    for (const auto& doc : docs) {
        b.begin_document();
        for (const auto& term : doc) {
            b.add(term, 1.0f);
        }
    }
    return std::move(b).build(options);
}

double idf(double n, double df) {
    return std::log(1.0 + (n - df + 0.5) / (df + 0.5));
}
double tf_part(double tf, double dl, double avgdl, double k1 = 1.2, double b = 0.75) {
    return tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl));
}

std::vector<ScoredDoc> search(const Bm25Index& index,
                              std::vector<std::string> terms,
                              std::size_t k,
                              const scout::detail::Bitset* allowed = nullptr) {
    std::vector<ScoredDoc> out;
    index.search(terms, k, allowed, out);
    return out;
}

}  // namespace

TEST_CASE("BM25 scores equal the hand-computed formula", "[bm25]") {
    // lengths 2, 3, 1: avgdl = 2
    const Bm25Index index = build({{"apple", "banana"}, {"apple", "apple", "cherry"}, {"banana"}});
    CHECK(index.num_docs() == 3);
    CHECK(index.doc_freq("apple") == 2);
    const auto hits = search(index, {"apple"}, 10);
    REQUIRE(hits.size() == 2);
    CHECK(hits[0].id == 1);
    CHECK(hits[0].score == Approx(idf(3, 2) * tf_part(2, 3, 2)).epsilon(1e-6));
    CHECK(hits[1].id == 0);
    CHECK(hits[1].score == Approx(idf(3, 2) * tf_part(1, 2, 2)).epsilon(1e-6));

    const auto two = search(index, {"banana", "cherry"}, 10);
    REQUIRE(two.size() == 3);
    const double d2 = idf(3, 2) * tf_part(1, 1, 2);
    const double d1 = idf(3, 1) * tf_part(1, 3, 2);
    const double d0 = idf(3, 2) * tf_part(1, 2, 2);
    CHECK(two[0].score == Approx(std::max({d0, d1, d2})).epsilon(1e-6));
    CHECK(two[0].id == 1);  // the rare term wins
    CHECK(two[1].id == 2);
    CHECK(two[2].id == 0);
}

TEST_CASE("repeated query terms count repeatedly, unknown terms are ignored", "[bm25]") {
    const Bm25Index index = build({{"apple"}, {"pear"}});
    const auto once = search(index, {"apple", "zzz"}, 5);
    const auto twice = search(index, {"apple", "apple"}, 5);
    REQUIRE(once.size() == 1);
    REQUIRE(twice.size() == 1);
    CHECK(twice[0].score == Approx(2 * once[0].score));
    CHECK(search(index, {"zzz"}, 5).empty());
    CHECK(search(index, {}, 5).empty());
}

TEST_CASE("k1 and b change the saturation as configured", "[bm25]") {
    const scout::Bm25Options opts{.k1 = 2.0f, .b = 0.0f, .weights = {}};
    const Bm25Index index = build({{"x", "x", "y"}, {"x"}}, opts);
    const auto hits = search(index, {"x"}, 5);
    REQUIRE(hits.size() == 2);
    // b = 0: no length normalization.
    CHECK(hits[0].score == Approx(idf(2, 2) * tf_part(2, 3, 2, 2.0, 0.0)).epsilon(1e-6));
    CHECK(hits[1].score == Approx(idf(2, 2) * tf_part(1, 1, 2, 2.0, 0.0)).epsilon(1e-6));
}

TEST_CASE("field weights scale term frequency and length", "[bm25]") {
    Bm25Index::Builder b;
    b.begin_document();
    b.add("name", 3.0f);  // one occurrence in a field of weight 3
    b.begin_document();
    b.add("name", 1.0f);
    b.add("other", 1.0f);
    b.add("other", 1.0f);
    const Bm25Index index = std::move(b).build({});
    const auto hits = search(index, {"name"}, 5);
    REQUIRE(hits.size() == 2);
    const double avgdl = 3.0;
    CHECK(hits[0].id == 0);
    CHECK(hits[0].score == Approx(idf(2, 2) * tf_part(3, 3, avgdl)).epsilon(1e-6));
    CHECK(hits[1].score == Approx(idf(2, 2) * tf_part(1, 3, avgdl)).epsilon(1e-6));
}

TEST_CASE("top-k is exact, ordered, tie-broken by id, and respects the filter", "[bm25]") {
    std::vector<std::vector<std::string>> docs;
    for (int i = 0; i < 1000; ++i) {
        docs.push_back({"common", i % 7 == 0 ? "seven" : "other", "pad" + std::to_string(i % 3)});
    }
    const Bm25Index index = build(docs);
    const auto all = search(index, {"seven", "common"}, 1000);
    REQUIRE(all.size() == 1000);
    for (std::size_t i = 1; i < all.size(); ++i) {
        CHECK(scout::detail::ranks_before(all[i - 1], all[i]));
    }
    const auto top = search(index, {"seven", "common"}, 10);
    REQUIRE(top.size() == 10);
    for (std::size_t i = 0; i < top.size(); ++i) {
        CHECK(top[i].id == all[i].id);
        CHECK(top[i].score == all[i].score);
    }
    scout::detail::Bitset allowed(1000);
    for (scout::ToolId i = 500; i < 1000; i += 3) {
        allowed.set(i);
    }
    const auto filtered = search(index, {"seven", "common"}, 20, &allowed);
    REQUIRE(filtered.size() == 20);
    std::vector<ScoredDoc> expected;
    for (const auto& d : all) {
        if (allowed.test(d.id) && expected.size() < 20) {
            expected.push_back(d);
        }
    }
    for (std::size_t i = 0; i < 20; ++i) {
        CHECK(filtered[i].id == expected[i].id);
    }
}

TEST_CASE("the scan route picks the same top-k with and without a filter", "[bm25]") {
    // Without a filter the scan route keeps the entries at or above the k-th best block maximum;
    // with one that allows every document it pushes them through a heap. Few distinct words
    // make many equal scores, which only the id may order.
    std::mt19937 rng(11);
    for (const std::size_t n : {5U, 16U, 17U, 100U, 479U, 2792U}) {
        std::uniform_int_distribution<int> word(0, 7);
        std::uniform_int_distribution<int> length(1, 4);
        std::vector<std::vector<std::string>> docs(n);
        for (auto& doc : docs) {
            for (int i = length(rng); i > 0; --i) {
                std::string w(1, 'w');  // not "w" + ...: a GCC 12 -Wrestrict false positive
                w += std::to_string(word(rng));
                doc.push_back(w);
            }
        }
        const Bm25Index index = build(docs);
        scout::detail::Bitset every(n);
        for (scout::ToolId i = 0; i < n; ++i) {
            every.set(i);
        }
        for (const std::vector<std::string>& query :
             {std::vector<std::string>{"w1"},
              std::vector<std::string>{"w0", "w3", "w5"},
              std::vector<std::string>{"w0", "w1", "w2", "w3", "w4", "w5", "w6", "w7"}}) {
            for (const std::size_t k : {1U, 3U, 10U, 30U, 200U}) {
                INFO("n=" << n << " k=" << k << " terms=" << query.size());
                const auto plain = search(index, query, k);
                const auto filtered = search(index, query, k, &every);
                REQUIRE(plain.size() == filtered.size());
                for (std::size_t i = 0; i < plain.size(); ++i) {
                    CHECK(plain[i].id == filtered[i].id);
                    CHECK(plain[i].score == filtered[i].score);
                    CHECK(plain[i].score > 0.0f);
                }
            }
        }
    }
}

TEST_CASE("the accumulator is clean between searches", "[bm25]") {
    const Bm25Index index = build({{"a"}, {"b"}, {"a", "b"}});
    const auto first = search(index, {"a"}, 3);
    (void)search(index, {"b"}, 3);
    const auto again = search(index, {"a"}, 3);
    REQUIRE(first.size() == again.size());
    for (std::size_t i = 0; i < first.size(); ++i) {
        CHECK(first[i].id == again[i].id);
        CHECK(first[i].score == again[i].score);
    }
}

TEST_CASE("few-postings queries (touched-list route) equal the formula at large N", "[bm25]") {
    // 20k documents, rare terms: the query's postings are far below N / 8, so search() takes
    // the touched-list route; a common term forces the scan route. Both must match the formula.
    const std::size_t n = 20000;
    // Appending (not "w" + std::string) sidesteps a GCC 12 -Wrestrict false positive.
    const auto word = [](char prefix, std::size_t v) {
        std::string w(1, prefix);
        w += std::to_string(v);
        return w;
    };
    std::vector<std::vector<std::string>> docs(n);
    std::vector<double> length(n);
    for (std::size_t i = 0; i < n; ++i) {
        docs[i] = {"common", word('w', i % 997), word('v', (i * 31) % 1499)};
        if (i % 3 == 0) {
            docs[i].push_back("common");
        }
        length[i] = static_cast<double>(docs[i].size());
    }
    double avgdl = 0;
    for (double l : length) {
        avgdl += l / static_cast<double>(n);
    }
    const Bm25Index index = build(docs);
    const auto expect = [&](const std::vector<std::string>& query,
                            const scout::detail::Bitset* allowed,
                            std::size_t k) {
        std::vector<ScoredDoc> all;
        for (std::size_t i = 0; i < n; ++i) {
            double s = 0;
            for (const auto& term : query) {
                double tf = 0;
                for (const auto& t : docs[i]) {
                    tf += t == term ? 1 : 0;
                }
                if (tf > 0) {
                    s += idf(static_cast<double>(n), static_cast<double>(index.doc_freq(term))) *
                         tf_part(tf, length[i], avgdl);
                }
            }
            if (s > 0 && (allowed == nullptr || allowed->test(static_cast<scout::ToolId>(i)))) {
                all.push_back({static_cast<scout::ToolId>(i), static_cast<float>(s)});
            }
        }
        std::sort(all.begin(), all.end(), scout::detail::ranks_before);
        all.resize(std::min(all.size(), k));
        return all;
    };
    scout::detail::Bitset odd(n);
    for (scout::ToolId i = 1; i < n; i += 2) {
        odd.set(i);
    }
    for (const scout::detail::Bitset* filter :
         std::array<const scout::detail::Bitset*, 2>{nullptr, &odd}) {
        for (const auto& query : {std::vector<std::string>{"w5", "v7"},
                                  std::vector<std::string>{"w5", "w6", "v100"},
                                  std::vector<std::string>{"common", "w5"}}) {
            const auto want = expect(query, filter, 15);
            const auto got = search(index, query, 15, filter);
            REQUIRE(got.size() == want.size());
            for (std::size_t i = 0; i < got.size(); ++i) {
                CHECK(got[i].id == want[i].id);  // ties (equal tf and length) broken by id
                CHECK(got[i].score == Approx(want[i].score).epsilon(1e-5));
            }
        }
    }
    // Both routes leave the accumulator clean.
    const auto first = search(index, {"w5"}, 5);
    (void)search(index, {"common"}, 5);
    const auto again = search(index, {"w5"}, 5);
    REQUIRE(first.size() == again.size());
    for (std::size_t i = 0; i < first.size(); ++i) {
        CHECK(first[i].id == again[i].id);
        CHECK(first[i].score == again[i].score);
    }
}

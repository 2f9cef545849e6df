// bm25_layout_test.cpp: Bm25Index::from_documents (the commit's counting-sort layout over
// interned terms) must give the arrays a Builder fed the same occurrences gives.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sparse/bm25_index.hpp"

using scout::detail::Bm25DocumentTerms;
using scout::detail::Bm25Index;
using scout::detail::Bm25Vocabulary;
using scout::detail::TermId;

namespace {

struct Corpus {
    std::shared_ptr<Bm25Vocabulary> vocabulary = std::make_shared<Bm25Vocabulary>();
    std::vector<std::string> names;  // by TermId
    std::vector<std::vector<std::pair<TermId, float>>> docs;
};

/// Documents of distinct terms with weighted tfs: a few terms in every document, a Zipf-like
/// middle, and a long tail of terms used once; ids in first-occurrence order as the document
/// cache interns them.
Corpus random_corpus(std::size_t num_docs, std::uint32_t seed) {
    Corpus c;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> weight(0.5f, 4.0f);
    std::uniform_int_distribution<int> length(0, 60);
    std::size_t fresh = 0;
    for (std::size_t d = 0; d < num_docs; ++d) {
        std::vector<std::string> words = {"every", "common" + std::to_string(d % 3)};
        for (int n = length(rng); n > 0; --n) {
            const auto r = static_cast<std::size_t>(
                std::pow(static_cast<double>(rng() % 100000) / 100000.0, 3) * 5000);
            words.push_back(rng() % 4 == 0 ? "tail" + std::to_string(fresh++)
                                           : "mid" + std::to_string(r));
        }
        std::vector<std::pair<TermId, float>> terms;
        std::vector<bool> seen(c.names.size() + words.size(), false);
        for (const std::string& w : words) {
            auto [it, is_new] = c.vocabulary->try_emplace(w, static_cast<TermId>(c.names.size()));
            if (is_new) {
                c.names.push_back(w);
            }
            if (!seen[it->second]) {
                seen[it->second] = true;
                terms.emplace_back(it->second, weight(rng));
            }
        }
        c.docs.push_back(std::move(terms));
    }
    return c;
}

Bm25Index via_builder(const Corpus& c) {
    Bm25Index::Builder b;
    for (const auto& doc : c.docs) {
        b.begin_document();
        for (const auto& [term, tf] : doc) {
            b.add(c.names[term], tf);
        }
    }
    return std::move(b).build({});
}

Bm25Index via_documents(const Corpus& c) {
    std::vector<Bm25DocumentTerms> docs;
    for (const auto& doc : c.docs) {
        float length = 0.0f;
        for (const auto& [term, tf] : doc) {
            length += tf;
        }
        docs.push_back({doc, length});
    }
    return Bm25Index::from_documents(c.vocabulary, docs, {});
}

template <class T>
std::vector<T> copy(std::span<const T> values) {
    return {values.begin(), values.end()};
}

}  // namespace

TEST_CASE("the commit's postings layout equals the builder's", "[bm25]") {
    for (const std::size_t num_docs :
         {std::size_t{0}, std::size_t{1}, std::size_t{700}, std::size_t{6000}}) {
        const Corpus c = random_corpus(num_docs, static_cast<std::uint32_t>(num_docs) + 3);
        const Bm25Index expected = via_builder(c);
        const Bm25Index laid_out = via_documents(c);
        INFO("documents " << num_docs << ", postings " << expected.num_postings());
        // The builder interns in first-occurrence order too, so the TermIds and the arrays
        // themselves must match.
        CHECK(copy(laid_out.offsets()) == copy(expected.offsets()));
        CHECK(copy(laid_out.docids()) == copy(expected.docids()));
        CHECK(copy(laid_out.impacts()) == copy(expected.impacts()));
        CHECK(laid_out.terms() == expected.terms());
    }
}

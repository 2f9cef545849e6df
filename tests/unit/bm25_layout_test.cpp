// bm25_layout_test.cpp: Bm25Index::from_documents (the commit's counting-sort layout over
// interned terms) must give the arrays a Builder fed the same occurrences gives.
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sparse/bm25_index.hpp"
#include "util/pod_vector.hpp"

using scout::detail::Bm25DocumentTerms;
using scout::detail::Bm25Index;
using scout::detail::Bm25Vocabulary;
using scout::detail::PodVector;
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
            const TermId id = c.vocabulary->intern(w, scout::detail::word_hash(w));
            if (id == c.names.size()) {
                c.names.push_back(w);
            }
            if (!seen[id]) {
                seen[id] = true;
                terms.emplace_back(id, weight(rng));
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

template <class T>
PodVector<T> pod(std::span<const T> values) {
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

TEST_CASE("patching the previous postings equals laying them out in full", "[bm25]") {
    const std::size_t num_docs = GENERATE(std::size_t{1}, std::size_t{40}, std::size_t{3000});
    const auto seed = static_cast<std::uint32_t>(num_docs) + 11;
    Corpus c = random_corpus(num_docs, seed);
    Bm25Index previous = via_documents(c);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> weight(0.5f, 4.0f);
    // Rounds of edits, each patched from the index the round before it built: documents that
    // lose terms, gain old and brand-new terms (the vocabulary grows), change their weights,
    // or lose every term.
    for (int round = 0; round < 6; ++round) {
        const std::size_t edits = 1 + rng() % std::min<std::size_t>(num_docs, 5);
        const auto before = c.docs;
        std::vector<scout::ToolId> changed;
        std::shared_ptr<Bm25Vocabulary> vocabulary = Bm25Vocabulary::extending(c.vocabulary);
        for (std::size_t e = 0; e < edits; ++e) {
            const auto d = static_cast<scout::ToolId>(rng() % num_docs);
            if (std::find(changed.begin(), changed.end(), d) != changed.end()) {
                continue;
            }
            changed.push_back(d);
            auto& terms = c.docs[d];
            switch (rng() % 4) {
                case 0:  // drop some terms
                    for (std::size_t i = 0; i < terms.size();) {
                        i = rng() % 2 == 0 ? (terms.erase(terms.begin() + static_cast<long>(i)), i)
                                           : i + 1;
                    }
                    break;
                case 1: {  // add an existing term and a new one
                    const auto old_term = static_cast<TermId>(rng() % c.names.size());
                    if (std::none_of(terms.begin(), terms.end(), [&](const auto& t) {
                            return t.first == old_term;
                        })) {
                        terms.emplace_back(old_term, weight(rng));
                    }
                    const std::string fresh =
                        "new" + std::to_string(round) + "_" + std::to_string(e);
                    const TermId id = vocabulary->add(fresh);
                    REQUIRE(id == c.names.size());
                    c.names.push_back(fresh);
                    terms.emplace_back(id, weight(rng));
                    break;
                }
                case 2:  // new weights
                    for (auto& t : terms) {
                        t.second = weight(rng);
                    }
                    break;
                default:  // no terms at all
                    terms.clear();
            }
        }
        std::sort(changed.begin(), changed.end());
        c.vocabulary = vocabulary;
        std::vector<Bm25DocumentTerms> docs;
        for (const auto& doc : c.docs) {
            float length = 0.0f;
            for (const auto& [term, tf] : doc) {
                length += tf;
            }
            docs.push_back({doc, length});
        }
        const Bm25Index expected = Bm25Index::from_documents(c.vocabulary, docs, {});
        std::vector<Bm25DocumentTerms> previous_terms;
        for (const scout::ToolId d : changed) {
            previous_terms.push_back({before[d], 0.0f});
        }
        // Without the changed documents' previous terms the patch cannot know what to drop.
        CHECK(Bm25Index::patched(previous, c.vocabulary, docs, changed, {}, {}) == nullptr);
        const auto patched =
            Bm25Index::patched(previous, c.vocabulary, docs, changed, previous_terms, {});
        REQUIRE(patched != nullptr);
        INFO("documents " << num_docs << ", round " << round << ", changed " << changed.size());
        CHECK(patched->num_docs() == expected.num_docs());
        CHECK(copy(patched->offsets()) == copy(expected.offsets()));
        CHECK(copy(patched->docids()) == copy(expected.docids()));
        CHECK(copy(patched->impacts()) == copy(expected.impacts()));  // bit for bit
        previous = std::move(*patched);
    }

    // An index read from a file keeps no tfs, and one of another size cannot be patched.
    const auto names = previous.terms();
    auto stored = Bm25Index::from_parts(previous.num_docs(),
                                        names,
                                        pod(previous.offsets()),
                                        pod(previous.docids()),
                                        pod(previous.impacts()));
    REQUIRE(stored != nullptr);
    std::vector<Bm25DocumentTerms> docs;
    for (const auto& doc : c.docs) {
        docs.push_back({doc, 1.0f});
    }
    if (stored->num_postings() > 0) {  // with no postings there is nothing to keep
        CHECK(Bm25Index::patched(*stored, c.vocabulary, docs, {}, {}, {}) == nullptr);
    }
    docs.pop_back();
    CHECK(Bm25Index::patched(previous, c.vocabulary, docs, {}, {}, {}) == nullptr);
}

TEST_CASE("stored postings whose offsets are out of order are refused", "[bm25]") {
    // Two lists over two postings. The first and last offsets are right; the middle one points
    // past the postings, so reading the first list before the order is checked would overrun.
    const std::vector<std::uint32_t> offsets{0, 9, 2};
    const std::vector<scout::ToolId> docids{0, 1};
    const std::vector<float> impacts{0.5f, 0.25f};
    const std::vector<std::string_view> terms{"alpha", "beta"};
    CHECK(Bm25Index::from_parts(2,
                                terms,
                                pod(std::span<const std::uint32_t>(offsets)),
                                pod(std::span<const scout::ToolId>(docids)),
                                pod(std::span<const float>(impacts))) == nullptr);
    // The same lists with ordered offsets are accepted.
    const std::vector<std::uint32_t> ordered{0, 1, 2};
    CHECK(Bm25Index::from_parts(2,
                                terms,
                                pod(std::span<const std::uint32_t>(ordered)),
                                pod(std::span<const scout::ToolId>(docids)),
                                pod(std::span<const float>(impacts))) != nullptr);
}

// never_below_bm25_test.cpp: randomized property of the default fusion: the default hybrid's top
// k holds BM25's top k (BM25's order, only exact ties settled by the dense list), so it can never
// rank a relevant tool lower than BM25 alone does; the dense list only fills the places after
// BM25's candidates.
#include <catch2/catch.hpp>

#include "scout/catalog.hpp"

#include "support/test_catalogs.hpp"

using namespace scout;

namespace {

Catalog committed(const CatalogSpec& spec, const CatalogOptions& options) {
    auto catalog = Catalog::create(options, std::make_shared<HashingEmbedder>(64));
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(spec).ok());
    REQUIRE(catalog->commit().ok());
    return std::move(*catalog);
}

/// The first place where the hybrid's top k leaves BM25's: a BM25 score out of sequence, a hit
/// BM25 fetched after a dense-only one, or fewer hits than BM25 returned. Empty when it keeps it.
std::string departure(const std::vector<Hit>& bm25, const std::vector<Hit>& hybrid) {
    if (hybrid.size() < bm25.size()) {
        return "fewer hits than BM25";
    }
    for (std::size_t i = 0; i < bm25.size(); ++i) {
        if (hybrid[i].bm25_rank == 0 || hybrid[i].bm25_score != bm25[i].score) {
            return "rank " + std::to_string(i + 1) + ": " + hybrid[i].name + " has BM25 score " +
                   std::to_string(hybrid[i].bm25_score) + ", BM25's has " +
                   std::to_string(bm25[i].score);
        }
    }
    return {};
}

/// Queries (of `rounds` random ones at random k) where the hybrid leaves BM25's top k.
std::size_t departures(const Searcher& s, std::size_t rounds) {
    std::mt19937 rng(7);
    std::uniform_int_distribution<std::size_t> top_k(1, 20);
    std::size_t found = 0;
    for (std::size_t round = 0; round < rounds; ++round) {
        const std::string q = testing::random_query(rng);
        const std::size_t k = top_k(rng);
        auto bm25 = s.search(q, {.top_k = k, .mode = Mode::bm25});
        auto hybrid = s.search(q, {.top_k = k});
        REQUIRE(bm25.ok());
        REQUIRE(hybrid.ok());
        REQUIRE(hybrid->mode == Mode::hybrid);
        const std::string where = departure(bm25->hits, hybrid->hits);
        if (!where.empty()) {
            UNSCOPED_INFO("query '" << q << "' k " << k << ": " << where);
            ++found;
        }
    }
    return found;
}

}  // namespace

TEST_CASE("the default hybrid keeps BM25's top k, so it is never below BM25 alone",
          "[search][fusion][property]") {
    const Catalog catalog = committed(testing::random_catalog(30, 25, 42), {});
    CHECK(departures(catalog.searcher(), 500) == 0);
}

TEST_CASE("the top-k check finds a fusion that lets the dense list outrank BM25",
          "[search][fusion][property]") {
    CatalogOptions blended;
    blended.fusion.gated_dense_weight = 0.2;  // the previous default
    const Catalog catalog = committed(testing::random_catalog(30, 25, 42), blended);
    CHECK(departures(catalog.searcher(), 500) > 0);
}

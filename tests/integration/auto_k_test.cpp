// auto_k_test.cpp: SearchOptions::auto_k end to end: the result count follows the scores.
#include <catch2/catch.hpp>

#include "scout/catalog.hpp"

#include "support/test_catalogs.hpp"

using namespace scout;

namespace {

Catalog auto_k_catalog() {
    auto catalog = Catalog::create({}, std::make_shared<HashingEmbedder>(128));
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(testing::small_catalog()).ok());
    REQUIRE(catalog->commit().ok());
    return std::move(catalog.value());
}

}  // namespace

TEST_CASE("auto_k returns the leading hits within the ratio, in the order of a fixed-k search",
          "[search]") {
    const Catalog c = auto_k_catalog();
    for (Mode mode : {Mode::bm25, Mode::hybrid}) {
        SearchOptions fixed;
        fixed.mode = mode;
        fixed.top_k = SearchOptions::kMaxTopK;
        fixed.fetch_k = 15;
        auto all = c.searcher().search("open a new pull request", fixed);
        REQUIRE(all.ok());
        REQUIRE(all->hits.size() >= 2);
        SearchOptions automatic = fixed;
        automatic.top_k = 5;
        automatic.auto_k = true;
        for (double ratio : {0.05, 0.5, 1.0}) {
            automatic.auto_k_ratio = ratio;
            auto cut = c.searcher().search("open a new pull request", automatic);
            REQUIRE(cut.ok());
            REQUIRE_FALSE(cut->hits.empty());
            const double top = static_cast<double>(all->hits.front().score);
            const double last = static_cast<double>(all->hits.back().score);
            std::size_t expected = 1;
            while (expected < all->hits.size() && top > last &&
                   (static_cast<double>(all->hits[expected].score) - last) / (top - last) >=
                       ratio) {
                ++expected;
            }
            CHECK(cut->hits.size() == expected);
            for (std::size_t i = 0; i < cut->hits.size(); ++i) {
                CHECK(cut->hits[i].id == all->hits[i].id);
            }
        }
        // Ratio 1 keeps only hits tied with the top: a clear winner comes back alone.
        automatic.auto_k_ratio = 1.0;
        auto one = c.searcher().search("open a new pull request", automatic);
        REQUIRE(one.ok());
        CHECK(one->hits.front().tool == "create_pull_request");
    }
}

TEST_CASE("auto_k returns just the tools a query names exactly", "[search]") {
    const Catalog c = auto_k_catalog();
    SearchOptions automatic;
    automatic.auto_k = true;
    automatic.auto_k_ratio = 0.01;
    auto r = c.searcher().search("github_create_pull_request", automatic);
    REQUIRE(r.ok());
    REQUIRE(r->hits.size() == 1);
    CHECK(r->hits[0].name == "github_create_pull_request");
}

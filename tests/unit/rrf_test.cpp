// rrf_test.cpp: Reciprocal Rank Fusion arithmetic, ties and permutation invariance.
#include <catch2/catch.hpp>

#include "fusion/rrf.hpp"

using scout::ScoredDoc;

TEST_CASE("RRF adds 1/(k + rank) over the lists", "[rrf]") {
    const std::vector<std::vector<ScoredDoc>> lists = {{{7, 9.f}, {3, 5.f}, {1, 1.f}}, {{3, .9f}, {8, .8f}}};
    const auto fused = scout::rrf_fuse(lists, 60.0, 10);
    REQUIRE(fused.size() == 4);
    CHECK(fused[0].id == 3);
    CHECK(fused[0].score == Approx(1.0 / 62 + 1.0 / 61));
    CHECK(fused[0].ranks == std::vector<std::uint32_t>{2, 1});
    CHECK(fused[0].scores[0] == 5.f);
    CHECK(fused[1].id == 7);
    CHECK(fused[1].score == Approx(1.0 / 61));
    CHECK(fused[1].ranks == std::vector<std::uint32_t>{1, 0});
    CHECK(fused[2].id == 8);  // 1/62, and ties with nothing
    CHECK(fused[3].id == 1);
    CHECK(fused[3].score == Approx(1.0 / 63));
}

TEST_CASE("RRF ties break by best rank, then id", "[rrf]") {
    // 5 is first in list 0, 2 is first in list 1: equal scores, equal best rank -> lower id first.
    const std::vector<std::vector<ScoredDoc>> lists = {{{5, 1.f}}, {{2, 1.f}}};
    auto fused = scout::rrf_fuse(lists, 60.0, 10);
    REQUIRE(fused.size() == 2);
    CHECK(fused[0].id == 2);
    CHECK(fused[1].id == 5);
}

TEST_CASE("RRF output does not depend on list order", "[rrf]") {
    const std::vector<ScoredDoc> a = {{1, 3.f}, {2, 2.f}, {3, 1.f}};
    const std::vector<ScoredDoc> b = {{3, 3.f}, {4, 2.f}, {1, 1.f}};
    const std::vector<std::vector<ScoredDoc>> ab = {a, b};
    const std::vector<std::vector<ScoredDoc>> ba = {b, a};
    const auto x = scout::rrf_fuse(ab, 60.0, 10);
    const auto y = scout::rrf_fuse(ba, 60.0, 10);
    REQUIRE(x.size() == y.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        CHECK(x[i].id == y[i].id);
        CHECK(x[i].score == y[i].score);
    }
}

TEST_CASE("RRF truncates to top_k and handles empty input", "[rrf]") {
    const std::vector<std::vector<ScoredDoc>> lists = {{{1, 1.f}, {2, 1.f}, {3, 1.f}}, {}};
    CHECK(scout::rrf_fuse(lists, 60.0, 2).size() == 2);
    CHECK(scout::rrf_fuse(std::vector<std::vector<ScoredDoc>>{}, 60.0, 5).empty());
}

// phrasing_fusion_test.cpp: fusing phrasings by calibrated score. One phrasing's top tool is not
// beaten by a tool two phrasings rank second, where RRF would let it win; agreement lifts a tool
// both phrasings rank first; each tool keeps the phrasing of its best score.
#include "search/phrasing_fusion.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include "fusion/fusion.hpp"

using scout::detail::fuse_phrasings;
using scout::detail::kPhrasingAgreement;
using scout::detail::ScoredDoc;

TEST_CASE("a strong match of one phrasing beats weak matches of two", "[phrasing_fusion]") {
    // Phrasing 0 matches tool 1 strongly, phrasing 1 matches tool 2; both match tool 3 weakly.
    const std::vector<std::vector<ScoredDoc>> lists = {{{1, 8.f}, {3, 2.f}}, {{2, 4.f}, {3, 1.f}}};
    // Ranks alone (RRF) put tool 3 first: second in both lists.
    CHECK(scout::detail::rrf_fuse(lists, 60.0, 10).front().id == 3);

    const auto fused = fuse_phrasings(lists, kPhrasingAgreement, 10);
    REQUIRE(fused.size() == 3);
    CHECK(fused[0].id == 1);  // equal calibrated tops: the earlier phrasing first
    CHECK(fused[0].score == Approx(1.0));
    CHECK(fused[0].best_phrasing == 0);
    CHECK(fused[1].id == 2);
    CHECK(fused[1].best_phrasing == 1);
    CHECK(fused[2].id == 3);
    CHECK(fused[2].score == Approx(0.25 + kPhrasingAgreement * 0.25));
    CHECK(fused[2].score < 0.5);
}

TEST_CASE("a tool both phrasings match well ranks first, without ties", "[phrasing_fusion]") {
    const std::vector<std::vector<ScoredDoc>> lists = {{{4, 10.f}, {5, 9.f}, {6, 3.f}},
                                                       {{4, 2.f}, {6, 1.5f}, {7, 1.f}}};
    const auto fused = fuse_phrasings(lists, kPhrasingAgreement, 10);
    REQUIRE(fused.size() == 4);
    CHECK(fused[0].id == 4);
    CHECK(fused[0].score == Approx(1.0 + kPhrasingAgreement));
    for (std::size_t i = 1; i < fused.size(); ++i) {
        CHECK(fused[i - 1].score > fused[i].score);
    }
    // Tool 6 is 0.3 of phrasing 0's top but 0.75 of phrasing 1's: its best is phrasing 1.
    const auto six = std::find_if(fused.begin(), fused.end(), [](auto& h) { return h.id == 6; });
    REQUIRE(six != fused.end());
    CHECK(six->best_phrasing == 1);
    CHECK(six->best_rank == 2);
    CHECK(six->score == Approx(0.75 + kPhrasingAgreement * 0.3));
}

TEST_CASE("one list fuses to itself, scaled, and odd lists are harmless", "[phrasing_fusion]") {
    const std::vector<std::vector<ScoredDoc>> one = {{{9, 5.f}, {2, 5.f}, {3, 1.f}}};
    const auto fused = fuse_phrasings(one, kPhrasingAgreement, 2);
    REQUIRE(fused.size() == 2);  // top_k
    CHECK(fused[0].id == 9);     // equal scores keep the list's order (best rank)
    CHECK(fused[1].id == 2);
    CHECK(fused[1].score == Approx(1.0));

    // An empty list, and a list without a positive top score, add nothing but their tools.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<std::vector<ScoredDoc>> odd = {
        {}, {{1, -2.f}, {2, -3.f}}, {{3, nan}}, {{4, 2.f}}};
    const auto r = fuse_phrasings(odd, kPhrasingAgreement, 10);
    REQUIRE(r.size() == 4);
    CHECK(r[0].id == 4);
    CHECK(r[0].best_phrasing == 3);
    for (const auto& h : r) {
        CHECK(std::isfinite(h.score));
    }
    CHECK(fuse_phrasings({}, kPhrasingAgreement, 10).empty());
}

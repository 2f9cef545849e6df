// fusion_test.cpp: RRF arithmetic, ties and permutation invariance; weighted RRF; score blend.
#include <catch2/catch.hpp>

#include <cmath>

#include "fusion/fusion.hpp"

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

TEST_CASE("weighted RRF scales each list's votes", "[rrf]") {
    const std::vector<std::vector<ScoredDoc>> lists = {{{1, 5.f}, {2, 4.f}}, {{2, .9f}, {1, .1f}}};
    const double weights[2] = {1.0, 0.25};
    const auto fused = scout::fuse(lists, weights, {.method = scout::FusionMethod::weighted_rrf, .rrf_k = 60}, 10);
    REQUIRE(fused.size() == 2);
    CHECK(fused[0].id == 1);
    CHECK(fused[0].score == Approx(1.0 / 61 + 0.25 / 62));
    CHECK(fused[1].score == Approx(1.0 / 62 + 0.25 / 61));
    // Plain RRF ignores the weights: both tie, lower id first.
    const auto plain = scout::fuse(lists, weights, {.method = scout::FusionMethod::rrf, .rrf_k = 60}, 10);
    CHECK(plain[0].score == Approx(plain[1].score));
}

TEST_CASE("score blend uses min-max normalized scores", "[rrf]") {
    // bm25: 1 -> 10, 2 -> 9, 3 -> 0 ; dense: 3 -> 0.9, 1 -> 0.5, 2 -> 0.1
    const std::vector<std::vector<ScoredDoc>> lists = {{{1, 10.f}, {2, 9.f}, {3, 0.f}},
                                                       {{3, .9f}, {1, .5f}, {2, .1f}}};
    const double weights[2] = {1.0, 1.0};
    const auto fused = scout::fuse(lists, weights, {.method = scout::FusionMethod::score_blend}, 10);
    REQUIRE(fused.size() == 3);
    CHECK(fused[0].id == 1);
    CHECK(fused[0].score == Approx(1.0 + 0.5));
    CHECK(fused[1].id == 3);
    CHECK(fused[1].score == Approx(0.0 + 1.0));
    CHECK(fused[2].id == 2);
    CHECK(fused[2].score == Approx(0.9 + 0.0));
    // A flat list (all equal) contributes its full weight to each of its docs.
    const std::vector<std::vector<ScoredDoc>> flat = {{{4, 2.f}, {5, 2.f}}};
    const double one[1] = {0.5};
    const auto f = scout::fuse(flat, one, {.method = scout::FusionMethod::score_blend}, 10);
    CHECK(f[0].score == Approx(0.5));
    CHECK(f[1].score == Approx(0.5));
}

TEST_CASE("list confidence is the top-1 gap over the list's spread", "[fusion]") {
    CHECK(scout::list_confidence(std::vector<ScoredDoc>{}) == 0.0);
    CHECK(scout::list_confidence(std::vector<ScoredDoc>{{1, 3.f}}) == 1.0);
    CHECK(scout::list_confidence(std::vector<ScoredDoc>{{1, 10.f}, {2, 6.f}, {3, 2.f}}) == Approx(0.5));
    CHECK(scout::list_confidence(std::vector<ScoredDoc>{{1, 2.f}, {2, 2.f}, {3, 2.f}}) == 0.0);
}

TEST_CASE("anchored blend gates the dense list by the anchor's confidence and keeps its top-1", "[fusion]") {
    // BM25: 1 -> 10, 2 -> 8, 3 -> 0 (confidence (10-8)/10 = 0.2, gate 0.8).
    // Dense: 3 -> 0.9, 2 -> 0.5, 1 -> 0.1; its top-1 (3) is a BM25 candidate, so it counts.
    const std::vector<std::vector<ScoredDoc>> lists = {{{1, 10.f}, {2, 8.f}, {3, 0.f}},
                                                       {{3, .9f}, {2, .5f}, {1, .1f}}};
    const double weights[2] = {1.0, 1.0};
    const scout::FusionOptions anchor_only{.method = scout::FusionMethod::anchored, .dense_confidence_power = 0.0};
    const auto fused = scout::fuse(lists, weights, anchor_only, 10);
    REQUIRE(fused.size() == 3);
    // Blend: 1 -> 1 + 0.8 * 0 = 1; 2 -> 0.8 + 0.8 * 0.5 = 1.2; 3 -> 0 + 0.8 * 1 = 0.8.
    // 2 outscores 1, but BM25's top-1 stays first (lifted to the best score).
    CHECK(fused[0].id == 1);
    CHECK(fused[0].score == Approx(1.2));
    CHECK(fused[1].id == 2);
    CHECK(fused[1].score == Approx(1.2));
    CHECK(fused[2].id == 3);
    CHECK(fused[2].score == Approx(0.8));
    // Truncation happens after the pin.
    const auto one = scout::fuse(lists, weights, anchor_only, 1);
    REQUIRE(one.size() == 1);
    CHECK(one[0].id == 1);
}

TEST_CASE("anchored blend also gates the dense list by its own confidence", "[fusion]") {
    // As above; the dense list's confidence is (0.9 - 0.5) / (0.9 - 0.1) = 0.5.
    const std::vector<std::vector<ScoredDoc>> lists = {{{1, 10.f}, {2, 8.f}, {3, 0.f}},
                                                       {{3, .9f}, {2, .5f}, {1, .1f}}};
    const double weights[2] = {1.0, 1.0};
    const auto fused = scout::fuse(lists, weights, {.method = scout::FusionMethod::anchored, .dense_confidence_power = 1.0}, 10);
    REQUIRE(fused.size() == 3);
    // Gate 0.8 * 0.5 = 0.4: 1 -> 1; 2 -> 0.8 + 0.4 * 0.5 = 1.0; 3 -> 0.4.
    CHECK(fused[0].id == 1);
    CHECK(fused[1].id == 2);
    CHECK(fused[1].score == Approx(1.0));
    CHECK(fused[2].score == Approx(0.4));
    // Power 0.3 (the default): gate 0.8 * 0.5^0.3.
    const auto by_default = scout::fuse(lists, weights, {.method = scout::FusionMethod::anchored}, 10);
    CHECK(by_default[2].score == Approx(0.8 * std::pow(0.5, 0.3)));
    // A flat dense list (confidence 0) changes nothing: the BM25 order and scores stay.
    const std::vector<std::vector<ScoredDoc>> flat = {{{1, 10.f}, {2, 8.f}, {3, 0.f}},
                                                      {{3, .5f}, {2, .5f}, {1, .5f}}};
    const auto unmoved = scout::fuse(flat, weights, {.method = scout::FusionMethod::anchored}, 10);
    REQUIRE(unmoved.size() == 3);
    CHECK(unmoved[1].id == 2);
    CHECK(unmoved[1].score == Approx(0.8));
    CHECK(unmoved[2].score == Approx(0.0));
}

TEST_CASE("anchored blend ignores a dense list whose top-1 the anchor does not know", "[fusion]") {
    const std::vector<std::vector<ScoredDoc>> lists = {{{1, 10.f}, {2, 9.f}, {3, 0.f}},
                                                       {{7, .9f}, {3, .8f}, {2, .1f}}};
    const double weights[2] = {1.0, 1.0};
    const auto fused = scout::fuse(lists, weights, {.method = scout::FusionMethod::anchored}, 10);
    REQUIRE(fused.size() == 4);
    CHECK(fused[0].id == 1);
    CHECK(fused[1].id == 2);
    CHECK(fused[1].score == Approx(0.9));
    // 3 (BM25's last) and 7 (dense-only, gate 0) both score 0; the tie goes to 7's better
    // single rank (dense rank 1).
    CHECK(fused[2].id == 7);
    CHECK(fused[2].score == Approx(0.0));
    CHECK(fused[3].id == 3);
    CHECK(fused[3].score == Approx(0.0));
}

TEST_CASE("anchored blend with an empty anchor blends the other lists", "[fusion]") {
    const std::vector<std::vector<ScoredDoc>> lists = {{}, {{4, .9f}, {5, .3f}}};
    const double weights[2] = {1.0, 0.5};
    const auto fused = scout::fuse(lists, weights, {.method = scout::FusionMethod::anchored}, 10);
    REQUIRE(fused.size() == 2);
    CHECK(fused[0].id == 4);
    CHECK(fused[0].score == Approx(0.5));
    CHECK(fused[1].score == Approx(0.0));
}

TEST_CASE("auto_k_cut keeps the hits within `ratio` of the top, min-max normalized", "[fusion]") {
    const std::vector<float> winner = {10.f, 3.f, 2.9f, 2.f};  // normalized 1, .125, .11, 0
    CHECK(scout::auto_k_cut(winner, 0.5) == 1);
    const std::vector<float> graded = {10.f, 9.f, 7.f, 4.f, 2.f};  // 1, .875, .625, .25, 0
    CHECK(scout::auto_k_cut(graded, 0.5) == 3);
    CHECK(scout::auto_k_cut(graded, 0.9) == 1);
    CHECK(scout::auto_k_cut(graded, 0.2) == 4);
    const std::vector<float> flat = {1.f, 1.f, 1.f};
    CHECK(scout::auto_k_cut(flat, 0.5) == 3);
    CHECK(scout::auto_k_cut(std::vector<float>{}, 0.5) == 0);
    CHECK(scout::auto_k_cut(std::vector<float>{4.f}, 0.5) == 1);
}

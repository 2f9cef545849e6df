// fusion_test.cpp: RRF arithmetic, ties and permutation invariance; weighted RRF; score blend.
#include "fusion/fusion.hpp"

#include <cmath>
#include <map>
#include <random>
#include <set>

#include <catch2/catch.hpp>

using scout::detail::ScoredDoc;

TEST_CASE("RRF adds 1/(k + rank) over the lists", "[rrf]") {
    const std::vector<std::vector<ScoredDoc>> lists = {{{7, 9.f}, {3, 5.f}, {1, 1.f}},
                                                       {{3, .9f}, {8, .8f}}};
    const auto fused = scout::detail::rrf_fuse(lists, 60.0, 10);
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
    auto fused = scout::detail::rrf_fuse(lists, 60.0, 10);
    REQUIRE(fused.size() == 2);
    CHECK(fused[0].id == 2);
    CHECK(fused[1].id == 5);
}

TEST_CASE("RRF output does not depend on list order", "[rrf]") {
    const std::vector<ScoredDoc> a = {{1, 3.f}, {2, 2.f}, {3, 1.f}};
    const std::vector<ScoredDoc> b = {{3, 3.f}, {4, 2.f}, {1, 1.f}};
    const std::vector<std::vector<ScoredDoc>> ab = {a, b};
    const std::vector<std::vector<ScoredDoc>> ba = {b, a};
    const auto x = scout::detail::rrf_fuse(ab, 60.0, 10);
    const auto y = scout::detail::rrf_fuse(ba, 60.0, 10);
    REQUIRE(x.size() == y.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        CHECK(x[i].id == y[i].id);
        CHECK(x[i].score == y[i].score);
    }
}

TEST_CASE("RRF truncates to top_k and handles empty input", "[rrf]") {
    const std::vector<std::vector<ScoredDoc>> lists = {{{1, 1.f}, {2, 1.f}, {3, 1.f}}, {}};
    CHECK(scout::detail::rrf_fuse(lists, 60.0, 2).size() == 2);
    CHECK(scout::detail::rrf_fuse(std::vector<std::vector<ScoredDoc>>{}, 60.0, 5).empty());
}

TEST_CASE("weighted RRF scales each list's votes", "[rrf]") {
    const std::vector<std::vector<ScoredDoc>> lists = {{{1, 5.f}, {2, 4.f}}, {{2, .9f}, {1, .1f}}};
    const double weights[2] = {1.0, 0.25};
    const auto fused = scout::detail::fuse(
        lists, weights, {.method = scout::FusionMethod::weighted_rrf, .rrf_k = 60}, 10);
    REQUIRE(fused.size() == 2);
    CHECK(fused[0].id == 1);
    CHECK(fused[0].score == Approx(1.0 / 61 + 0.25 / 62));
    CHECK(fused[1].score == Approx(1.0 / 62 + 0.25 / 61));
    // Plain RRF ignores the weights: both tie, lower id first.
    const auto plain =
        scout::detail::fuse(lists, weights, {.method = scout::FusionMethod::rrf, .rrf_k = 60}, 10);
    CHECK(plain[0].score == Approx(plain[1].score));
}

TEST_CASE("score blend uses min-max normalized scores", "[rrf]") {
    // bm25: 1 -> 10, 2 -> 9, 3 -> 0 ; dense: 3 -> 0.9, 1 -> 0.5, 2 -> 0.1
    const std::vector<std::vector<ScoredDoc>> lists = {{{1, 10.f}, {2, 9.f}, {3, 0.f}},
                                                       {{3, .9f}, {1, .5f}, {2, .1f}}};
    const double weights[2] = {1.0, 1.0};
    const auto fused =
        scout::detail::fuse(lists, weights, {.method = scout::FusionMethod::score_blend}, 10);
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
    const auto f = scout::detail::fuse(flat, one, {.method = scout::FusionMethod::score_blend}, 10);
    CHECK(f[0].score == Approx(0.5));
    CHECK(f[1].score == Approx(0.5));
}

TEST_CASE("list confidence is the top-1 gap over the list's spread", "[fusion]") {
    CHECK(scout::detail::list_confidence(std::vector<ScoredDoc>{}) == 0.0);
    CHECK(scout::detail::list_confidence(std::vector<ScoredDoc>{{1, 3.f}}) == 1.0);
    CHECK(scout::detail::list_confidence(std::vector<ScoredDoc>{{1, 10.f}, {2, 6.f}, {3, 2.f}}) ==
          Approx(0.5));
    CHECK(scout::detail::list_confidence(std::vector<ScoredDoc>{{1, 2.f}, {2, 2.f}, {3, 2.f}}) ==
          0.0);
}

TEST_CASE("anchored blend gates the dense list by the anchor's confidence and keeps its top-1",
          "[fusion]") {
    // BM25: 1 -> 10, 2 -> 8, 3 -> 0 (confidence (10-8)/10 = 0.2, gate 0.8).
    // Dense: 3 -> 0.9, 2 -> 0.5, 1 -> 0.1; its top-1 (3) is a BM25 candidate, so it counts.
    const std::vector<std::vector<ScoredDoc>> lists = {{{1, 10.f}, {2, 8.f}, {3, 0.f}},
                                                       {{3, .9f}, {2, .5f}, {1, .1f}}};
    const double weights[2] = {1.0, 1.0};
    const scout::FusionOptions anchor_only{.method = scout::FusionMethod::anchored,
                                           .dense_confidence_power = 0.0};
    const auto fused = scout::detail::fuse(lists, weights, anchor_only, 10);
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
    const auto one = scout::detail::fuse(lists, weights, anchor_only, 1);
    REQUIRE(one.size() == 1);
    CHECK(one[0].id == 1);
}

TEST_CASE("anchored blend also gates the dense list by its own confidence", "[fusion]") {
    // As above; the dense list's confidence is (0.9 - 0.5) / (0.9 - 0.1) = 0.5.
    const std::vector<std::vector<ScoredDoc>> lists = {{{1, 10.f}, {2, 8.f}, {3, 0.f}},
                                                       {{3, .9f}, {2, .5f}, {1, .1f}}};
    const double weights[2] = {1.0, 1.0};
    const auto fused = scout::detail::fuse(
        lists,
        weights,
        {.method = scout::FusionMethod::anchored, .dense_confidence_power = 1.0},
        10);
    REQUIRE(fused.size() == 3);
    // Gate 0.8 * 0.5 = 0.4: 1 -> 1; 2 -> 0.8 + 0.4 * 0.5 = 1.0; 3 -> 0.4.
    CHECK(fused[0].id == 1);
    CHECK(fused[1].id == 2);
    CHECK(fused[1].score == Approx(1.0));
    CHECK(fused[2].score == Approx(0.4));
    // Power 0.3 (the default): gate 0.8 * 0.5^0.3.
    const auto by_default =
        scout::detail::fuse(lists, weights, {.method = scout::FusionMethod::anchored}, 10);
    CHECK(by_default[2].score == Approx(0.8 * std::pow(0.5, 0.3)));
    // A flat dense list (confidence 0) changes nothing: the BM25 order and scores stay.
    const std::vector<std::vector<ScoredDoc>> flat = {{{1, 10.f}, {2, 8.f}, {3, 0.f}},
                                                      {{3, .5f}, {2, .5f}, {1, .5f}}};
    const auto unmoved =
        scout::detail::fuse(flat, weights, {.method = scout::FusionMethod::anchored}, 10);
    REQUIRE(unmoved.size() == 3);
    CHECK(unmoved[1].id == 2);
    CHECK(unmoved[1].score == Approx(0.8));
    CHECK(unmoved[2].score == Approx(0.0));
}

TEST_CASE("anchored blend ignores a dense list whose top-1 the anchor does not know", "[fusion]") {
    const std::vector<std::vector<ScoredDoc>> lists = {{{1, 10.f}, {2, 9.f}, {3, 0.f}},
                                                       {{7, .9f}, {3, .8f}, {2, .1f}}};
    const double weights[2] = {1.0, 1.0};
    const auto fused =
        scout::detail::fuse(lists, weights, {.method = scout::FusionMethod::anchored}, 10);
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
    const auto fused =
        scout::detail::fuse(lists, weights, {.method = scout::FusionMethod::anchored}, 10);
    REQUIRE(fused.size() == 2);
    CHECK(fused[0].id == 4);
    CHECK(fused[0].score == Approx(0.5));
    CHECK(fused[1].score == Approx(0.0));
}

TEST_CASE("auto_k_cut keeps the hits within `ratio` of the top, min-max normalized", "[fusion]") {
    const std::vector<float> winner = {10.f, 3.f, 2.9f, 2.f};  // normalized 1, .125, .11, 0
    CHECK(scout::detail::auto_k_cut(winner, 0.5) == 1);
    const std::vector<float> graded = {10.f, 9.f, 7.f, 4.f, 2.f};  // 1, .875, .625, .25, 0
    CHECK(scout::detail::auto_k_cut(graded, 0.5) == 3);
    CHECK(scout::detail::auto_k_cut(graded, 0.9) == 1);
    CHECK(scout::detail::auto_k_cut(graded, 0.2) == 4);
    const std::vector<float> flat = {1.f, 1.f, 1.f};
    CHECK(scout::detail::auto_k_cut(flat, 0.5) == 3);
    CHECK(scout::detail::auto_k_cut(std::vector<float>{}, 0.5) == 0);
    CHECK(scout::detail::auto_k_cut(std::vector<float>{4.f}, 0.5) == 1);
}

TEST_CASE("gated blend lets an agreeing dense list settle BM25's near-ties, first place included",
          "[fusion]") {
    // BM25: 1 narrowly over 2; dense: 2 clearly first. Dense's top-1 (2) is BM25's second.
    const std::vector<std::vector<ScoredDoc>> lists = {{{1, 10.f}, {2, 9.8f}, {3, 2.f}},
                                                       {{2, .9f}, {1, .5f}, {3, .4f}}};
    const std::vector<double> weights = {1.0, 0.0};
    scout::FusionOptions options{.method = scout::FusionMethod::gated};
    options.gated_relative_bm25 = false;  // min-max; relative BM25 scores are tested below
    options.gated_dense_weight = 0.5;
    options.gated_confidence_power = 0.0;
    options.agreement_depth = 2;
    const auto agreeing = scout::detail::fuse(lists, weights, options, 10);
    REQUIRE(agreeing.size() == 3);
    CHECK(agreeing[0].id == 2);  // 0.975 + 0.5 x 1 over 1 + 0.5 x 0.2
    CHECK(agreeing[0].score == Approx(7.8 / 8.0 + 0.5));

    // Depth 1: dense's top-1 is not BM25's, so the disagreement gate applies.
    options.agreement_depth = 1;
    options.disagreement_gate = 0.0;
    const auto ignored = scout::detail::fuse(lists, weights, options, 10);
    CHECK(ignored[0].id == 1);
    CHECK(ignored[0].score == Approx(1.0));
    options.disagreement_gate = 1.0;
    CHECK(scout::detail::fuse(lists, weights, options, 10)[0].id == 2);

    // The dense list's own confidence scales its gate: a flat dense list moves nothing.
    options.gated_confidence_power = 1.0;
    const std::vector<std::vector<ScoredDoc>> flat = {lists[0], {{2, .5f}, {1, .5f}, {3, .5f}}};
    const auto unmoved = scout::detail::fuse(flat, weights, options, 10);
    CHECK(unmoved[0].id == 1);
    CHECK(unmoved[0].score == Approx(1.0));
}

TEST_CASE("gated blend without a BM25 list blends the rest, and an empty dense list adds nothing",
          "[fusion]") {
    const std::vector<double> weights = {1.0, 0.3};
    const scout::FusionOptions options{.method = scout::FusionMethod::gated};
    const std::vector<std::vector<ScoredDoc>> no_bm25 = {{}, {{4, .8f}, {5, .2f}}};
    const auto fused = scout::detail::fuse(no_bm25, weights, options, 10);
    REQUIRE(fused.size() == 2);
    CHECK(fused[0].id == 4);
    const std::vector<std::vector<ScoredDoc>> no_dense = {{{6, 3.f}, {7, 1.f}}, {}};
    const auto bm25_only = scout::detail::fuse(no_dense, weights, options, 10);
    REQUIRE(bm25_only.size() == 2);
    CHECK(bm25_only[0].id == 6);
    CHECK(bm25_only[0].score == Approx(1.0));
    CHECK(scout::parse_fusion_method("gated") == scout::FusionMethod::gated);
}

TEST_CASE("gated blend with relative BM25 scores divides them by the top score", "[fusion]") {
    // BM25 3 vs 2.7 (0.9 of the top); dense min-max: 1 and 0.
    const std::vector<std::vector<ScoredDoc>> lists = {{{1, 3.f}, {2, 2.7f}}, {{2, .6f}, {1, .3f}}};
    const std::vector<double> weights = {1.0, 0.0};
    scout::FusionOptions options{.method = scout::FusionMethod::gated};
    options.gated_relative_bm25 = true;
    options.gated_dense_weight = 0.25;
    options.gated_confidence_power = 0.0;
    options.agreement_depth = 2;  // dense's top-1 (2) is BM25's second: agreement
    const auto fused = scout::detail::fuse(lists, weights, options, 10);
    REQUIRE(fused.size() == 2);
    CHECK(fused[0].id == 2);
    CHECK(fused[0].score == Approx(0.9 + 0.25));
    CHECK(fused[1].score == Approx(1.0));
    // Min-max would put BM25's second at 0: 1 against 0 + 0.25.
    options.gated_relative_bm25 = false;
    CHECK(scout::detail::fuse(lists, weights, options, 10)[0].id == 1);
}

TEST_CASE("list_overlap is the share of shared candidates over the longer list", "[fusion]") {
    using scout::detail::list_overlap;
    const std::vector<ScoredDoc> a = {{1, 3.f}, {2, 2.f}, {3, 1.f}, {4, .5f}};
    const std::vector<ScoredDoc> b = {{3, .9f}, {9, .8f}};
    CHECK(list_overlap(a, b) == Approx(1.0 / 4.0));
    CHECK(list_overlap(b, a) == Approx(1.0 / 4.0));
    CHECK(list_overlap(a, a) == Approx(1.0));
    CHECK(list_overlap(a, std::vector<ScoredDoc>{{7, 1.f}}) == 0.0);
    CHECK(list_overlap(std::vector<ScoredDoc>{}, std::vector<ScoredDoc>{}) == 0.0);
}

namespace {

/// A BM25 list of `n` candidates (ids 1..n) with scores falling evenly from 10 to 1.
std::vector<ScoredDoc> even_bm25_list(std::size_t n) {
    std::vector<ScoredDoc> list;
    for (std::size_t i = 0; i < n; ++i) {
        list.push_back({static_cast<scout::ToolId>(i + 1),
                        10.f - 9.f * static_cast<float>(i) / static_cast<float>(n - 1)});
    }
    return list;
}

/// 1-based rank of `id` in `fused`, or 0.
std::size_t rank_of(const std::vector<scout::detail::FusedDoc>& fused, scout::ToolId id) {
    for (std::size_t i = 0; i < fused.size(); ++i) {
        if (fused[i].id == id) {
            return i + 1;
        }
    }
    return 0;
}

}  // namespace

TEST_CASE("default fusion keeps BM25's ranking when the dense list is noise", "[fusion]") {
    // Noise: a confident dense list of tools BM25 did not fetch, plus at most one of BM25's
    // candidates at a random place. Whatever rank BM25 gave a tool, the fused list must not
    // put it lower.
    const scout::FusionOptions defaults;
    REQUIRE(defaults.method == scout::FusionMethod::gated);
    const std::vector<double> weights = {defaults.bm25_weight, defaults.dense_weight};
    const std::vector<ScoredDoc> bm25 = even_bm25_list(15);
    std::uint32_t state = 12345;
    const auto next = [&state] {
        state = state * 1664525U + 1013904223U;
        return state >> 8U;
    };
    for (int trial = 0; trial < 200; ++trial) {
        std::vector<ScoredDoc> dense;
        const std::size_t shared_at = next() % 16;  // 15: no shared candidate
        const auto shared_id = static_cast<scout::ToolId>(1 + next() % 15);
        for (std::size_t i = 0; i < 15; ++i) {
            const scout::ToolId id =
                i == shared_at ? shared_id : static_cast<scout::ToolId>(100 + next() % 1000);
            dense.push_back({id, 0.9f - 0.05f * static_cast<float>(i)});
        }
        const std::vector<std::vector<ScoredDoc>> lists = {bm25, dense};
        const auto fused = scout::detail::fuse(lists, weights, defaults, 40);
        for (std::size_t r = 1; r <= bm25.size(); ++r) {
            INFO("trial " << trial << ", BM25 rank " << r);
            const std::size_t fused_rank = rank_of(fused, bm25[r - 1].id);
            REQUIRE(fused_rank != 0);
            CHECK(fused_rank <= r);
        }
    }
}

/// A dense list that fetched BM25's candidates and puts tool 2 clearly first.
std::vector<ScoredDoc> dense_preferring_2() {
    std::vector<ScoredDoc> agreeing = {{2, .9f}};
    for (scout::ToolId id = 1; id <= 15; ++id) {
        if (id != 2) {
            agreeing.push_back({id, .6f - .02f * static_cast<float>(id)});
        }
    }
    return agreeing;
}

TEST_CASE("default fusion keeps BM25's order, the dense list settling exact ties and filling",
          "[fusion]") {
    const scout::FusionOptions defaults;
    const std::vector<double> weights = {defaults.bm25_weight, defaults.dense_weight};
    // An agreeing dense list that prefers BM25's close runner-up does not lift it.
    std::vector<ScoredDoc> bm25 = even_bm25_list(15);
    bm25[1].score = 9.6f;
    const std::vector<std::vector<ScoredDoc>> close = {bm25, dense_preferring_2()};
    const auto kept = scout::detail::fuse(close, weights, defaults, 20);
    for (std::size_t r = 1; r <= bm25.size(); ++r) {
        INFO("BM25 rank " << r);
        CHECK(rank_of(kept, bm25[r - 1].id) == r);
    }
    // Tools BM25 scores exactly alike go by the best rank either branch gave them: the dense
    // list's first (tool 3) before BM25's second (tool 2).
    bm25 = even_bm25_list(15);
    bm25[2].score = bm25[1].score;
    const std::vector<ScoredDoc> preferring_3 = {{3, .9f}, {2, .8f}, {1, .7f}};
    const std::vector<std::vector<ScoredDoc>> tied = {bm25, preferring_3};
    const auto settled = scout::detail::fuse(tied, weights, defaults, 20);
    CHECK(rank_of(settled, 1) == 1);
    CHECK(rank_of(settled, 3) == 2);
    CHECK(rank_of(settled, 2) == 3);
    // Tools only the dense list fetched come after every BM25 candidate, in the dense order.
    const std::vector<ScoredDoc> elsewhere = {{201, .9f}, {202, .8f}, {3, .7f}};
    const std::vector<std::vector<ScoredDoc>> filled = {even_bm25_list(3), elsewhere};
    const auto appended = scout::detail::fuse(filled, weights, defaults, 5);
    REQUIRE(appended.size() == 5);
    CHECK(rank_of(appended, 1) == 1);
    CHECK(rank_of(appended, 3) == 3);
    CHECK(rank_of(appended, 201) == 4);
    CHECK(rank_of(appended, 202) == 5);
}

TEST_CASE("the overlap gate lifts BM25's runner-up only when both branches agree on it",
          "[fusion]") {
    scout::FusionOptions blended;  // the previous default: dense weight 0.2
    blended.gated_dense_weight = 0.2;
    const std::vector<double> weights = {blended.bm25_weight, blended.dense_weight};
    // BM25 ranks tool 2 a close second; the dense branch fetched the same candidates and puts 2
    // clearly first.
    std::vector<ScoredDoc> bm25 = even_bm25_list(15);
    bm25[1].score = 9.6f;
    const std::vector<std::vector<ScoredDoc>> agree_lists = {bm25, dense_preferring_2()};
    const auto lifted = scout::detail::fuse(agree_lists, weights, blended, 10);
    CHECK(rank_of(lifted, 2) == 1);
    CHECK(rank_of(lifted, 1) == 2);

    // The same dense preference for 2, but otherwise candidates BM25 never saw: the branches
    // read the query differently, so BM25's order stands.
    std::vector<ScoredDoc> apart = {{2, .9f}};
    for (scout::ToolId id = 101; id <= 114; ++id) {
        apart.push_back({id, .6f - .02f * static_cast<float>(id - 100)});
    }
    const std::vector<std::vector<ScoredDoc>> apart_lists = {bm25, apart};
    const auto kept = scout::detail::fuse(apart_lists, weights, blended, 10);
    CHECK(rank_of(kept, 1) == 1);
    CHECK(rank_of(kept, 2) == 2);
}

TEST_CASE("fusion of many overlapping lists equals RRF computed by hand", "[rrf]") {
    // Enough candidates that the id table probes past collisions; ids repeat within a list.
    std::mt19937 rng(23);
    std::uniform_int_distribution<scout::ToolId> id(0, 150);
    std::vector<std::vector<ScoredDoc>> lists(7);
    for (auto& list : lists) {
        for (int r = 0; r < 40; ++r) {
            list.push_back({id(rng), static_cast<float>(40 - r)});
        }
    }
    std::map<scout::ToolId, double> expected;
    std::map<scout::ToolId, std::vector<std::uint32_t>> ranks;
    for (std::size_t l = 0; l < lists.size(); ++l) {
        std::set<scout::ToolId> seen;
        for (std::size_t r = 0; r < lists[l].size(); ++r) {
            const scout::ToolId d = lists[l][r].id;
            ranks[d].resize(lists.size(), 0);
            if (seen.insert(d).second) {  // a list counts a document's first rank only
                expected[d] += 1.0 / (60.0 + static_cast<double>(r + 1));
                ranks[d][l] = static_cast<std::uint32_t>(r + 1);
            }
        }
    }
    const auto fused = scout::detail::rrf_fuse(lists, 60.0, 1000);
    REQUIRE(fused.size() == expected.size());
    for (const auto& f : fused) {
        CHECK(f.score == expected.at(f.id));
        CHECK(f.ranks == ranks.at(f.id));
    }
    // fuse_rows gives the same documents, scores, ranks and list scores as fuse, for every
    // method, while its rows are read before the next fusion.
    const std::vector<double> weights(lists.size(), 0.7);
    for (const auto method : {scout::FusionMethod::rrf,
                              scout::FusionMethod::weighted_rrf,
                              scout::FusionMethod::score_blend,
                              scout::FusionMethod::anchored,
                              scout::FusionMethod::gated}) {
        scout::FusionOptions options;
        options.method = method;
        const auto docs = scout::detail::fuse(lists, weights, options, 25);
        std::vector<scout::detail::FusedRow> rows;
        scout::detail::fuse_rows(lists, weights, options, 25, rows);
        REQUIRE(rows.size() == docs.size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            CHECK(rows[i].id == docs[i].id);
            CHECK(rows[i].score == docs[i].score);
            for (std::size_t l = 0; l < lists.size(); ++l) {
                CHECK(rows[i].ranks[l] == docs[i].ranks[l]);
                CHECK(rows[i].scores[l] == docs[i].scores[l]);
            }
        }
    }
}

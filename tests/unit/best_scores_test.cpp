// best_scores_test.cpp: the floor-and-cut selection keeps the same k best as a full sort.
#include "dense/best_scores.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include <catch2/catch.hpp>

#include "util/top_floor.hpp"

namespace {

using scout::ToolId;
using scout::detail::ScoredDoc;

/// The k best by a full sort: the reference.
std::vector<ScoredDoc> sorted_best(const std::vector<float>& scores,
                                   const std::vector<ToolId>& ids,
                                   std::size_t k) {
    std::vector<ScoredDoc> all;
    for (std::size_t i = 0; i < scores.size(); ++i) {
        all.push_back({ids.empty() ? static_cast<ToolId>(i) : ids[i], scores[i]});
    }
    std::sort(all.begin(), all.end(), scout::detail::RankOrder{});
    all.resize(std::min(k, all.size()));
    return all;
}

/// Scores of six shapes: distinct, heavy ties, ascending runs (clustered like the tools of one
/// server), all equal, negative and positive zeros among few values, and values over many
/// octaves with infinities.
std::vector<float> scores_of(int shape, std::size_t n, std::mt19937& rng) {
    std::uniform_real_distribution<float> real(-1.0f, 1.0f);
    std::uniform_int_distribution<int> few(0, 5);
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        switch (shape) {
            case 0:
                v[i] = real(rng);
                break;
            case 1:
                v[i] = static_cast<float>(few(rng));
                break;
            case 2:
                v[i] = static_cast<float>(i % 37) + 0.001f * static_cast<float>(i / 37);
                break;
            case 3:
                v[i] = 0.25f;
                break;
            case 4: {
                const int f = few(rng);
                v[i] = f == 0 ? -0.0f : f == 1 ? 0.0f : static_cast<float>(f - 3) * 0.5f;
                break;
            }
            default: {
                const int f = few(rng);
                v[i] = f == 0   ? -std::numeric_limits<float>::infinity()
                       : f == 5 ? std::numeric_limits<float>::infinity()
                                : std::ldexp(real(rng), few(rng) * 20 - 60);
                break;
            }
        }
    }
    return v;
}

}  // namespace

TEST_CASE("best_scores keeps the k best of every shape, size and k", "[dense][topk]") {
    std::mt19937 rng(5);
    scout::detail::BestScoresScratch scratch;
    for (int shape = 0; shape < 6; ++shape) {
        for (std::size_t n : {0U, 1U, 3U, 4U, 7U, 64U, 401U, 2792U}) {
            const std::vector<float> scores = scores_of(shape, n, rng);
            for (std::size_t k : {0U, 1U, 2U, 5U, 30U, 90U, 100U, 700U, 3000U}) {
                for (const bool with_ids : {false, true}) {
                    std::vector<ToolId> ids;
                    if (with_ids) {
                        for (std::size_t i = 0; i < n; ++i) {
                            ids.push_back(static_cast<ToolId>(3 * i + 1));  // ascending, sparse
                        }
                    }
                    std::vector<ScoredDoc> got;
                    scout::detail::best_scores(scores, ids, k, scratch, got);
                    std::sort(got.begin(), got.end(), scout::detail::RankOrder{});
                    const std::vector<ScoredDoc> want = sorted_best(scores, ids, k);
                    INFO("shape " << shape << " n " << n << " k " << k << " ids " << with_ids);
                    REQUIRE(got.size() == want.size());
                    for (std::size_t i = 0; i < got.size(); ++i) {
                        CHECK(got[i].id == want[i].id);
                        CHECK(got[i].score == want[i].score);
                    }
                }
            }
        }
    }
}

TEST_CASE("best_scores reuses its scratch after a longer array", "[dense][topk]") {
    // The kept buffer is never shrunk: a short array after a long one must not see stale slots.
    std::mt19937 rng(8);
    scout::detail::BestScoresScratch scratch;
    std::vector<ScoredDoc> got;
    scout::detail::best_scores(scores_of(0, 5000, rng), {}, 50, scratch, got);
    const std::vector<float> small{0.5f, 0.1f, 0.9f};
    scout::detail::best_scores(small, {}, 10, scratch, got);
    std::sort(got.begin(), got.end(), scout::detail::RankOrder{});
    REQUIRE(got.size() == 3);
    CHECK(got[0].id == 2);
    CHECK(got[1].id == 0);
    CHECK(got[2].id == 1);
}

TEST_CASE("order_key orders as the floats do", "[dense][topk]") {
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> ascending = {-inf,
                                          -std::numeric_limits<float>::max(),
                                          -1.5f,
                                          -std::numeric_limits<float>::denorm_min(),
                                          0.0f,
                                          std::numeric_limits<float>::denorm_min(),
                                          std::numeric_limits<float>::min(),
                                          0.25f,
                                          1.0f,
                                          std::numeric_limits<float>::max(),
                                          inf};
    for (std::size_t i = 1; i < ascending.size(); ++i) {
        CHECK(scout::detail::order_key(ascending[i - 1]) < scout::detail::order_key(ascending[i]));
    }
    CHECK(scout::detail::order_key(-0.0f) == scout::detail::order_key(0.0f));
    // rank_key: the higher score first, then the lower position.
    CHECK(scout::detail::rank_key(1.0f, 7) > scout::detail::rank_key(0.5f, 1));
    CHECK(scout::detail::rank_key(1.0f, 1) > scout::detail::rank_key(1.0f, 7));
    CHECK(scout::detail::rank_key_position(scout::detail::rank_key(-3.0f, 12345)) == 12345);
    for (const float v : {0.0f, std::numeric_limits<float>::denorm_min(), 0.25f, 7.0f, inf}) {
        CHECK(scout::detail::rank_key_not_negative(v, 3) == scout::detail::rank_key(v, 3));
    }
}

TEST_CASE("kth_largest_floor is at most the k-th largest value, and close to it", "[dense][topk]") {
    std::mt19937 rng(9);
    std::vector<std::uint32_t> counts;
    for (int shape = 0; shape < 6; ++shape) {
        for (std::size_t n : {1U, 5U, 175U, 698U, 5000U}) {
            std::vector<float> v = scores_of(shape, n, rng);
            std::vector<float> sorted = v;
            std::sort(sorted.begin(), sorted.end(), std::greater<>{});
            for (std::size_t k : {1U, 2U, 30U, 90U, 6000U}) {
                const float floor = scout::detail::kth_largest_floor(v, k, counts);
                INFO("shape " << shape << " n " << n << " k " << k);
                // The scratch is left all zeros for the next call.
                CHECK(std::all_of(counts.begin(), counts.end(), [](auto c) { return c == 0; }));
                if (k > n) {
                    CHECK(floor == -std::numeric_limits<float>::infinity());
                    continue;
                }
                const float kth = sorted[k - 1];
                CHECK(floor <= kth);
                if (kth > 0.0f && std::isfinite(kth) && kth >= std::numeric_limits<float>::min()) {
                    CHECK(floor > kth * 0.875f);  // the same eighth of an octave
                }
            }
        }
    }
}

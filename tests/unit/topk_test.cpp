// topk_test.cpp: the bounded heap keeps exactly the k best in a total order.
#include "util/topk.hpp"

#include <random>

#include <catch2/catch.hpp>

TEST_CASE("TopK keeps the k best, ties by lower id", "[topk]") {
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> score(0, 20);  // many ties
    std::vector<scout::detail::ScoredDoc> all;
    scout::detail::TopK top(25);
    for (scout::ToolId i = 0; i < 2000; ++i) {
        const auto s = static_cast<float>(score(rng));
        all.push_back({i, s});
        top.push(i, s);
    }
    std::sort(all.begin(), all.end(), scout::detail::ranks_before);
    std::vector<scout::detail::ScoredDoc> got;
    top.drain_sorted(got);
    REQUIRE(got.size() == 25);
    for (std::size_t i = 0; i < got.size(); ++i) {
        CHECK(got[i].id == all[i].id);
        CHECK(got[i].score == all[i].score);
    }
}

TEST_CASE("TopK equals a full sort for every k and arrival order", "[topk]") {
    // Replacing the worst sifts down one path of the heap: odd and even sizes, k = 1, ascending,
    // descending and shuffled arrivals exercise both children and the leaf level.
    std::mt19937 rng(23);
    std::uniform_int_distribution<int> score(0, 30);
    for (std::size_t k : {1U, 2U, 3U, 4U, 8U, 25U, 30U}) {
        for (int order = 0; order < 3; ++order) {
            std::vector<scout::detail::ScoredDoc> all;
            scout::detail::TopK top(k);
            for (scout::ToolId i = 0; i < 500; ++i) {
                const scout::ToolId id = order == 2 ? (i * 7919U) % 500U : i;
                const auto s = order == 0   ? static_cast<float>(i)
                               : order == 1 ? static_cast<float>(500 - i)
                                            : static_cast<float>(score(rng));
                all.push_back({id, s});
                top.push(id, s);
            }
            std::sort(all.begin(), all.end(), scout::detail::ranks_before);
            std::vector<scout::detail::ScoredDoc> got;
            top.drain_sorted(got);
            REQUIRE(got.size() == k);
            for (std::size_t i = 0; i < k; ++i) {
                CHECK(got[i].id == all[i].id);
                CHECK(got[i].score == all[i].score);
            }
        }
    }
}

TEST_CASE("TopK threshold is -inf until full, and k = 0 keeps nothing", "[topk]") {
    scout::detail::TopK top(2);
    CHECK(std::isinf(top.threshold()));
    top.push(1, 3.0f);
    top.push(2, 5.0f);
    CHECK(top.threshold() == 3.0f);
    scout::detail::TopK none(0);
    none.push(1, 1.0f);
    std::vector<scout::detail::ScoredDoc> out;
    none.drain_sorted(out);
    CHECK(out.empty());
}

TEST_CASE("TopKBuffer equals a full sort, ties included, across k and reuse", "[topk]") {
    std::mt19937 rng(17);
    std::uniform_int_distribution<int> score(0, 40);  // few distinct values: many ties
    scout::detail::TopKBuffer buffer;
    for (std::size_t k : {1U, 2U, 7U, 10U, 64U, 500U}) {
        std::vector<scout::detail::ScoredDoc> all;
        buffer.reset(k);
        for (scout::ToolId id = 0; id < 300; ++id) {
            const scout::ToolId shuffled = (id * 7919U) % 300U;  // arrival order is not id order
            const auto s = static_cast<float>(score(rng));
            all.push_back({shuffled, s});
            buffer.push(shuffled, s);
        }
        std::sort(all.begin(), all.end(), scout::detail::ranks_before);
        all.resize(std::min<std::size_t>(k, all.size()));
        std::vector<scout::detail::ScoredDoc> got;
        buffer.drain_sorted(got);
        REQUIRE(got.size() == all.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            CHECK(got[i].id == all[i].id);
            CHECK(got[i].score == all[i].score);
        }
    }
    buffer.reset(0);
    buffer.push(1, 1.0f);
    std::vector<scout::detail::ScoredDoc> none;
    buffer.drain_sorted(none);
    CHECK(none.empty());
}

// topk_test.cpp: the bounded heap keeps exactly the k best in a total order.
#include <random>

#include <catch2/catch.hpp>

#include "util/topk.hpp"

TEST_CASE("TopK keeps the k best, ties by lower id", "[topk]") {
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> score(0, 20);  // many ties
    std::vector<scout::ScoredDoc> all;
    scout::TopK top(25);
    for (scout::ToolId i = 0; i < 2000; ++i) {
        const auto s = static_cast<float>(score(rng));
        all.push_back({i, s});
        top.push(i, s);
    }
    std::sort(all.begin(), all.end(), scout::ranks_before);
    std::vector<scout::ScoredDoc> got;
    top.drain_sorted(got);
    REQUIRE(got.size() == 25);
    for (std::size_t i = 0; i < got.size(); ++i) {
        CHECK(got[i].id == all[i].id);
        CHECK(got[i].score == all[i].score);
    }
}

TEST_CASE("TopK threshold is -inf until full, and k = 0 keeps nothing", "[topk]") {
    scout::TopK top(2);
    CHECK(std::isinf(top.threshold()));
    top.push(1, 3.0f);
    top.push(2, 5.0f);
    CHECK(top.threshold() == 3.0f);
    scout::TopK none(0);
    none.push(1, 1.0f);
    std::vector<scout::ScoredDoc> out;
    none.drain_sorted(out);
    CHECK(out.empty());
}

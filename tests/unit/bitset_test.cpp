// bitset_test.cpp: the scope filter's set of tool ids.
#include "util/bitset.hpp"

#include <random>

#include <catch2/catch.hpp>

TEST_CASE("Bitset::members lists the set ids below the limit, ascending", "[bitset]") {
    std::mt19937 rng(3);
    std::vector<scout::ToolId> got;
    for (std::size_t n : {0U, 1U, 63U, 64U, 65U, 130U, 1000U}) {
        for (const double density : {0.0, 0.02, 0.5, 1.0}) {
            scout::detail::Bitset set(n);
            std::bernoulli_distribution in(density);
            std::vector<scout::ToolId> all;
            for (std::size_t i = 0; i < n; ++i) {
                if (in(rng)) {
                    set.set(static_cast<scout::ToolId>(i));
                    all.push_back(static_cast<scout::ToolId>(i));
                }
            }
            for (std::size_t limit : {std::size_t{0}, n / 2, n, n + 70}) {
                std::vector<scout::ToolId> want;
                for (scout::ToolId id : all) {
                    if (id < limit) {
                        want.push_back(id);
                    }
                }
                got.assign(5, 99);  // replaced, not appended to
                set.members(limit, got);
                INFO("n " << n << " density " << density << " limit " << limit);
                CHECK(got == want);
                CHECK(set.count() == all.size());
            }
        }
    }
}

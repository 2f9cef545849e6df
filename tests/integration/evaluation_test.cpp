// evaluation_test.cpp: eval::evaluate ranks within the candidate pool a user's search holds.
#include "eval/evaluation.hpp"

#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"

using namespace scout;

namespace {

std::string tool_name(int i) {
    std::string name = std::to_string(100 + i);
    name.insert(name.begin(), 't');
    return name;
}

/// 30 tools that all match "alpha", tool i with 30 - i occurrences, so BM25 ranks tool i at i + 1.
Catalog ladder() {
    CatalogSpec spec;
    ServerSpec server{"ladder", "", "", "", ServerStatus::active, {}};
    for (int i = 0; i < 30; ++i) {
        std::string description;
        for (int n = 0; n < 30 - i; ++n) {
            description += "alpha ";
        }
        server.tools.push_back({tool_name(i), "", description, "", ""});
    }
    spec.servers.push_back(std::move(server));
    CatalogOptions options;
    options.expansion.action_weight = 0.0f;
    options.expansion.action_boost = 0.0f;
    auto catalog = Catalog::create(options);
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(spec).ok());
    REQUIRE(catalog->commit().ok());
    return std::move(catalog.value());
}

eval::Report run(const Catalog& catalog, int relevant_index, std::size_t top_k) {
    const std::vector<eval::LabelledQuery> queries{
        {"q", "alpha", {ToolKey{"ladder", tool_name(relevant_index)}}}};
    eval::Options options;
    options.search.mode = Mode::bm25;
    options.search.top_k = top_k;
    return eval::evaluate(catalog.searcher(), queries, options);
}

}  // namespace

TEST_CASE("a single branch is ranked within its own pool, as the user's search ranks it",
          "[eval]") {
    const Catalog catalog = ladder();
    // Rank 12: inside the pool of a top-5 search (5 x 3 = 15 candidates).
    const eval::Report inside = run(catalog, 11, 5);
    REQUIRE(inside.outcomes.size() == 1);
    CHECK(inside.outcomes[0].first_relevant_rank == 12);
    CHECK(inside.outcomes[0].top.tool == "t100");
    CHECK(inside.mrr == Approx(1.0 / 12));
    CHECK(inside.hit_at_10 == 0.0);
    // Rank 17 lies beyond that pool: not credited, though within the top 20.
    const eval::Report beyond = run(catalog, 16, 5);
    CHECK(beyond.outcomes[0].first_relevant_rank == 0);
    CHECK(beyond.mrr == 0.0);
    // A top-10 search holds 30 candidates, so the same tool counts at rank 17.
    const eval::Report deeper = run(catalog, 16, 10);
    CHECK(deeper.outcomes[0].first_relevant_rank == 17);
    CHECK(deeper.mrr == Approx(1.0 / 17));
}

TEST_CASE("progress counts every query, ending at all of them", "[eval]") {
    const Catalog catalog = ladder();
    const std::vector<eval::LabelledQuery> queries{
        {"a", "alpha", {ToolKey{"ladder", tool_name(0)}}},
        {"gap", "alpha", {}},  // a catalog gap is counted too
        {"b", "alpha", {ToolKey{"ladder", tool_name(1)}}}};
    eval::Options options;
    options.search.mode = Mode::bm25;
    std::vector<std::pair<std::size_t, std::size_t>> heard;
    options.progress = [&](std::size_t done, std::size_t total) {
        heard.emplace_back(done, total);
    };
    (void)eval::evaluate(catalog.searcher(), queries, options);
    const std::vector<std::pair<std::size_t, std::size_t>> expected{{0, 3}, {1, 3}, {2, 3}, {3, 3}};
    CHECK(heard == expected);
}

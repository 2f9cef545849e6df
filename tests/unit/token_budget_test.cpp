// token_budget_test.cpp: fit_to_budget with the real BPE counter: the first hit is always whole,
// later hits are kept whole, then with a trimmed description, then with a trimmed schema, and
// the list ends at the first hit that fits in no form; every count is the real one.
#include "scout/token_budget.hpp"

#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/fixture_skip.hpp"

namespace {

scout::Hit make_hit(int i) {
    scout::Hit h;
    h.id = static_cast<scout::ToolId>(i);
    h.server = "server" + std::to_string(i);
    h.tool = "tool_" + std::to_string(i);
    h.name = h.server + "_" + h.tool;
    for (int w = 0; w < 60; ++w) {  // a long description: about 120 tokens
        h.description += "word" + std::to_string(w % 7) + " of tool " + std::to_string(i) + " ";
    }
    h.input_schema =
        R"({"type":"object","properties":{"path":{"type":"string","description":"The path of the )"
        R"(file to read, relative to the workspace root, using forward slashes"},"limit":)"
        R"({"type":"integer","description":"How many lines to return at most","default":100}}})";
    return h;
}

std::vector<scout::Hit> make_hits(int n) {
    std::vector<scout::Hit> hits;
    for (int i = 0; i < n; ++i) {
        hits.push_back(make_hit(i));
    }
    return hits;
}

}  // namespace

TEST_CASE("fit_to_budget keeps what fits, trimming descriptions before schemas", "[tokens]") {
    auto loaded = scout::TokenCounter::load_default(scout::TokenEncoding::cl100k_base);
    if (!loaded) {
        SCOUT_SKIP_WITHOUT_FIXTURE("BPE rank files unavailable");
    }
    const scout::TokenCounter& counter = loaded.value();
    const std::vector<scout::Hit> hits = make_hits(5);
    const std::size_t whole = counter.count(scout::hit_json(hits[0]));
    REQUIRE(whole > 150);

    // No budget: everything whole.
    scout::BudgetedHits all = scout::fit_to_budget(hits, counter, {});
    CHECK(all.hits.size() == 5);
    CHECK(all.omitted == 0);

    // A budget below one hit: the first hit alone, complete.
    scout::BudgetedHits one = scout::fit_to_budget(hits, counter, {.max_tokens = 10});
    REQUIRE(one.hits.size() == 1);
    CHECK(!one.hits[0].description_trimmed);
    CHECK(!one.hits[0].schema_trimmed);
    CHECK(one.hits[0].hit.description == hits[0].description);
    CHECK(one.omitted == 4);

    // Room for two whole hits and a bit: the third comes with a trimmed description.
    scout::BudgetedHits three =
        scout::fit_to_budget(hits, counter, {.max_tokens = 2 * whole + whole / 2});
    REQUIRE(three.hits.size() >= 3);
    CHECK(!three.hits[1].description_trimmed);
    CHECK(three.hits[2].description_trimmed);
    CHECK(!three.hits[2].schema_trimmed);
    CHECK(three.hits[2].hit.description.size() < hits[2].description.size());
    CHECK(three.hits[2].hit.description.substr(three.hits[2].hit.description.size() - 3) == "...");
    CHECK(three.tokens <= 2 * whole + whole / 2);

    // Trimmed descriptions and schemas: descriptions of parameters go, names and types stay.
    // First the cost with only the description trimmed, then a budget just below it.
    const std::vector<scout::Hit> pair{hits[0], hits[1]};
    const scout::BudgetedHits described = scout::fit_to_budget(
        pair, counter, {.max_tokens = 2 * whole - 1, .trimmed_description_tokens = 8});
    REQUIRE(described.hits.size() == 2);
    REQUIRE(described.hits[1].description_trimmed);
    REQUIRE_FALSE(described.hits[1].schema_trimmed);
    scout::Hit both = described.hits[1].hit;
    both.input_schema =
        R"({"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"}}})";
    const std::size_t both_cost = counter.count(scout::hit_json(both, true, true));
    REQUIRE(both_cost < described.hits[1].tokens);
    const std::size_t tight_budget = whole + both_cost;
    scout::BudgetedHits tight = scout::fit_to_budget(
        hits, counter, {.max_tokens = tight_budget, .trimmed_description_tokens = 8});
    REQUIRE(tight.hits.size() >= 2);
    CHECK(tight.hits[1].description_trimmed);
    CHECK(tight.hits[1].schema_trimmed);
    const auto schema = nlohmann::json::parse(tight.hits[1].hit.input_schema);
    CHECK(schema["properties"]["path"]["type"] == "string");
    CHECK(!schema["properties"]["path"].contains("description"));
    CHECK(!schema["properties"]["limit"].contains("default"));
    const auto marked =
        nlohmann::json::parse(scout::hit_json(tight.hits[1].hit, true, true))["trimmed"];
    CHECK(marked == nlohmann::json::array({"description", "inputSchema"}));

    // Every figure is the real count, and the budget holds beyond the first hit.
    for (const scout::BudgetedHits* fitted : {&three, &tight}) {
        std::size_t sum = 0;
        for (const scout::BudgetedHit& b : fitted->hits) {
            CHECK(b.tokens ==
                  counter.count(scout::hit_json(b.hit, b.description_trimmed, b.schema_trimmed)));
            sum += b.tokens;
        }
        CHECK(sum == fitted->tokens);
        CHECK(fitted->hits.size() + fitted->omitted == hits.size());
    }
    CHECK(tight.tokens <= tight_budget);
    CHECK(tight.hits.size() == 2);
}

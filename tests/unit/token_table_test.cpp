// token_table_test.cpp: the tools/list and tool_search result texts, and the token accounting
// over them (skipped without the BPE rank files).
#include "eval/token_table.hpp"

#include <set>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scout/catalog.hpp"

#include "support/fixture_skip.hpp"

namespace {

scout::CatalogSpec tiny_catalog() {
    scout::CatalogSpec spec;
    scout::ServerSpec a{"billing", "Billing API", "", "", scout::ServerStatus::active, {}};
    a.tools.push_back({"refund_payment",
                       "",
                       "Refund a captured payment.",
                       R"({"type":"object","properties":{"payment_id":{"type":"string"}}})",
                       ""});
    a.tools.push_back({"list_invoices", "", "List invoices of a customer.", "", ""});
    scout::ServerSpec b{"crm", "Customer records", "", "", scout::ServerStatus::active, {}};
    b.tools.push_back(
        {"refund_payment", "", "Log a refund request on the customer record.", "", ""});
    scout::ServerSpec off{"old", "Retired", "", "", scout::ServerStatus::inactive, {}};
    off.tools.push_back({"legacy", "", "Never listed.", "", ""});
    spec.servers = {a, b, off};
    return spec;
}

}  // namespace

TEST_CASE("full tools/list lists every active tool once with unique names", "[tokens]") {
    const auto doc = nlohmann::json::parse(scout::eval::full_tools_list_json(tiny_catalog()));
    REQUIRE(doc["tools"].size() == 3);
    std::set<std::string> names;
    for (const auto& t : doc["tools"]) {
        names.insert(t["name"].get<std::string>());
        CHECK(t["inputSchema"].is_object());
        CHECK(t.contains("description"));
    }
    CHECK(names.size() == 3);
    CHECK(doc.dump().find("legacy") == std::string::npos);
}

TEST_CASE("token table counts both sides", "[tokens]") {
    auto counter = scout::TokenCounter::load_default(scout::TokenEncoding::cl100k_base);
    if (!counter) {
        SCOUT_SKIP_WITHOUT_FIXTURE("BPE rank files unavailable (" << counter.status().message()
                                                                  << ")");
    }
    const auto spec = tiny_catalog();
    auto catalog = scout::Catalog::create({}, nullptr);
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(spec).ok());
    REQUIRE(catalog->commit().ok());
    scout::SearchOptions options;
    options.top_k = 1;
    auto row = scout::eval::measure_tokens(spec,
                                           catalog->searcher(),
                                           counter.value(),
                                           R"({"tools":[]})",
                                           {"refund a payment", "invoices"},
                                           options);
    REQUIRE(row.ok());
    CHECK(row->servers == 2);
    CHECK(row->tools == 3);
    CHECK(row->sampled_queries == 2);
    CHECK(row->full_list == counter->count(scout::eval::full_tools_list_json(spec)));
    CHECK(row->meta_definitions == counter->count(R"({"tools":[]})"));
    CHECK(row->mean_result > 10);
    CHECK(row->mean_result < static_cast<double>(row->full_list));
    CHECK(row->reduction() > 0.0);
    CHECK(scout::eval::measure_tokens(spec, catalog->searcher(), counter.value(), "{}", {}, options)
              .status()
              .code() == scout::Errc::invalid_argument);
}

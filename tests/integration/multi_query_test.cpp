// multi_query_test.cpp: SearchOptions::alternatives. A query whose own words miss finds the tool
// through an alternative phrasing; without alternatives the search is the plain one; the query's
// exact names still come first; bad alternatives are rejected.
#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"

namespace {

scout::ToolSpec tool(std::string name, std::string description) {
    return scout::ToolSpec{std::move(name), "", std::move(description), "", ""};
}

scout::Catalog make_catalog() {
    auto created = scout::Catalog::create();
    REQUIRE(created.ok());
    scout::Catalog catalog = std::move(created.value());
    REQUIRE(catalog
                .upsert_server({"mail",
                                "Email",
                                "",
                                "",
                                scout::ServerStatus::active,
                                {tool("send_email", "Send an email message to a recipient"),
                                 tool("list_inbox", "List the newest messages of the inbox")}})
                .ok());
    REQUIRE(catalog
                .upsert_server({"weather",
                                "Weather data",
                                "",
                                "",
                                scout::ServerStatus::active,
                                {tool("get_forecast", "Hourly temperature and rain forecast"),
                                 tool("air_quality", "Air quality index near a place")}})
                .ok());
    REQUIRE(catalog.commit().ok());
    return catalog;
}

std::vector<std::string> names(const scout::SearchResult& r) {
    std::vector<std::string> out;
    for (const scout::Hit& h : r.hits) {
        out.push_back(h.name);
    }
    return out;
}

}  // namespace

TEST_CASE("an alternative phrasing finds what the query's words miss", "[search][multi_query]") {
    const scout::Catalog catalog = make_catalog();
    const scout::Searcher s = catalog.searcher();
    scout::SearchOptions options;
    options.mode = scout::Mode::bm25;
    auto alone = s.search("zqxj blorf", options);
    REQUIRE(alone.ok());
    CHECK(alone->hits.empty());

    options.alternatives = {"rain forecast"};
    auto fused = s.search("zqxj blorf", options);
    REQUIRE(fused.ok());
    REQUIRE_FALSE(fused->hits.empty());
    CHECK(fused->hits[0].name == "weather_get_forecast");
    CHECK(fused->hits[0].score > 0);
}

TEST_CASE("no alternatives is the plain search, the same phrasing keeps its order",
          "[search][multi_query]") {
    const scout::Catalog catalog = make_catalog();
    const scout::Searcher s = catalog.searcher();
    scout::SearchOptions plain;
    plain.mode = scout::Mode::bm25;
    plain.top_k = 4;
    auto a = s.search("send an email message", plain);
    auto b = s.search("send an email message", plain);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(names(*a) == names(*b));
    for (std::size_t i = 0; i < a->hits.size(); ++i) {
        CHECK(a->hits[i].score == b->hits[i].score);
    }
    scout::SearchOptions same = plain;
    same.alternatives = {"send an email message"};
    auto c = s.search("send an email message", same);
    REQUIRE(c.ok());
    CHECK(names(*c) == names(*a));  // RRF of identical lists keeps the order
    // Two phrasings that agree on different tools: both come up.
    scout::SearchOptions two = plain;
    two.top_k = 2;
    two.alternatives = {"air quality index"};
    auto d = s.search("rain forecast", two);
    REQUIRE(d.ok());
    std::vector<std::string> both = names(*d);
    std::sort(both.begin(), both.end());  // each is first in one list: an RRF tie
    CHECK(both == std::vector<std::string>{"weather_air_quality", "weather_get_forecast"});
}

TEST_CASE("multi-query keeps exact names first and checks its alternatives",
          "[search][multi_query]") {
    const scout::Catalog catalog = make_catalog();
    const scout::Searcher s = catalog.searcher();
    scout::SearchOptions options;
    options.mode = scout::Mode::bm25;
    options.alternatives = {"air quality index", "air quality near a place"};
    auto r = s.search("send_email", options);
    REQUIRE(r.ok());
    REQUIRE_FALSE(r->hits.empty());
    CHECK(r->hits[0].name == "mail_send_email");

    options.alternatives = {""};
    auto empty = s.search("send email", options);
    CHECK(empty.status().code() == scout::Errc::invalid_argument);
    CHECK(empty.status().message().find("alternatives[0]") != std::string::npos);
    options.alternatives.assign(scout::SearchOptions::kMaxAlternatives + 1, "email");
    CHECK(s.search("send email", options).status().code() == scout::Errc::invalid_argument);
    options.alternatives = {"\xff\xfe"};
    CHECK(!s.search("send email", options).ok());
}

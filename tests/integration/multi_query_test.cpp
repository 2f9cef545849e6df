// multi_query_test.cpp: SearchOptions::alternatives. A query whose own words miss finds the tool
// through an alternative phrasing; without alternatives the search is the plain one; one
// phrasing's strong match is not beaten by a tool two phrasings match weakly; a tool both match
// well comes first; each hit names its best phrasing; the query's exact names still come first;
// bad alternatives are rejected.
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
    CHECK(names(*c) == names(*a));  // identical lists keep their order
    // Two phrasings that agree on different tools: both come up.
    scout::SearchOptions two = plain;
    two.top_k = 2;
    two.alternatives = {"air quality index"};
    auto d = s.search("rain forecast", two);
    REQUIRE(d.ok());
    std::vector<std::string> both = names(*d);
    std::sort(both.begin(), both.end());  // each is first in one list
    CHECK(both == std::vector<std::string>{"weather_air_quality", "weather_get_forecast"});
}

/// On-call tools: one phrasing names the tool that triggers an incident, another names a
/// messaging tool, and both share a single word with the tool that lists services.
scout::Catalog make_incident_catalog() {
    auto created = scout::Catalog::create();
    REQUIRE(created.ok());
    scout::Catalog catalog = std::move(created.value());
    REQUIRE(
        catalog
            .upsert_server({"oncall",
                            "Incident response",
                            "",
                            "",
                            scout::ServerStatus::active,
                            {tool("trigger_incident", "Trigger an incident and page the responder"),
                             tool("list_services",
                                  "List services with their open incident count and "
                                  "owning team"),
                             tool("get_schedule", "Rotation schedule of a service")}})
            .ok());
    REQUIRE(catalog
                .upsert_server({"chat",
                                "Workplace conversations",
                                "",
                                "",
                                scout::ServerStatus::active,
                                {tool("send_message", "Send a message to a team channel"),
                                 tool("list_rooms", "Rooms you belong to")}})
                .ok());
    REQUIRE(catalog.commit().ok());
    return catalog;
}

std::size_t position(const scout::SearchResult& r, const std::string& name) {
    const std::vector<std::string> n = names(r);
    return static_cast<std::size_t>(std::find(n.begin(), n.end(), name) - n.begin());
}

TEST_CASE("one phrasing's strong match is not beaten by two weak ones", "[search][multi_query]") {
    const scout::Catalog catalog = make_incident_catalog();
    const scout::Searcher s = catalog.searcher();
    scout::SearchOptions options;
    options.mode = scout::Mode::bm25;
    options.top_k = 5;
    const std::string query = "trigger incident page responder";
    options.alternatives = {"send message team channel"};
    auto fused = s.search(query, options);
    REQUIRE(fused.ok());
    // list_services is second in both phrasings' lists (by ranks alone it would win); each
    // phrasing's own top tool ranks above it.
    for (const char* phrasing : {"trigger incident page responder", "send message team channel"}) {
        scout::SearchOptions one = options;
        one.alternatives.clear();
        auto alone = s.search(phrasing, one);
        REQUIRE(alone.ok());
        REQUIRE(alone->hits.size() >= 2);
        CHECK(alone->hits[1].name == "oncall_list_services");
    }
    REQUIRE(fused->hits.size() >= 3);
    CHECK(fused->hits[0].name == "oncall_trigger_incident");
    CHECK(fused->hits[0].best_phrasing == 0);
    CHECK(fused->hits[1].name == "chat_send_message");
    CHECK(fused->hits[1].best_phrasing == 1);
    CHECK(position(*fused, "oncall_list_services") == 2);
    CHECK(fused->hits[2].score < fused->hits[1].score);
}

TEST_CASE("a tool both phrasings match well ranks first, and scores do not tie",
          "[search][multi_query]") {
    const scout::Catalog catalog = make_incident_catalog();
    const scout::Searcher s = catalog.searcher();
    scout::SearchOptions options;
    options.mode = scout::Mode::bm25;
    options.top_k = 5;
    options.alternatives = {"page the responder about an incident", "send message team channel"};
    auto fused = s.search("trigger incident", options);
    REQUIRE(fused.ok());
    REQUIRE(fused->hits.size() >= 3);
    CHECK(fused->hits[0].name == "oncall_trigger_incident");
    CHECK(fused->hits[0].score > fused->hits[1].score);
    for (std::size_t i = 1; i < fused->hits.size(); ++i) {
        CHECK(fused->hits[i - 1].score >= fused->hits[i].score);
    }
    CHECK(fused->hits[0].score != fused->hits[2].score);
    // Each hit's branch ranks are those of its best phrasing's list.
    const std::size_t msg = position(*fused, "chat_send_message");
    REQUIRE(msg < fused->hits.size());
    CHECK(fused->hits[msg].best_phrasing == 2);
    CHECK(fused->hits[msg].bm25_rank == 1);
}

TEST_CASE("without alternatives every hit's best phrasing is the query", "[search][multi_query]") {
    const scout::Catalog catalog = make_incident_catalog();
    const scout::Searcher s = catalog.searcher();
    scout::SearchOptions options;
    options.mode = scout::Mode::bm25;
    auto r = s.search("incident team channel", options);
    REQUIRE(r.ok());
    REQUIRE_FALSE(r->hits.empty());
    for (const scout::Hit& h : r->hits) {
        CHECK(h.best_phrasing == 0);
    }
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

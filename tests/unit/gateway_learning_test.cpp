// gateway_learning_test.cpp: the gateway's doctor report file (every backend's latest report,
// valid JSON, replaced on re-index) and its memory of searches for learning from executions
// (the outcome of an executed tool is recorded with the query of the search that offered it).
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scout/catalog.hpp"
#include "scout/mcp/meta_tools.hpp"

#include "doctor_report.hpp"
#include "outcome_memory.hpp"
#include "support/temp_dir.hpp"
#include "support/test_catalogs.hpp"

using namespace scout::gateway;

namespace {

nlohmann::json read_json(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str());
}

}  // namespace

TEST_CASE("the doctor report file holds every backend's latest report", "[gateway]") {
    scout::test::TempDir dir;
    DoctorReportFile file(dir.file("doctor.json"));
    REQUIRE(file.update("alpha", R"({"score": 1})").ok());
    REQUIRE(file.update("beta", R"({"score": 0.5})").ok());
    REQUIRE(file.update("alpha", R"({"score": 0.25})").ok());
    const nlohmann::json j = read_json(dir.file("doctor.json"));
    CHECK(j["servers"].size() == 2);
    CHECK(j["servers"]["alpha"]["score"] == 0.25);
    CHECK(j["servers"]["beta"]["score"] == 0.5);

    DoctorReportFile nowhere(dir.file("missing/dir/doctor.json"));
    CHECK_FALSE(nowhere.update("alpha", "{}").ok());
}

TEST_CASE("outcomes of executed tools are recorded with the query that offered them", "[gateway]") {
    auto catalog = scout::Catalog::create();
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(scout::testing::small_catalog()).ok());
    REQUIRE(catalog->commit().ok());
    scout::mcp::MetaTools meta{scout::mcp::Connector{}};
    const scout::mcp::Json args{{"query", "send a chat message to a channel"}};
    const scout::mcp::Json answer = meta.tool_search(catalog->searcher(), args);

    OutcomeMemory memory;
    memory.remember(args, answer);
    memory.remember(scout::mcp::Json::object(), answer);                // no query: ignored
    memory.remember(args, scout::mcp::Json{{"structuredContent", 3}});  // malformed: ignored
    const scout::mcp::Json& matches = answer["structuredContent"]["matches"];
    REQUIRE(matches.size() >= 2);
    const scout::ToolKey offered{matches.back()["server"].get<std::string>(),
                                 matches.back()["tool"].get<std::string>()};
    CHECK(memory.query_for(offered) == "send a chat message to a channel");
    CHECK_FALSE(memory.query_for({"teams", "no_such_tool"}).has_value());

    memory.record(*catalog, offered, true);
    auto learned = catalog->searcher().search("send a chat message to a channel",
                                              {.top_k = 5, .outcome_prior = true});
    auto plain = catalog->searcher().search("send a chat message to a channel", {.top_k = 5});
    REQUIRE(learned.ok());
    REQUIRE(plain.ok());
    // The offered tool gained: it ranks no lower, and its score rose.
    bool rose = false;
    for (std::size_t i = 0; i < learned->hits.size(); ++i) {
        for (const scout::Hit& p : plain->hits) {
            if (learned->hits[i].tool == offered.tool && p.tool == offered.tool) {
                rose = learned->hits[i].score > p.score;
            }
        }
    }
    CHECK(rose);

    for (std::size_t n = 0; n < OutcomeMemory::kSearches; ++n) {  // pushes the search out
        memory.remember(
            scout::mcp::Json{{"query", "list tables"}},
            scout::mcp::Json{{"structuredContent", {{"matches", scout::mcp::Json::array()}}}});
    }
    CHECK_FALSE(memory.query_for(offered).has_value());
}

// catalog_loader_test.cpp: the catalog format and tools/list results, valid and broken.
#include "scout/catalog_loader.hpp"

#include <catch2/catch.hpp>

TEST_CASE("a catalog with every optional field loads", "[loader]") {
    auto spec =
        scout::parse_catalog_json(R"({"servers":[{"name":"s","description":"d","category":"c",
        "environment":"prod","status":"degraded","tools":[{"name":"t","title":"T","description":"x",
        "inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]}]})");
    REQUIRE(spec.ok());
    REQUIRE(spec->servers.size() == 1);
    const auto& s = spec->servers[0];
    CHECK(s.environment == "prod");
    CHECK(s.status == scout::ServerStatus::degraded);
    REQUIRE(s.tools.size() == 1);
    CHECK(s.tools[0].title == "T");
    CHECK(s.tools[0].input_schema == R"({"type":"object"})");
    CHECK(s.tools[0].annotations == R"({"readOnlyHint":true})");
}

TEST_CASE("broken catalogs give errors that name the entry", "[loader]") {
    const std::vector<std::pair<const char*, const char*>> cases = {
        {"{", "malformed JSON"},
        {"[]", "'servers' array"},
        {R"({"servers":{}})", "'servers' array"},
        {R"({"servers":[1]})", "servers[0]"},
        {R"({"servers":[{"description":"x"}]})", "servers[0]: 'name'"},
        {R"({"servers":[{"name":""}]})", "servers[0]: 'name'"},
        {R"({"servers":[{"name":"a","tools":{}}]})", "'tools' must be an array"},
        {R"({"servers":[{"name":"a","tools":[{"name":"t","inputSchema":"x"}]}]})",
         "servers[0].tools[0]: 'inputSchema'"},
        {R"({"servers":[{"name":"a","tools":[{"name":5}]}]})", "servers[0].tools[0]: 'name'"},
        {R"({"servers":[{"name":"a","status":"sleepy"}]})", "unknown status"},
        {R"({"servers":[{"name":"a","description":7}]})", "'description' must be a string"},
        {"{\"servers\":[{\"name\":\"\xFF\"}]}", "malformed JSON"},
    };
    for (const auto& [json, expected] : cases) {
        INFO(json);
        auto spec = scout::parse_catalog_json(json);
        REQUIRE_FALSE(spec.ok());
        CHECK(spec.status().code() == scout::Errc::invalid_argument);
        CHECK(spec.status().message().find(expected) != std::string::npos);
    }
}

TEST_CASE("a catalog nested too deep is refused, not a crash", "[loader]") {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    auto spec = scout::parse_catalog_json(
        R"({"servers":[{"name":"s","tools":[{"name":"t","inputSchema":{"x":)" + deep + "}}]}]}");
    REQUIRE_FALSE(spec.ok());
    CHECK(spec.status().message().find("nested deeper than 256 levels") != std::string::npos);
    CHECK_FALSE(
        scout::parse_tools_list(R"({"tools":[{"name":"t","inputSchema":{"x":)" + deep + "}}]}")
            .ok());
}

TEST_CASE("tools/list results load bare or inside a JSON-RPC response", "[loader]") {
    auto bare = scout::parse_tools_list(
        R"({"tools":[{"name":"echo","inputSchema":{"type":"object"}}],"nextCursor":"x"})");
    REQUIRE(bare.ok());
    CHECK(bare->size() == 1);
    auto wrapped = scout::parse_tools_list(
        R"({"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"},{"name":"b"}]}})");
    REQUIRE(wrapped.ok());
    CHECK(wrapped->size() == 2);
    CHECK_FALSE(scout::parse_tools_list(R"({"result":{}})").ok());
    CHECK_FALSE(scout::parse_tools_list("null").ok());
}

TEST_CASE("missing files are reported with their path", "[loader]") {
    auto spec = scout::load_catalog_file("/nonexistent/dir/catalog.json");
    REQUIRE_FALSE(spec.ok());
    CHECK(spec.status().code() == scout::Errc::not_found);
    CHECK(spec.status().message().find("/nonexistent/dir/catalog.json") != std::string::npos);
}

TEST_CASE("validate_tool makes upsert's checks of one tool, without a catalog", "[loader]") {
    const scout::ServerSpec server{
        "github", "Source hosting", "", "", scout::ServerStatus::active, {}};
    const scout::ToolSpec good{"create_issue", "", "Open an issue", R"({"type":"object"})", ""};
    CHECK(scout::validate_tool(server, good).ok());

    scout::ToolSpec unnamed = good;
    unnamed.name.clear();
    scout::ToolSpec bad_utf8 = good;
    bad_utf8.description = "\xC3\x28";
    scout::ToolSpec not_an_object = good;
    not_an_object.input_schema = "[1,2]";
    for (const scout::ToolSpec& tool : {unnamed, bad_utf8, not_an_object}) {
        const scout::Status s = scout::validate_tool(server, tool);
        INFO(tool.name << " " << tool.description << " " << tool.input_schema);
        CHECK(s.code() == scout::Errc::invalid_argument);
        CHECK(s.message().find("server 'github'") != std::string::npos);
    }
}

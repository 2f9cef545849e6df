// catalog_json_test.cpp: the streaming reader of the CATL section gives exactly the catalog the
// writer's JSON holds, and refuses every shape the JSON-tree reader before it refused.
#include "persist/catalog_json.hpp"

#include <cstdlib>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scout/scout.hpp"

#include "support/test_catalogs.hpp"

namespace {

using nlohmann::json;

/// The CATL text of `spec`, written as the index writer writes it.
std::string catl_text(const scout::CatalogSpec& spec) {
    json servers = json::array();
    for (const scout::ServerSpec& s : spec.servers) {
        json tools = json::array();
        for (const scout::ToolSpec& t : s.tools) {
            tools.push_back({{"name", t.name},
                             {"title", t.title},
                             {"description", t.description},
                             {"input_schema", t.input_schema},
                             {"annotations", t.annotations}});
        }
        servers.push_back({{"name", s.name},
                           {"description", s.description},
                           {"category", s.category},
                           {"environment", s.environment},
                           {"status", std::string(scout::server_status_name(s.status))},
                           {"tools", std::move(tools)}});
    }
    return json{{"servers", std::move(servers)}}.dump();
}

void check_same(const scout::CatalogSpec& a, const scout::CatalogSpec& b) {
    REQUIRE(a.servers.size() == b.servers.size());
    for (std::size_t s = 0; s < a.servers.size(); ++s) {
        const scout::ServerSpec& x = a.servers[s];
        const scout::ServerSpec& y = b.servers[s];
        CHECK(x.name == y.name);
        CHECK(x.description == y.description);
        CHECK(x.category == y.category);
        CHECK(x.environment == y.environment);
        CHECK(x.status == y.status);
        REQUIRE(x.tools.size() == y.tools.size());
        for (std::size_t t = 0; t < x.tools.size(); ++t) {
            CHECK(x.tools[t].name == y.tools[t].name);
            CHECK(x.tools[t].title == y.tools[t].title);
            CHECK(x.tools[t].description == y.tools[t].description);
            CHECK(x.tools[t].input_schema == y.tools[t].input_schema);
            CHECK(x.tools[t].annotations == y.tools[t].annotations);
        }
    }
}

bool refused(const std::string& text) {
    auto read = scout::detail::read_catalog_json(text);
    return !read.ok() && read.status().code() == scout::Errc::invalid_argument;
}

const char* kTool =
    R"({"name":"t","title":"","description":"d","input_schema":"{}","annotations":""})";

std::string server_with(const std::string& members) {
    return std::string(R"({"servers":[{"name":"s","description":"","category":"",)") +
           R"("environment":"","status":"ACTIVE")" + members + "}]}";
}

}  // namespace

TEST_CASE("the CATL reader returns every field of every server and tool", "[persistence]") {
    scout::CatalogSpec spec = scout::testing::small_catalog();
    spec.servers.front().status = scout::ServerStatus::degraded;
    spec.servers.front().tools.front().annotations = R"({"readOnlyHint":true})";
    spec.servers.front().tools.front().title = "T\xc3\xa9st \"quoted\" \\ \n";
    auto read = scout::detail::read_catalog_json(catl_text(spec));
    REQUIRE(read.ok());
    check_same(*read, spec);

    const char* src = std::getenv("SCOUT_SOURCE_DIR");
    REQUIRE(src != nullptr);
    auto enterprise =
        scout::load_catalog_file(std::filesystem::path(src) / "data" / "enterprise_catalog.json");
    REQUIRE(enterprise.ok());
    auto again = scout::detail::read_catalog_json(catl_text(*enterprise));
    REQUIRE(again.ok());
    check_same(*again, *enterprise);
}

TEST_CASE("the CATL reader skips unknown members and keeps a repeated member's last value",
          "[persistence]") {
    const std::string text = std::string(R"({"extra":[{"servers":1}],"servers":[{"name":"s",)") +
                             R"("x":{"name":5,"tools":[[]]},"description":"first","description":)" +
                             R"("second","category":"c","environment":"e","status":"ACTIVE",)" +
                             R"("tools":[)" + kTool + R"(],"tools":[)" + kTool + "," +
                             R"({"name":"u","title":"","description":"","input_schema":"",)" +
                             R"("annotations":"","more":null}]}],"after":true})";
    auto read = scout::detail::read_catalog_json(text);
    REQUIRE(read.ok());
    REQUIRE(read->servers.size() == 1);
    CHECK(read->servers[0].description == "second");
    REQUIRE(read->servers[0].tools.size() == 2);
    CHECK(read->servers[0].tools[1].name == "u");
    CHECK(scout::detail::read_catalog_json(R"({"servers":[]})").ok());
}

TEST_CASE("the CATL reader refuses a catalog of the wrong shape", "[persistence][corruption]") {
    CHECK(refused(""));
    CHECK(refused("[]"));
    CHECK(refused("7"));
    CHECK(refused("{}"));
    CHECK(refused(R"({"servers":{}})"));
    CHECK(refused(R"({"servers":"x"})"));
    CHECK(refused(R"({"servers":[1]})"));
    CHECK(refused(R"({"servers":[[]]})"));
    CHECK(refused(R"({"servers":[]} x)"));
    CHECK(refused(R"({"servers":[{"name":"s"}]})"));  // no other field, no tools
    CHECK(refused(server_with("")));                  // no tool list
    CHECK(refused(server_with(R"(,"tools":{})")));
    CHECK(refused(server_with(R"(,"tools":[1])")));
    CHECK(refused(server_with(R"(,"tools":[{"name":"t"}])")));
    CHECK(refused(server_with(
        R"(,"tools":[{"name":"t","title":"","description":"","input_schema":{},"annotations":""}])")));
    CHECK(refused(server_with(R"(,"name":7,"tools":[])")));
    CHECK(refused(std::string(R"({"servers":[{"name":"s","description":"","category":"",)") +
                  R"("environment":"","status":"SLEEPING","tools":[]}]})"));
    // Nesting past the limit is refused even inside a member that is skipped.
    CHECK(
        refused(R"({"x":)" + std::string(300, '[') + std::string(300, ']') + R"(,"servers":[]})"));
    CHECK(scout::detail::read_catalog_json(R"({"x":)" + std::string(200, '[') +
                                           std::string(200, ']') + R"(,"servers":[]})")
              .ok());
    // Truncated anywhere: refused, never read past the text.
    const std::string good = server_with(std::string(R"(,"tools":[)") + kTool + "]");
    REQUIRE(scout::detail::read_catalog_json(good).ok());
    for (std::size_t n = 0; n < good.size(); ++n) {
        CHECK(refused(good.substr(0, n)));
    }
}

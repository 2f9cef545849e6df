// gateway_registry_test.cpp: scout-gateway --registry against a PostgreSQL server of the test's
// own: the gateway searches what the registry holds (servers no backend of its own serves), its
// backend's listing is pushed into the registry and searchable here at once, and a change pushed
// by another writer reaches its searches without a restart.
#include <chrono>
#include <thread>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scout/embedder.hpp"
#include "scout/registry/registry.hpp"

#include "support/fixture_skip.hpp"
#include "support/gateway_process.hpp"
#include "support/pg_server.hpp"
#include "support/test_catalogs.hpp"

namespace {

using scout::test::GatewayProcess;
using scout::test::Json;
using scout::test::PgServer;
using std::chrono::milliseconds;
namespace reg = scout::registry;

reg::ConnectOptions connect_to(const PgServer& server) {
    reg::ConnectOptions options;
    options.url = server.url();
    return options;
}

/// tool_search's answer for `query`, as text.
std::string search(GatewayProcess& gw, const std::string& query) {
    auto r = gw.request("tools/call",
                        Json{{"name", "tool_search"}, {"arguments", {{"query", query}}}},
                        milliseconds(10000));
    return r ? r->dump() : "(no answer)";
}

/// notifications/tools/list_changed the client has received so far.
std::size_t list_changed(GatewayProcess& gw) {
    std::size_t n = 0;
    for (const Json& line : gw.unaddressed()) {
        if (line.value("method", "") == "notifications/tools/list_changed") {
            ++n;
        }
    }
    return n;
}

}  // namespace

TEST_CASE("scout-gateway --registry searches the registry and pushes its backends' listings",
          "[registry][gateway]") {
    std::string why;
    auto server = PgServer::start(why);
    if (!server) {
        SCOUT_SKIP_WITHOUT_FIXTURE(why);
    }
    REQUIRE(reg::init(connect_to(*server)).ok());
    auto embedder = std::make_shared<scout::HashingEmbedder>(16);
    REQUIRE(reg::push(connect_to(*server), scout::testing::small_catalog(), embedder).ok());

    const Json config{{"mcpServers", {{"fake", {{"command", SCOUT_FAKE_BACKEND_PATH}}}}}};
    const std::string config_path = server->dir().write("servers.json", config.dump());
    GatewayProcess gw(SCOUT_GATEWAY_PATH,
                      {"--config",
                       config_path,
                       "--registry",
                       server->url(),
                       "--embedder",
                       "hashing:16",
                       "--startup-timeout-ms",
                       "10000"},
                      server->dir().file("gateway-stderr.txt"));
    REQUIRE(gw.initialize());

    // A server of the registry that no backend of this gateway serves.
    CHECK_THAT(search(gw, "open a pull request"), Catch::Contains("github_create_pull_request"));
    // The backend's own listing went through the registry and is searchable here.
    CHECK_THAT(search(gw, "echo the given text back"), Catch::Contains("fake_echo"));
    auto status = reg::status(connect_to(*server));
    REQUIRE(status.ok());
    CHECK(status->servers == scout::testing::small_catalog().servers.size() + 1);

    // Another writer changes the registry: the gateway's searches follow.
    const std::size_t told_before = list_changed(gw);
    scout::CatalogSpec pager;
    pager.servers.push_back({"pager",
                             "On-call paging.",
                             "operations",
                             "",
                             scout::ServerStatus::active,
                             {{"page_oncall", "", "Page the engineer on call.", "", ""}}});
    REQUIRE(reg::push(connect_to(*server), pager, embedder).ok());
    std::string found;
    for (int i = 0; i < 50 && found.find("pager_page_oncall") == std::string::npos; ++i) {
        std::this_thread::sleep_for(milliseconds(100));
        found = search(gw, "page the engineer on call");
    }
    CHECK_THAT(found, Catch::Contains("pager_page_oncall"));
    // The client heard that its tool list changed (the tool count in tool_search's description).
    CHECK(list_changed(gw) > told_before);

    gw.close_stdin();
    const auto exited = gw.wait_exit(milliseconds(10000));
    CHECK(exited.has_value());
}

// gateway_registry_test.cpp: scout-gateway --registry against a PostgreSQL server of the test's
// own: the gateway searches what the registry holds (servers no backend of its own serves), its
// backend's listing is pushed into the registry and searchable here at once, and a change pushed
// by another writer reaches its searches without a restart; its /metrics follows the replica's
// position and failures; a backend that dies is pushed DEGRADED (another replica still serves
// its tools, as degraded) and ACTIVE again once it is back; with --learn, what its executions
// teach reaches every replica of the fleet.
#include <httplib.h>
#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scout/embedder.hpp"
#include "scout/registry/registry.hpp"

#include "support/fixture_skip.hpp"
#include "support/gateway_process.hpp"
#include "support/pg_server.hpp"
#include "support/temp_dir.hpp"
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

/// The port the gateway listens on, from its log; 0 when it did not say within 10 s.
int listening_port(GatewayProcess& gw) {
    const auto deadline = std::chrono::steady_clock::now() + milliseconds(10000);
    while (std::chrono::steady_clock::now() < deadline) {
        const std::string err = gw.stderr_text();
        std::smatch found;
        if (std::regex_search(err, found, std::regex(R"(\(port (\d+),)"))) {
            return std::stoi(found[1].str());
        }
        std::this_thread::sleep_for(milliseconds(20));
    }
    return 0;
}

/// The value of the unlabelled series `name` in a Prometheus text body, if it is there.
std::optional<std::uint64_t> series(const std::string& body, const std::string& name) {
    std::smatch found;
    if (std::regex_search(body, found, std::regex("(^|\n)" + name + " (\\d+)\n"))) {
        return std::stoull(found[2].str());
    }
    return std::nullopt;
}

/// Polls /metrics (10 s at most) until `done` holds for its body; the last body either way.
template <typename Done>
std::string metrics_until(int port, Done done) {
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(5, 0);
    std::string body;
    const auto deadline = std::chrono::steady_clock::now() + milliseconds(10000);
    while (std::chrono::steady_clock::now() < deadline) {
        if (auto r = client.Get("/metrics"); r && r->status == 200) {
            body = r->body;
            if (done(body)) {
                break;
            }
        }
        std::this_thread::sleep_for(milliseconds(50));
    }
    return body;
}

/// The pid of the last backend process the gateway started, from its log; 0 when none yet.
pid_t last_backend_pid(GatewayProcess& gw) {
    const std::string err = gw.stderr_text();
    const std::regex started(R"(started \(pid (\d+)\))");
    pid_t pid = 0;
    for (auto it = std::sregex_iterator(err.begin(), err.end(), started);
         it != std::sregex_iterator();
         ++it) {
        pid = static_cast<pid_t>(std::stol((*it)[1]));
    }
    return pid;
}

/// Whether the gateway's log shows `text` within 10 s.
bool stderr_shows(GatewayProcess& gw, const std::string& text) {
    const auto deadline = std::chrono::steady_clock::now() + milliseconds(10000);
    while (gw.stderr_text().find(text) == std::string::npos) {
        if (std::chrono::steady_clock::now() >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(milliseconds(20));
    }
    return true;
}

/// Another replica of the fleet, in this process: no backend, the gateways' embedder.
std::unique_ptr<reg::Replica> fleet_replica(const PgServer& server) {
    reg::ReplicaOptions options;
    options.connect = connect_to(server);
    auto made = reg::Replica::create(options, std::make_shared<scout::HashingEmbedder>(16));
    REQUIRE(made.ok());
    return std::move(made.value());
}

/// Catches `replica` up until `done` holds (10 s at most); whether it did.
template <typename Done>
bool sync_until(reg::Replica& replica, Done done) {
    const auto deadline = std::chrono::steady_clock::now() + milliseconds(10000);
    while (std::chrono::steady_clock::now() < deadline) {
        if (replica.sync().ok() && done()) {
            return true;
        }
        std::this_thread::sleep_for(milliseconds(50));
    }
    return false;
}

/// Whether `replica` finds a tool of `server` for `query`.
bool finds(const reg::Replica& replica, const std::string& query, const std::string& server) {
    auto result = replica.searcher().search(query, {.top_k = 5});
    if (!result.ok()) {
        return false;
    }
    for (const scout::Hit& hit : result->hits) {
        if (hit.server == server) {
            return true;
        }
    }
    return false;
}

/// The servers of the "echo" hits of `query` on `replica`, in rank order, with or without the
/// outcome prior.
std::vector<std::string> echo_servers(const reg::Replica& replica,
                                      const std::string& query,
                                      bool prior) {
    std::vector<std::string> servers;
    auto result = replica.searcher().search(query, {.top_k = 8, .outcome_prior = prior});
    if (result.ok()) {
        for (const scout::Hit& hit : result->hits) {
            if (hit.tool == "echo") {
                servers.push_back(hit.server);
            }
        }
    }
    return servers;
}

/// The servers of the "echo" matches of tool_search's answer for `query`, in rank order.
std::vector<std::string> echo_servers(GatewayProcess& gw, const std::string& query) {
    std::vector<std::string> servers;
    auto r =
        gw.request("tools/call",
                   Json{{"name", "tool_search"}, {"arguments", {{"query", query}, {"top_k", 8}}}},
                   milliseconds(10000));
    if (r && r->contains("result")) {
        for (const Json& match :
             (*r)["result"]["structuredContent"].value("matches", Json::array())) {
            if (match.value("tool", "") == "echo") {
                servers.push_back(match.value("server", ""));
            }
        }
    }
    return servers;
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

TEST_CASE("scout-gateway --registry: /metrics shows the replica's position and its failures",
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
                       "--listen",
                       "127.0.0.1:0"},
                      server->dir().file("gateway-stderr.txt"));
    const int port = listening_port(gw);
    INFO("gateway stderr:\n" << gw.stderr_text());
    REQUIRE(port != 0);

    // Caught up: the small catalog and the listing of the gateway's own backend.
    const std::uint64_t listed = scout::testing::small_catalog().servers.size() + 1;
    std::string body = metrics_until(port, [&](const std::string& b) {
        return series(b, "scout_registry_applied_seq") == listed;
    });
    INFO("/metrics:\n" << body);
    CHECK(series(body, "scout_registry_applied_seq") == listed);
    CHECK(series(body, "scout_registry_head_seq") == listed);
    CHECK(series(body, "scout_registry_lag") == 0u);
    CHECK(series(body, "scout_registry_failures_total") == 0u);
    CHECK(series(body, "scout_registry_reconnects_total") == 0u);
    // Shared learning's series, all zero: nothing was executed.
    CHECK(series(body, "scout_registry_outcome_events_applied_total") == 0u);
    CHECK(series(body, "scout_registry_outcomes_dropped_total") == 0u);
    CHECK(series(body, "scout_registry_outcomes_queued") == 0u);
    CHECK(series(body, "scout_registry_gaps_total") == 0u);
    CHECK(series(body, "scout_registry_resyncs_total") == 0u);
    CHECK(body.find("# TYPE scout_registry_applied_seq gauge") != std::string::npos);
    CHECK(body.find("# TYPE scout_registry_failures_total counter") != std::string::npos);

    // A change from another writer moves both numbers.
    scout::CatalogSpec pager;
    pager.servers.push_back({"pager",
                             "On-call paging.",
                             "operations",
                             "",
                             scout::ServerStatus::active,
                             {{"page_oncall", "", "Page the engineer on call.", "", ""}}});
    auto pushed = reg::push(connect_to(*server), pager, embedder);
    REQUIRE(pushed.ok());
    REQUIRE(pushed->head_seq == listed + 1);
    body = metrics_until(port, [&](const std::string& b) {
        return series(b, "scout_registry_applied_seq") == pushed->head_seq;
    });
    CHECK(series(body, "scout_registry_applied_seq") == pushed->head_seq);
    CHECK(series(body, "scout_registry_head_seq") == pushed->head_seq);
    CHECK(series(body, "scout_registry_lag") == 0u);

    // PostgreSQL restarts: the replica's connections drop (a failure) and come back (a
    // reconnection), and it follows the next change.
    REQUIRE(server->restart());
    body = metrics_until(port, [&](const std::string& b) {
        return series(b, "scout_registry_reconnects_total").value_or(0) >= 1;
    });
    CHECK(series(body, "scout_registry_failures_total").value_or(0) >= 1);
    CHECK(series(body, "scout_registry_reconnects_total").value_or(0) >= 1);
    pager.servers[0].tools[0].description = "Page the engineer on call, now.";
    pushed = reg::push(connect_to(*server), pager, embedder);
    REQUIRE(pushed.ok());
    body = metrics_until(port, [&](const std::string& b) {
        return series(b, "scout_registry_applied_seq") == pushed->head_seq;
    });
    CHECK(series(body, "scout_registry_applied_seq") == pushed->head_seq);
    CHECK(series(body, "scout_registry_lag") == 0u);

    ::kill(gw.pid(), SIGTERM);
    const auto exited = gw.wait_exit(milliseconds(10000));
    REQUIRE(exited.has_value());
    CHECK(WIFEXITED(*exited));
    CHECK(WEXITSTATUS(*exited) == 0);
}

TEST_CASE("scout-gateway --registry: a backend that dies is DEGRADED for the fleet, then ACTIVE",
          "[registry][gateway]") {
    std::string why;
    auto server = PgServer::start(why);
    if (!server) {
        SCOUT_SKIP_WITHOUT_FIXTURE(why);
    }
    REQUIRE(reg::init(connect_to(*server)).ok());
    const Json config{{"mcpServers", {{"fake", {{"command", SCOUT_FAKE_BACKEND_PATH}}}}}};
    const std::string config_path = server->dir().write("servers.json", config.dump());
    // A restart delay long enough for the test to see the outage.
    GatewayProcess gw(SCOUT_GATEWAY_PATH,
                      {"--config",
                       config_path,
                       "--registry",
                       server->url(),
                       "--registry-degraded-ttl-s",
                       "3600",
                       "--embedder",
                       "hashing:16",
                       "--restart-backoff-ms",
                       "4000",
                       "--startup-timeout-ms",
                       "10000"},
                      server->dir().file("gateway-stderr.txt"));
    REQUIRE(gw.initialize());
    INFO("gateway stderr:\n" << gw.stderr_text());

    // A second replica of the fleet, with no backend of its own.
    const auto made = fleet_replica(*server);
    reg::Replica& other = *made;
    const std::string query = "echo the given text back";
    REQUIRE(sync_until(other, [&] { return finds(other, query, "fake"); }));
    CHECK(other.stats().degraded_served.empty());
    const std::uint64_t listed_seq = other.applied_seq();

    // The backend dies: the gateway pushes its last listing as DEGRADED, and the other replica
    // still serves its tools, reported as degraded.
    const pid_t backend = last_backend_pid(gw);
    REQUIRE(backend > 0);
    REQUIRE(::kill(backend, SIGKILL) == 0);
    const std::vector<std::string> just_fake{"fake"};
    CHECK(sync_until(other, [&] { return other.stats().degraded_served == just_fake; }));
    CHECK(other.applied_seq() > listed_seq);
    CHECK(finds(other, query, "fake"));
    // The gateway logs the push after it commits, so another replica may see it first.
    CHECK(stderr_shows(gw, "DEGRADED: pushed to the registry"));
    // The gateway's own replica serves them too.
    CHECK_THAT(search(gw, query), Catch::Contains("fake_echo"));

    // Restarted and listed again: ACTIVE for the fleet.
    CHECK(sync_until(other, [&] { return other.stats().degraded_served.empty(); }));
    CHECK(finds(other, query, "fake"));
    CHECK(last_backend_pid(gw) != backend);

    gw.close_stdin();
    const auto exited = gw.wait_exit(milliseconds(10000));
    CHECK(exited.has_value());
}

TEST_CASE("scout-gateway --registry --learn: executions through one gateway re-rank the fleet",
          "[registry][gateway]") {
    std::string why;
    auto server = PgServer::start(why);
    if (!server) {
        SCOUT_SKIP_WITHOUT_FIXTURE(why);
    }
    REQUIRE(reg::init(connect_to(*server)).ok());
    // Two backends offer the same echo tool, so a search ties them.
    const Json config{{"mcpServers",
                       {{"alpha", {{"command", SCOUT_FAKE_BACKEND_PATH}}},
                        {"beta", {{"command", SCOUT_FAKE_BACKEND_PATH}}}}}};
    const std::string config_path = server->dir().write("servers.json", config.dump());
    GatewayProcess gw(SCOUT_GATEWAY_PATH,
                      {"--config",
                       config_path,
                       "--registry",
                       server->url(),
                       "--learn",
                       "--embedder",
                       "hashing:16",
                       "--startup-timeout-ms",
                       "10000"},
                      server->dir().file("gateway-stderr.txt"));
    REQUIRE(gw.initialize());
    INFO("gateway stderr:\n" << gw.stderr_text());

    // Another replica of the fleet, in this process, with no backend and no executions.
    const auto made = fleet_replica(*server);
    reg::Replica& other = *made;
    const std::string query = "echo the given text back";
    REQUIRE(sync_until(other, [&] { return echo_servers(other, query, true).size() == 2; }));
    const std::vector<std::string> before = echo_servers(other, query, true);
    CHECK(other.stats().outcome_seq == 0);

    // The gateway's search offers both; the one it ranks second succeeds six times.
    const std::vector<std::string> offered = echo_servers(gw, query);
    REQUIRE(offered.size() == 2);
    CHECK(offered == before);
    const std::string second = offered[1];
    for (int i = 0; i < 6; ++i) {
        auto r = gw.request("tools/call",
                            Json{{"name", "execute_tool"},
                                 {"arguments",
                                  {{"server_name", second},
                                   {"tool_name", "echo"},
                                   {"arguments", {{"text", "hi"}}}}}},
                            milliseconds(10000));
        REQUIRE(r.has_value());
        CHECK_THAT(r->dump(), Catch::Contains("echo: hi"));
    }

    // The other replica learns them from the registry: its prior ranking puts `second` first,
    // its ranking without the prior is unchanged, and the gateway's own searches agree.
    const std::vector<std::string> learned{second, offered[0]};
    CHECK(sync_until(other, [&] { return echo_servers(other, query, true) == learned; }));
    CHECK(other.stats().outcome_seq == 6);
    CHECK(echo_servers(other, query, false) == before);
    std::vector<std::string> ranked;
    for (int i = 0; i < 50 && ranked != learned; ++i) {
        ranked = echo_servers(gw, query);
        if (ranked != learned) {
            std::this_thread::sleep_for(milliseconds(100));
        }
    }
    CHECK(ranked == learned);

    gw.close_stdin();
    CHECK(gw.wait_exit(milliseconds(10000)).has_value());
}

TEST_CASE("scout-gateway --registry-base-dir starts its replica from the newest base",
          "[registry][gateway]") {
    std::string why;
    auto server = PgServer::start(why);
    if (!server) {
        SCOUT_SKIP_WITHOUT_FIXTURE(why);
    }
    REQUIRE(reg::init(connect_to(*server)).ok());
    auto embedder = std::make_shared<scout::HashingEmbedder>(16);
    REQUIRE(reg::push(connect_to(*server), scout::testing::small_catalog(), embedder).ok());
    scout::test::TempDir bases;
    reg::BuilderOptions builder_options;
    builder_options.replica.connect = connect_to(*server);
    builder_options.directory = bases.file("");
    auto builder = reg::BaseBuilder::start(builder_options, embedder);
    REQUIRE(builder.ok());
    auto published = (*builder)->publish();
    REQUIRE(published.ok());

    const Json config{{"mcpServers", {{"fake", {{"command", SCOUT_FAKE_BACKEND_PATH}}}}}};
    const std::string config_path = server->dir().write("servers.json", config.dump());
    GatewayProcess gw(SCOUT_GATEWAY_PATH,
                      {"--config",
                       config_path,
                       "--registry",
                       server->url(),
                       "--registry-base-dir",
                       bases.file(""),
                       "--embedder",
                       "hashing:16",
                       "--listen",
                       "127.0.0.1:0"},
                      server->dir().file("gateway-stderr.txt"));
    const int port = listening_port(gw);
    INFO("gateway stderr:\n" << gw.stderr_text());
    REQUIRE(port != 0);
    // The base, then the log after it: the backend's own listing.
    const std::uint64_t head = published->seq + 1;
    std::string body = metrics_until(port, [&](const std::string& b) {
        return series(b, "scout_registry_applied_seq") == head;
    });
    INFO("/metrics:\n" << body);
    CHECK(series(body, "scout_registry_base_generation") == published->generation);
    CHECK(series(body, "scout_registry_applied_seq") == head);
    ::kill(gw.pid(), SIGTERM);
    CHECK(gw.wait_exit(milliseconds(10000)).has_value());
}

TEST_CASE("scout-gateway --registry-degraded-ttl-s and --registry-base-dir are checked",
          "[registry][gateway]") {
    const auto refused = [](const std::vector<std::string>& args) {
        scout::test::TempDir dir;
        const std::string config = dir.write("servers.json", R"({"mcpServers": {}})");
        std::vector<std::string> all{"--config", config};
        all.insert(all.end(), args.begin(), args.end());
        GatewayProcess gw(SCOUT_GATEWAY_PATH, all, dir.file("stderr.txt"));
        const auto exited = gw.wait_exit(milliseconds(10000));
        REQUIRE(exited.has_value());
        INFO(gw.stderr_text());
        CHECK(WIFEXITED(*exited));
        CHECK(WEXITSTATUS(*exited) == 2);
        return gw.stderr_text();
    };
    CHECK_THAT(refused({"--registry-degraded-ttl-s", "60"}),
               Catch::Contains("--registry-degraded-ttl-s needs --registry"));
    CHECK_THAT(refused({"--registry-base-dir", "bases"}),
               Catch::Contains("--registry-base-dir needs --registry"));
    CHECK_THAT(
        refused({"--registry", "postgresql://127.0.0.1:1/x", "--registry-degraded-ttl-s", "0"}),
        Catch::Contains("registry-degraded-ttl-s"));
    CHECK_THAT(
        refused(
            {"--registry", "postgresql://127.0.0.1:1/x", "--registry-degraded-ttl-s", "2592001"}),
        Catch::Contains("registry-degraded-ttl-s"));
}

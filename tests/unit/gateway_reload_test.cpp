// gateway_reload_test.cpp: what SIGHUP does with the config file: the whole file checked before
// any of it is used, the backend set replaced entry by entry (unchanged entries kept), and the
// log line that says what changed. Backends here are never started: no process runs.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"
#include "scout/mcp/meta_tools.hpp"

#include "config_reload.hpp"
#include "gateway.hpp"

namespace {

using scout::gateway::BackendSpec;
using scout::gateway::BackendTimings;
using scout::gateway::Gateway;
using scout::gateway::PinnedTools;
using scout::gateway::ReloadReport;

BackendSpec spec(const std::string& name, const std::string& command = "unused") {
    BackendSpec s;
    s.name = name;
    s.command = command;
    return s;
}

/// A config file in the temp folder, removed at the end of the test.
struct ConfigFile {
    std::filesystem::path path;
    explicit ConfigFile(const std::string& text)
        : path(std::filesystem::temp_directory_path() /
               ("scout_reload_test_" + std::to_string(::getpid()) + ".json")) {
        std::ofstream(path) << text;
    }
    ~ConfigFile() { std::filesystem::remove(path); }
    ConfigFile(const ConfigFile&) = delete;
    ConfigFile& operator=(const ConfigFile&) = delete;
};

}  // namespace

TEST_CASE("a reloaded config is checked whole, embedder section included", "[gateway][reload]") {
    using scout::gateway::load_reloadable_config;
    SECTION("a good file gives its servers, pinned tools and embedder section") {
        ConfigFile f(R"({"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}},
                        "pinned": ["a/t"], "embedder": {"type": "none"}})");
        auto config = load_reloadable_config(f.path.string(), {});
        REQUIRE(config.ok());
        CHECK(config->backends.size() == 2);
        CHECK(config->pinned.tools.size() == 1);
        CHECK(config->embedder_json == R"({"type":"none"})");
    }
    SECTION("a bad embedder section refuses the whole file, naming it") {
        ConfigFile f(
            R"({"mcpServers": {"a": {"command": "x"}}, "embedder": {"type": "hashing:0"}})");
        auto config = load_reloadable_config(f.path.string(), {});
        REQUIRE_FALSE(config.ok());
        CHECK(config.status().message().find(f.path.string()) == 0);
        CHECK(config.status().message().find("hashing:DIM") != std::string::npos);
    }
    SECTION("the command line's embedder options apply over the file's, as at start") {
        ConfigFile f(R"({"mcpServers": {}, "embedder": {"type": "hashing:0"}})");
        CHECK(load_reloadable_config(f.path.string(), {{"--embedder", "none"}}).ok());
    }
    SECTION("an unknown key is named with its path") {
        ConfigFile f(R"({"mcpServers": {"a": {"comand": "x"}}})");
        auto config = load_reloadable_config(f.path.string(), {});
        REQUIRE_FALSE(config.ok());
        CHECK(config.status().message().find("mcpServers.a.comand: unknown key") !=
              std::string::npos);
    }
}

TEST_CASE("a reload keeps equal entries and replaces the others", "[gateway][reload]") {
    auto catalog = scout::Catalog::create({}, nullptr);
    REQUIRE(catalog.ok());
    std::vector<BackendSpec> first{spec("kept"), spec("changed"), spec("removed")};
    Gateway gw(catalog.value(),
               std::move(first),
               scout::mcp::Connector{},
               BackendTimings{},
               [](const std::string&, Gateway::Wait) {});  // never started: nothing to write

    PinnedTools pinned;
    pinned.servers.push_back("kept");
    ReloadReport r = gw.reload({spec("kept"), spec("changed", "another"), spec("added")}, pinned);
    CHECK(r.kept == 1);
    CHECK(r.added == std::vector<std::string>{"added"});
    CHECK(r.removed == std::vector<std::string>{"removed"});
    CHECK(r.restarted == std::vector<std::string>{"changed"});
    CHECK(r.pinned_changed);
    CHECK(scout::gateway::describe_reload(r) ==
          "config reloaded, 3 servers: added added; removed removed; restarted changed; pinned "
          "tools changed");

    // The same file again changes nothing.
    r = gw.reload({spec("kept"), spec("changed", "another"), spec("added")}, pinned);
    CHECK(r.kept == 3);
    CHECK(r.added.empty());
    CHECK(r.removed.empty());
    CHECK(r.restarted.empty());
    CHECK_FALSE(r.pinned_changed);
    CHECK(scout::gateway::describe_reload(r) == "config reloaded, 3 servers: no change");

    // /readyz counts the servers of the set now served.
    const auto ready = gw.readiness();
    int servers = 0;
    for (const auto& [state, n] : ready.body.at("backends").items()) {
        servers += n.get<int>();
    }
    CHECK(servers == 3);
}

TEST_CASE("an embedder section that changed is reported, not applied", "[gateway][reload]") {
    using scout::gateway::embedder_change;
    CHECK(embedder_change(R"({"type":"none"})", R"({"type":"none"})").empty());
    CHECK(embedder_change("", "").empty());
    CHECK(embedder_change("", R"({"type":"none"})").find("needs a restart") != std::string::npos);
}

// gateway_embedder_test.cpp: scout-gateway takes the scout CLI's embedder options, on the
// command line and in its config file's "embedder": an http embedding service (a loopback
// server here) embeds the catalog and each tool_search query; option errors are exit code 2
// with a message naming the option; the command line wins over the config.
#include <sys/wait.h>

#include <algorithm>
#include <mutex>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "built_components.hpp"
#include "embedder_options.hpp"
#include "support/gateway_process.hpp"
#include "support/http_embedder_fixtures.hpp"
#include "support/temp_dir.hpp"

using scout::test::GatewayProcess;
using scout::test::Json;
using scout::test::LoopbackServer;
using scout::test::Request;
using scout::test::TempDir;
using std::chrono::milliseconds;

namespace {

Json config_with(const Json& embedder) {
    Json config{{"mcpServers", {{"fake", {{"command", SCOUT_FAKE_BACKEND_PATH}}}}}};
    if (!embedder.is_null()) {
        config["embedder"] = embedder;
    }
    return config;
}

std::unique_ptr<GatewayProcess> start(const TempDir& dir,
                                      const Json& config,
                                      std::vector<std::string> flags) {
    std::vector<std::string> args{
        "--config", dir.write("servers.json", config.dump()), "--startup-timeout-ms", "5000"};
    args.insert(args.end(), flags.begin(), flags.end());
    return std::make_unique<GatewayProcess>(SCOUT_GATEWAY_PATH, args, dir.file("stderr.txt"));
}

/// tool_search's answer text for `query`, once the backend's tools are in.
std::string search(GatewayProcess& gw, const std::string& query) {
    auto r = gw.request("tools/call",
                        Json{{"name", "tool_search"}, {"arguments", {{"query", query}}}},
                        milliseconds(10000));
    if (!r || !r->contains("result")) {
        return r ? r->dump() : "(no answer)";
    }
    return (*r)["result"].dump();
}

int exit_code(GatewayProcess& gw) {
    gw.close_stdin();
    auto status = gw.wait_exit(milliseconds(10000));
    return status && WIFEXITED(*status) ? WEXITSTATUS(*status) : -1;
}

}  // namespace

/// An embedding service that remembers every text it was asked to embed.
struct RecordingService {
    std::mutex mu;
    std::vector<std::string> texts;
    LoopbackServer server{[this](const Request& r) {
        const Json request = Json::parse(r.body);  // outlives the loop over its "input"
        std::lock_guard lock(mu);
        for (const auto& t : request.at("input")) {
            texts.push_back(t.get<std::string>());
        }
        return scout::test::vectors_for(r);
    }};

    bool embedded(const std::string& text) {
        std::lock_guard lock(mu);
        return std::find(texts.begin(), texts.end(), text) != texts.end();
    }
};

#if SCOUT_WITH_HTTP
TEST_CASE("scout-gateway --embedder http embeds the catalog and the queries", "[gateway][http]") {
    RecordingService recording;
    LoopbackServer& service = recording.server;
    SECTION("from the command line") {
        TempDir dir;
        auto gw = start(dir,
                        config_with(nullptr),
                        {"--embedder",
                         "http",
                         "--embedder-url",
                         service.url(),
                         "--embedder-model",
                         "m",
                         "--embedder-header",
                         "X-Team: search"});
        REQUIRE(gw->initialize());
        const std::string found = search(*gw, "echo the text back");
        INFO(found << "\nstderr:\n" << gw->stderr_text());
        CHECK(found.find("echo") != std::string::npos);
        CHECK(recording.embedded("echo the text back"));  // the query went to the service
        CHECK(exit_code(*gw) == 0);
    }
    SECTION("from the config file") {
        TempDir dir;
        ::setenv("SCOUT_TEST_EMBEDDER_KEY", "from-config-env", 1);
        auto gw = start(dir,
                        config_with(Json{{"type", "http"},
                                         {"url", service.url()},
                                         {"model", "m"},
                                         {"dimensions", scout::test::kDim},
                                         {"api_key_env", "SCOUT_TEST_EMBEDDER_KEY"}}),
                        {});
        ::unsetenv("SCOUT_TEST_EMBEDDER_KEY");
        REQUIRE(gw->initialize());
        const std::string found = search(*gw, "echo what I say");
        INFO(found << "\nstderr:\n" << gw->stderr_text());
        CHECK(found.find("echo") != std::string::npos);
        CHECK(recording.embedded("echo what I say"));
        CHECK(exit_code(*gw) == 0);
    }
    CHECK(service.requests() >= 2);  // the catalog's tools and the query at least
}
#endif

TEST_CASE("the command line's embedder wins over the config's", "[gateway][http]") {
    LoopbackServer service([](const Request& r) { return scout::test::vectors_for(r); });
    TempDir dir;
    auto gw = start(dir,
                    config_with(Json{{"type", "http"}, {"url", service.url()}, {"model", "m"}}),
                    {"--embedder", "none"});
    REQUIRE(gw->initialize());
    CHECK(search(*gw, "echo").find("echo") != std::string::npos);
    CHECK(exit_code(*gw) == 0);
    CHECK(service.requests() == 0);
}

TEST_CASE("scout-gateway embedder option errors are exit code 2 naming the option",
          "[gateway][http]") {
    // A build without scout::http refuses every http setting with the reason instead.
    const std::string no_url = SCOUT_WITH_HTTP ? "--embedder-url" : "SCOUT_WITH_HTTP=OFF";
    const std::string not_https = SCOUT_WITH_HTTP ? "https://" : "SCOUT_WITH_HTTP=OFF";
    const std::string cleartext = SCOUT_WITH_HTTP ? "cleartext" : "SCOUT_WITH_HTTP=OFF";
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"--embedder", "http"}, no_url},
        {{"--embedder", "http", "--embedder-url", "ftp://x", "--embedder-model", "m"}, not_https},
        {{"--embedder", "bogus"}, "http"},
        {{"--embedder-dimensions", "0"}, "--embedder-dimensions"},
        {{"--embedder", "none", "--embedder-api-version", "2024-02-01"}, "http only"},
        {{"--embedder",
          "http",
          "--embedder-url",
          "http://embeddings.example.com/v1",
          "--embedder-model",
          "m",
          "--embedder-header",
          "Authorization: Bearer k"},
         cleartext},
        {{"--embedder", "transformer:/nonexistent/model"},
         SCOUT_WITH_TRANSFORMER ? "not a" : "SCOUT_WITH_TRANSFORMER=OFF"}};
    for (const auto& [flags, message] : cases) {
        TempDir dir;
        auto gw = start(dir, config_with(nullptr), flags);
        INFO(flags.back() << "\nstderr:\n" << gw->stderr_text());
        CHECK(exit_code(*gw) == 2);
        CHECK(gw->stderr_text().find(message) != std::string::npos);
    }
    TempDir dir;
    auto gw = start(dir, config_with(Json{{"type", "http"}, {"api_key", "inline"}}), {});
    CHECK(exit_code(*gw) == 2);
    CHECK(gw->stderr_text().find("embedder.api_key") != std::string::npos);
}

TEST_CASE("the config's embedder is a spec string or a checked object", "[gateway][http]") {
    using scout::gateway::EmbedderSettings;
    using scout::gateway::parse_embedder_config;
    EmbedderSettings s;
    REQUIRE(parse_embedder_config(R"({"mcpServers":{}})", s).ok());
    CHECK(s.spec == "static");
    REQUIRE(parse_embedder_config(R"({"embedder":"none"})", s).ok());
    CHECK(s.spec == "none");
    REQUIRE(
        parse_embedder_config(
            R"({"embedder":{"type":"http","url":"https://r.openai.azure.com/openai/deployments/d",
                    "api_version":"2024-02-01","headers":{"X-A":"1"},"ca_file":"ca.pem",
                    "dimensions":256,"allow_cleartext_key":true}})",
            s)
            .ok());
    CHECK(s.spec == "http");
    CHECK(s.http.base_url == "https://r.openai.azure.com/openai/deployments/d");
    CHECK(s.http.api_version == "2024-02-01");
    CHECK(s.http.headers == std::vector<std::string>{"X-A: 1"});
    CHECK(s.http.ca_file == "ca.pem");
    CHECK(s.http.dimensions == 256);
    CHECK(s.http.allow_cleartext_key);
    for (const char* bad : {R"({"embedder":3})",
                            R"({"embedder":{"url":5}})",
                            R"({"embedder":{"dimensions":0}})",
                            R"({"embedder":{"dimensions":-1}})",
                            R"({"embedder":{"headers":["a"]}})",
                            R"({"embedder":{"headers":{"a":1}}})",
                            R"({"embedder":{"allow_cleartext_key":"yes"}})",
                            R"({"embedder":{"api_key_env":"SCOUT_TEST_SURELY_UNSET"}})",
                            R"([1])",
                            "{"}) {
        EmbedderSettings t;
        const auto status = parse_embedder_config(bad, t);
        INFO(bad);
        CHECK(status.code() == scout::Errc::invalid_argument);
    }
}

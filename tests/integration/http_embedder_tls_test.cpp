// http_embedder_tls_test.cpp: the HTTP embedder over https against a local TLS server with a
// self-signed certificate (trusted when given as the CA, untrusted otherwise, and then search
// answers with BM25 and says why); connection reuse; proxies from the environment; Azure
// OpenAI's URL and key header; extra headers; the cleartext-key guard (also through the C ABI);
// and servers that hang, flood or close mid-response.
#include <atomic>
#include <mutex>
#include <thread>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scout/catalog.hpp"
#include "scout/embedder.hpp"
#include "scout/http/http_embedder.hpp"
#include "scout/scout.h"

#include "support/http_embedder_fixtures.hpp"
#include "support/tls_identity.hpp"

using scout::Errc;
using scout::HttpEmbedder;
using scout::HttpEmbedderOptions;
using scout::test::fast_options;
using scout::test::kDim;
using scout::test::LoopbackServer;
using scout::test::make;
using scout::test::make_reply;
using scout::test::numbered;
using scout::test::Reply;
using scout::test::Request;
using scout::test::TempDir;
using scout::test::vectors_for;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

/// Sets an environment variable for one scope.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const std::string& value) : name_(name) {
        ::setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() { ::unsetenv(name_); }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
};

scout::ServerSpec weather_server() {
    return {"weather",
            "Weather service",
            "",
            "",
            scout::ServerStatus::active,
            {{"get_forecast", "", "Get the weather forecast for a city", "", ""},
             {"get_alerts", "", "List severe weather alerts", "", ""}}};
}

}  // namespace

TEST_CASE("https embedding works with the server's CA given, by option or SCOUT_CA_BUNDLE",
          "[http][tls]") {
    TempDir dir;
    const auto id = scout::test::make_self_signed(dir);
    REQUIRE_FALSE(id.cert_file.empty());
    std::mutex mu;
    std::vector<Request> seen;
    LoopbackServer server(
        [&](const Request& r) {
            std::lock_guard lock(mu);
            seen.push_back(r);
            return vectors_for(r);
        },
        &id);
    REQUIRE(server.ready());
    REQUIRE(server.url().rfind("https://127.0.0.1:", 0) == 0);

    auto o = fast_options(server.url());
    o.api_key = "sekret";
    o.ca_file = id.cert_file;
    auto e = make(o);
    const auto texts = numbered(20);
    auto out = e->embed(texts);
    INFO((out.ok() ? std::string() : out.status().to_string()));
    REQUIRE(out.ok());
    CHECK(out.value() == scout::HashingEmbedder(kDim).embed(texts).value());
    {
        std::lock_guard lock(mu);
        REQUIRE(seen.size() == 2);
        CHECK(seen[0].head.rfind("POST /v1/embeddings HTTP/1.1", 0) == 0);
        CHECK(contains(seen[0].head, "Authorization: Bearer sekret"));
    }

    o.ca_file.clear();
    const ScopedEnv bundle("SCOUT_CA_BUNDLE", id.cert_file);
    auto from_env = make(o);
    CHECK(from_env->embed(numbered(1)).ok());

    o.ca_file = dir.file("missing.pem");  // a CA file that is not there is a configuration error
    auto missing = HttpEmbedder::create(o);
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.status().code() == Errc::invalid_argument);
    CHECK(contains(missing.status().message(), "missing.pem"));
}

TEST_CASE("an untrusted certificate is an error that says so, and search falls back to BM25",
          "[http][tls]") {
    TempDir dir;
    const auto id = scout::test::make_self_signed(dir);
    REQUIRE_FALSE(id.cert_file.empty());
    LoopbackServer server([](const Request& r) { return vectors_for(r); }, &id);
    REQUIRE(server.ready());

    // Another self-signed certificate as the CA: trusted authorities exist, just not this one.
    TempDir other;
    const auto stranger = scout::test::make_self_signed(other);
    auto o = fast_options(server.url());
    o.ca_file = stranger.cert_file;
    auto e = make(o);
    auto out = e->embed(numbered(1));
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().code() == Errc::unavailable);
    CHECK(contains(out.status().message(), "untrusted"));
    CHECK(e->requests_sent() == 1);  // not retried: another attempt would fail the same way
    CHECK(server.requests() == 0);   // nothing was sent to the untrusted server

    o.dimensions = 0;  // the probe fails: create() says why
    auto probe = HttpEmbedder::create(o);
    REQUIRE_FALSE(probe.ok());
    CHECK(probe.status().code() == Errc::unavailable);
    CHECK(contains(probe.status().message(), "untrusted"));

    auto created = scout::Catalog::create({}, e);
    REQUIRE(created.ok());
    scout::Catalog catalog = std::move(created.value());
    REQUIRE(catalog.upsert_server(weather_server()).ok());
    auto info = catalog.commit();
    REQUIRE(info.ok());
    CHECK_FALSE(info->dense_ready);
    CHECK(contains(info->dense_error, "untrusted"));
    auto result = catalog.searcher().search("weather forecast", scout::SearchOptions{});
    REQUIRE(result.ok());
    CHECK(result->degraded);
    CHECK(result->mode == scout::Mode::bm25);
    CHECK(contains(result->degraded_reason, "untrusted"));
    REQUIRE_FALSE(result->hits.empty());
    CHECK(result->hits[0].tool == "get_forecast");
}

TEST_CASE("connections are kept alive across requests and embed calls, also under concurrency",
          "[http][concurrency]") {
    TempDir dir;
    const auto id = scout::test::make_self_signed(dir);
    REQUIRE_FALSE(id.cert_file.empty());
    LoopbackServer server([](const Request& r) { return vectors_for(r); }, &id);
    auto o = fast_options(server.url());
    o.ca_file = id.cert_file;
    o.batch_size = 4;
    auto e = make(o);
    REQUIRE(e->embed(numbered(12)).ok());  // 3 requests
    REQUIRE(e->embed(numbered(8)).ok());   // 2 more
    CHECK(server.requests() == 5);
    CHECK(server.connections() == 1);
    CHECK(e->connections_opened() == 1);

    constexpr int kThreads = 4;
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int round = 0; round < 5; ++round) {
                const auto texts = numbered(static_cast<std::size_t>(3 + t));
                auto out = e->embed(texts);
                if (!out || out.value() != scout::HashingEmbedder(kDim).embed(texts).value()) {
                    ++failures;
                }
            }
        });
    }
    for (std::thread& t : threads) {
        t.join();
    }
    CHECK(failures == 0);
    // One connection per concurrent request at most, each reused by the later ones.
    CHECK(e->connections_opened() <= kThreads + 1);
    CHECK(server.connections() == static_cast<int>(e->connections_opened()));
    CHECK(server.requests() > 5 + 20);
}

TEST_CASE("proxies come from the environment: http_proxy, HTTPS_PROXY and NO_PROXY", "[http]") {
    std::mutex mu;
    std::vector<std::string> heads;
    LoopbackServer proxy([&](const Request& r) {
        {
            std::lock_guard lock(mu);
            heads.push_back(r.head);
        }
        if (r.head.rfind("CONNECT ", 0) == 0) {
            return make_reply(403, "");  // no tunnels through this proxy
        }
        return vectors_for(r);
    });
    const std::string proxy_url = "http://127.0.0.1:" + std::to_string(proxy.port());

    // The host is not resolvable: only a request through the proxy can succeed.
    auto o = fast_options("http://embeddings.invalid/v1");
    o.max_retries = 0;
    {
        const ScopedEnv http_proxy("http_proxy", proxy_url);
        auto out = make(o)->embed(numbered(2));
        INFO((out.ok() ? std::string() : out.status().to_string()));
        CHECK(out.ok());
        std::lock_guard lock(mu);
        REQUIRE(heads.size() == 1);
        CHECK(heads[0].rfind("POST http://embeddings.invalid/v1/embeddings HTTP/1.1", 0) == 0);
    }
    {
        const ScopedEnv http_proxy("http_proxy", proxy_url);
        const ScopedEnv no_proxy("NO_PROXY", "example.org,.invalid");
        auto out = make(o)->embed(numbered(2));
        REQUIRE_FALSE(out.ok());  // went direct, and the name does not resolve
        std::lock_guard lock(mu);
        CHECK(heads.size() == 1);
    }
    {
        const ScopedEnv https_proxy("HTTPS_PROXY", proxy_url);
        auto out = make(fast_options("https://embeddings.invalid/v1"))->embed(numbered(1));
        REQUIRE_FALSE(out.ok());
        std::lock_guard lock(mu);
        REQUIRE(heads.size() >= 2);
        CHECK(heads[1].rfind("CONNECT embeddings.invalid:443 HTTP/1.1", 0) == 0);
    }
}

TEST_CASE("Azure OpenAI: deployment path, api-version and the api-key header", "[http]") {
    std::mutex mu;
    std::vector<Request> seen;
    LoopbackServer server([&](const Request& r) {
        std::lock_guard lock(mu);
        seen.push_back(r);
        return vectors_for(r);
    });
    auto o = fast_options("http://127.0.0.1:" + std::to_string(server.port()) +
                          "/openai/deployments/small-embed/");
    o.model.clear();  // the deployment names the model
    o.api_version = "2024-02-01";
    o.api_key = "azure-key";
    o.headers = {"X-Team: search tools"};
    auto e = make(o);
    CHECK(e->model_id() == "http:small-embed:16");
    REQUIRE(e->embed(numbered(1)).ok());
    {
        std::lock_guard lock(mu);
        REQUIRE(seen.size() == 1);
        CHECK(seen[0].head.rfind(
                  "POST /openai/deployments/small-embed/embeddings?api-version=2024-02-01 ", 0) ==
              0);
        CHECK(contains(seen[0].head, "api-key: azure-key"));
        CHECK_FALSE(contains(seen[0].head, "Authorization"));
        CHECK(contains(seen[0].head, "X-Team: search tools"));
    }

    ::setenv("AZURE_OPENAI_API_KEY", "from-azure-env", 1);
    o.api_key.clear();
    auto from_env = make(o);
    ::unsetenv("AZURE_OPENAI_API_KEY");
    REQUIRE(from_env->embed(numbered(1)).ok());
    {
        std::lock_guard lock(mu);
        CHECK(contains(seen.back().head, "api-key: from-azure-env"));
    }

    for (const char* bad : {"X-Bad\r\nInjected: 1", "no colon", ": empty name", "Sp ace: x"}) {
        auto b = o;
        b.headers = {bad};
        auto r = HttpEmbedder::create(b);
        REQUIRE_FALSE(r.ok());
        CHECK(r.status().code() == Errc::invalid_argument);
    }
}

TEST_CASE("a key is not sent in cleartext to a host that is not loopback, unless allowed",
          "[http]") {
    auto o = fast_options("http://embeddings.example.com/v1");
    o.api_key = "sekret";
    CHECK(HttpEmbedder::sends_key_in_cleartext(o));
    auto refused = HttpEmbedder::create(o);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.status().code() == Errc::invalid_argument);
    CHECK(contains(refused.status().message(), "cleartext"));

    o.allow_cleartext_key = true;  // dimensions are given: create() sends nothing
    CHECK(HttpEmbedder::create(o).ok());

    auto header_key = fast_options("http://embeddings.example.com/v1");
    header_key.headers = {"X-Api-Key: sekret"};
    CHECK(HttpEmbedder::sends_key_in_cleartext(header_key));
    CHECK(HttpEmbedder::create(header_key).status().code() == Errc::invalid_argument);

    auto tls = fast_options("https://embeddings.example.com/v1");
    tls.api_key = "sekret";
    CHECK_FALSE(HttpEmbedder::sends_key_in_cleartext(tls));
    auto loopback = fast_options("http://127.0.0.1:1/v1");
    loopback.api_key = "sekret";
    CHECK_FALSE(HttpEmbedder::sends_key_in_cleartext(loopback));
    auto no_key = fast_options("http://embeddings.example.com/v1");
    no_key.headers = {"X-Team: search"};
    CHECK_FALSE(HttpEmbedder::sends_key_in_cleartext(no_key));
}

TEST_CASE("servers that hang, flood or close mid-response get a bounded, clear error",
          "[http][tls]") {
    TempDir dir;
    const auto id = scout::test::make_self_signed(dir);
    REQUIRE_FALSE(id.cert_file.empty());
    SECTION("hang") {
        LoopbackServer server(
            [](const Request& r) {
                Reply reply = vectors_for(r);
                reply.delay_ms = 60000;  // the server's destructor ends it
                return reply;
            },
            &id);
        auto o = fast_options(server.url());
        o.ca_file = id.cert_file;
        o.request_timeout = milliseconds(200);
        o.max_retries = 1;
        const auto started = Clock::now();
        auto out = make(o)->embed(numbered(1));
        REQUIRE_FALSE(out.ok());
        CHECK(contains(out.status().message(), "timed out"));
        CHECK(server.requests() == 2);
        CHECK(Clock::now() - started < milliseconds(3000));
    }
    SECTION("flood") {
        LoopbackServer server(
            [](const Request&) {
                Reply reply;
                reply.flood = true;
                return reply;
            },
            &id);
        auto o = fast_options(server.url());
        o.ca_file = id.cert_file;
        o.max_response_bytes = 1 << 20;
        o.max_retries = 1;
        auto out = make(o)->embed(numbered(1));
        REQUIRE_FALSE(out.ok());
        CHECK(contains(out.status().message(), "larger than 1048576 bytes"));
        CHECK(server.requests() == 2);
    }
    SECTION("close mid-response") {
        std::atomic<int> calls{0};
        LoopbackServer server(
            [&](const Request& r) {
                Reply reply = vectors_for(r);
                reply.close_mid_body = calls++ < 2;
                return reply;
            },
            &id);
        auto o = fast_options(server.url());
        o.ca_file = id.cert_file;
        o.max_retries = 1;
        auto out = make(o)->embed(numbered(1));
        REQUIRE_FALSE(out.ok());
        CHECK(contains(out.status().message(), "closed before a complete HTTP response"));
        CHECK(server.requests() == 2);
        // A third attempt gets the whole reply: the embedder recovers on a new connection.
        CHECK(make(o)->embed(numbered(1)).ok());
    }
}

TEST_CASE("the C ABI's http embedder takes the same settings", "[http]") {
    scout::register_http_embedder();
    const auto create = [](const std::string& embedder) {
        scout_catalog* catalog = nullptr;
        const scout_status status =
            scout_catalog_create(("{\"embedder\": " + embedder + "}").c_str(), &catalog);
        scout_catalog_free(catalog);
        return status;
    };
    const std::string base = R"({"kind": "http", "model": "m", "dimensions": 4, )";
    CHECK(create(base + R"("url": "https://e.example.com/v1", "api_key": "k",
                            "headers": {"X-Team": "search"}})") == SCOUT_OK);
    CHECK(create(base + R"("url": "http://e.example.com/v1", "api_key": "k"})") ==
          SCOUT_INVALID_ARGUMENT);
    CHECK(contains(scout_last_error(), "cleartext"));
    CHECK(create(base + R"("url": "http://e.example.com/v1", "api_key": "k",
                            "allow_cleartext_key": true})") == SCOUT_OK);
    CHECK(create(base + R"("url": "https://e.example.com/v1", "ca_file": "/nonexistent.pem"})") ==
          SCOUT_INVALID_ARGUMENT);
    CHECK(create(base + R"("url": "https://e.example.com/v1", "headers": ["X: y"]})") ==
          SCOUT_INVALID_ARGUMENT);
    CHECK(create(R"({"kind": "http", "dimensions": 4, "api_version": "2024-02-01",
                     "url": "https://r.openai.azure.com/openai/deployments/d"})") == SCOUT_OK);
    CHECK(create(R"({"kind": "http", "dimensions": 4, "url": "https://e.example.com/v1"})") ==
          SCOUT_INVALID_ARGUMENT);  // no model and no deployment
}

// http_embedder_test.cpp: the HTTP embedder against a loopback server that returns
// deterministic vectors and injects 429 (with Retry-After), 500, slow replies, malformed JSON,
// wrong dimensions and hang-ups; and search degrading to BM25 when the service fails. The https,
// proxy, Azure and misbehaving-server cases are in http_embedder_tls_test.cpp.
#include "scout/http/http_embedder.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scout/catalog.hpp"
#include "scout/embedder.hpp"

#include "support/http_embedder_fixtures.hpp"

using scout::Errc;
using scout::HttpEmbedder;
using scout::HttpEmbedderOptions;
using scout::test::LoopbackServer;
using scout::test::make_reply;
using scout::test::Reply;
using scout::test::Request;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

using scout::test::fast_options;
using scout::test::kDim;
using scout::test::make;
using scout::test::numbered;
using scout::test::vectors_for;

TEST_CASE("http embedder batches, sends the OpenAI request and keeps the input order", "[http]") {
    std::mutex mu;
    std::vector<Request> seen;
    LoopbackServer server([&](const Request& r) {
        std::lock_guard lock(mu);
        seen.push_back(r);
        return vectors_for(r);
    });
    auto o = fast_options(server.url());
    o.api_key = "sekret";
    auto e = make(o);
    CHECK(e->dim() == kDim);
    CHECK(e->model_id() == "http:test-model:16");
    const auto texts = numbered(40);
    auto out = e->embed(texts);
    REQUIRE(out.ok());
    CHECK(server.requests() == 3);  // 16 + 16 + 8
    scout::HashingEmbedder hashing(kDim);
    CHECK(out.value() == hashing.embed(texts).value());
    std::lock_guard lock(mu);
    REQUIRE(seen.size() == 3);
    CHECK(seen[0].head.rfind("POST /v1/embeddings HTTP/1.1", 0) == 0);
    CHECK(seen[0].head.find("Authorization: Bearer sekret") != std::string::npos);
    const auto body = nlohmann::json::parse(seen[0].body);
    CHECK(body["model"] == "test-model");
    CHECK(body["dimensions"] == kDim);
    CHECK(body["input"].size() == 16);
}

TEST_CASE("http embedder learns the dimension from a probe and reads chunked replies", "[http]") {
    LoopbackServer server([](const Request& r) {
        Reply reply = vectors_for(r);
        reply.chunked = true;
        return reply;
    });
    auto o = fast_options(server.url());
    o.dimensions = 0;
    ::setenv("SCOUT_EMBEDDER_API_KEY", "from-env", 1);
    auto e = make(o);
    ::unsetenv("SCOUT_EMBEDDER_API_KEY");
    CHECK(e->dim() == kDim);
    CHECK(server.requests() == 1);
    CHECK(e->embed(numbered(3)).ok());
}

TEST_CASE("http embedder retries 500 and honours Retry-After on 429", "[http]") {
    std::atomic<int> calls{0};
    LoopbackServer server([&](const Request& r) {
        const int n = calls++;
        if (n == 0) {
            return make_reply(429, R"({"error":"slow down"})", "Retry-After: 1\r\n");
        }
        if (n == 1) {
            return make_reply(500, "oops");
        }
        return vectors_for(r);
    });
    auto e = make(fast_options(server.url()));
    const auto started = Clock::now();
    auto out = e->embed(numbered(2));
    const auto took = Clock::now() - started;
    REQUIRE(out.ok());
    CHECK(server.requests() == 3);
    CHECK(e->requests_sent() == 3);
    CHECK(took >= milliseconds(950));  // waited for Retry-After: 1
    CHECK(took < milliseconds(2500));
}

TEST_CASE("http embedder gives up after its retries with the last error", "[http]") {
    LoopbackServer server([](const Request&) { return make_reply(503, "unavailable"); });
    auto e = make(fast_options(server.url()));
    auto out = e->embed(numbered(1));
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().code() == Errc::unavailable);
    CHECK(out.status().message().find("4 attempts") != std::string::npos);
    CHECK(out.status().message().find("HTTP 503") != std::string::npos);
    CHECK(server.requests() == 4);
}

TEST_CASE("http embedder does not retry client errors, malformed JSON or wrong sizes", "[http]") {
    SECTION("400") {
        LoopbackServer server(
            [](const Request&) { return make_reply(400, R"({"error":"bad model"})"); });
        auto out = make(fast_options(server.url()))->embed(numbered(1));
        REQUIRE_FALSE(out.ok());
        CHECK(out.status().message().find("HTTP 400") != std::string::npos);
        CHECK(server.requests() == 1);
    }
    SECTION("malformed JSON") {
        LoopbackServer server(
            [](const Request&) { return make_reply(200, R"({"data":[{"embedding":[1,2,)"); });
        auto out = make(fast_options(server.url()))->embed(numbered(1));
        REQUIRE_FALSE(out.ok());
        CHECK(out.status().code() == Errc::unavailable);
        CHECK(out.status().message().find("malformed") != std::string::npos);
        CHECK(server.requests() == 1);
    }
    SECTION("wrong dimensions") {
        LoopbackServer server([](const Request& r) { return vectors_for(r, kDim + 3); });
        auto out = make(fast_options(server.url()))->embed(numbered(2));
        REQUIRE_FALSE(out.ok());
        CHECK(out.status().code() == Errc::dimension_mismatch);
    }
    SECTION("too few vectors") {
        LoopbackServer server([](const Request&) { return make_reply(200, R"({"data":[]})"); });
        auto out = make(fast_options(server.url()))->embed(numbered(2));
        REQUIRE_FALSE(out.ok());
        CHECK(out.status().code() == Errc::unavailable);
    }
}

TEST_CASE("http embedder times out slow replies and retries hang-ups", "[http]") {
    SECTION("slow") {
        LoopbackServer server([](const Request& r) {
            Reply reply = vectors_for(r);
            reply.delay_ms = 1500;
            return reply;
        });
        auto o = fast_options(server.url());
        o.request_timeout = milliseconds(100);
        o.max_retries = 1;
        const auto started = Clock::now();
        auto out = make(o)->embed(numbered(1));
        REQUIRE_FALSE(out.ok());
        CHECK(out.status().message().find("timed out") != std::string::npos);
        CHECK(Clock::now() - started < milliseconds(1000));
    }
    SECTION("hang-up then success") {
        std::atomic<int> calls{0};
        LoopbackServer server([&](const Request& r) {
            Reply reply = vectors_for(r);
            reply.hang_up = calls++ == 0;
            return reply;
        });
        auto out = make(fast_options(server.url()))->embed(numbered(1));
        REQUIRE(out.ok());
        CHECK(server.requests() == 2);
    }
}

TEST_CASE("http embedder bounds the total time of one call", "[http]") {
    LoopbackServer server(
        [](const Request&) { return make_reply(429, "{}", "Retry-After: 30\r\n"); });
    auto o = fast_options(server.url());
    o.total_timeout = milliseconds(300);
    const auto started = Clock::now();
    auto out = make(o)->embed(numbered(1));
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().message().find("gave up") != std::string::npos);
    CHECK(Clock::now() - started < milliseconds(1000));
}

TEST_CASE("http embedder reports a service that is down and rejects bad options", "[http]") {
    std::string url;
    {
        LoopbackServer gone([](const Request& r) { return vectors_for(r); });
        url = gone.url();
    }  // closed: the port now refuses connections
    auto o = fast_options(url);
    o.max_retries = 1;
    auto out = make(o)->embed(numbered(1));
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().message().find("connect") != std::string::npos);

    o.dimensions = 0;  // the probe fails: create() says so
    auto probe = HttpEmbedder::create(o);
    REQUIRE_FALSE(probe.ok());
    CHECK(probe.status().code() == Errc::unavailable);

    for (const char* bad : {"ftp://x",
                            "http://",
                            "https://",
                            "http://host:99999",
                            "localhost",
                            "https://example.com/v1?api-version=1",
                            "http://user:pw@example.com/v1"}) {
        auto b = fast_options(bad);
        auto r = HttpEmbedder::create(b);
        REQUIRE_FALSE(r.ok());
        CHECK(r.status().code() == Errc::invalid_argument);
    }
    auto no_model = fast_options("http://127.0.0.1:1");
    no_model.model.clear();
    CHECK(HttpEmbedder::create(no_model).status().code() == Errc::invalid_argument);
}

TEST_CASE("search degrades to BM25 when the embedding service fails", "[http]") {
    std::atomic<bool> healthy{true};
    LoopbackServer server(
        [&](const Request& r) { return healthy ? vectors_for(r) : make_reply(500, "down"); });
    auto o = fast_options(server.url());
    o.max_retries = 1;
    auto embedder = make(o);
    auto created = scout::Catalog::create({}, embedder);
    REQUIRE(created.ok());
    scout::Catalog catalog = std::move(created.value());
    scout::ServerSpec s{"weather",
                        "Weather service",
                        "",
                        "",
                        scout::ServerStatus::active,
                        {{"get_forecast", "", "Get the weather forecast for a city", "", ""},
                         {"get_alerts", "", "List severe weather alerts", "", ""}}};
    REQUIRE(catalog.upsert_server(s).ok());
    auto info = catalog.commit();
    REQUIRE(info.ok());
    REQUIRE(info->dense_ready);

    scout::SearchOptions options;
    auto fine = catalog.searcher().search("weather forecast", options);
    REQUIRE(fine.ok());
    CHECK_FALSE(fine->degraded);
    CHECK(fine->mode == scout::Mode::hybrid);

    healthy = false;
    auto degraded = catalog.searcher().search("weather forecast", options);
    REQUIRE(degraded.ok());
    CHECK(degraded->degraded);
    CHECK(degraded->mode == scout::Mode::bm25);
    REQUIRE_FALSE(degraded->hits.empty());
    CHECK(degraded->hits[0].tool == "get_forecast");

    // A commit while the service is down keeps BM25 and says why dense is missing.
    s.tools.push_back({"get_radar", "", "Radar images", "", ""});
    REQUIRE(catalog.upsert_server(s).ok());
    auto down = catalog.commit();
    REQUIRE(down.ok());
    CHECK_FALSE(down->dense_ready);
    CHECK_FALSE(down->dense_error.empty());
    auto after = catalog.searcher().search("radar", options);
    REQUIRE(after.ok());
    CHECK(after->degraded);
    CHECK_FALSE(after->hits.empty());
}

// gateway_http_test.cpp: the gateway's Streamable HTTP layer: its small rules (listen address,
// loopback, Origin, Accept, SSE parsing), the auth file, the config's pinned tools and remote
// entries, and the transport's answers to bad requests (gateway_http_limits_test.cpp: the
// transport against oversized, stalling and flooding clients, TLS and event streams).
#include <httplib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"

#include "auth.hpp"
#include "config.hpp"
#include "gateway.hpp"
#include "http_rules.hpp"
#include "http_server.hpp"
#include "http_transport.hpp"
#include "rate_limiter.hpp"
#include "remote_session.hpp"
#include "support/served_gateway.hpp"
#include "support/temp_dir.hpp"
#include "support/tls_identity.hpp"

using namespace scout::gateway;
using namespace scout::gateway::http_test;

TEST_CASE("listen addresses, loopback hosts and origins", "[gateway][http]") {
    auto a = parse_listen("127.0.0.1:8808");
    REQUIRE(a);
    CHECK(a->host == "127.0.0.1");
    CHECK(a->port == 8808);
    auto v6 = parse_listen("[::1]:9000");
    REQUIRE(v6);
    CHECK(v6->host == "::1");
    CHECK(parse_listen(":8808")->host == "127.0.0.1");
    CHECK(parse_listen("127.0.0.1:0")->port == 0);
    for (const char* bad : {"127.0.0.1",
                            "127.0.0.1:",
                            "127.0.0.1:65536",
                            "127.0.0.1:-1",
                            "::1:80",
                            "[]:80",
                            "[::1]80",
                            "host:8x",
                            ""}) {
        CHECK_FALSE(parse_listen(bad));
    }
    CHECK(is_loopback_host("127.0.0.1"));
    CHECK(is_loopback_host("127.255.0.9"));
    CHECK(is_loopback_host("LOCALHOST"));
    CHECK(is_loopback_host("::1"));
    CHECK_FALSE(is_loopback_host("0.0.0.0"));
    CHECK_FALSE(is_loopback_host("128.0.0.1"));
    CHECK_FALSE(is_loopback_host("127.0.0"));
    CHECK_FALSE(is_loopback_host("127.0.0.1.evil.com"));
    CHECK_FALSE(is_loopback_host("::"));

    CHECK(origin_allowed("", {}));
    CHECK(origin_allowed("http://localhost:3000", {}));
    CHECK(origin_allowed("http://127.0.0.1", {}));
    CHECK(origin_allowed("https://[::1]:8443", {}));
    CHECK_FALSE(origin_allowed("http://evil.example", {}));
    CHECK_FALSE(origin_allowed("http://localhost.evil.example", {}));
    CHECK_FALSE(origin_allowed("http://127.0.0.1@evil.example", {}));
    CHECK_FALSE(origin_allowed("null", {}));
    CHECK_FALSE(origin_allowed("file://", {}));
    CHECK(origin_allowed("https://app.example.com", {"https://app.example.com"}));
    CHECK_FALSE(origin_allowed("https://app.example.com.evil", {"https://app.example.com"}));
}

TEST_CASE("Accept, Content-Type and SSE bodies are read", "[gateway][http]") {
    CHECK(parse_accept("").json);
    CHECK(parse_accept("application/json, text/event-stream").event_stream);
    CHECK(parse_accept("application/json;q=0.9").json);
    CHECK_FALSE(parse_accept("application/json").event_stream);
    CHECK_FALSE(parse_accept("text/event-stream").json);
    CHECK(parse_accept("*/*").json);
    CHECK_FALSE(parse_accept("text/html").json);
    CHECK(media_type("Application/JSON; charset=utf-8") == "application/json");

    const auto events = sse_event_data(
        ": comment\nevent: message\ndata: {\"a\":1}\n\nid: 7\r\ndata: x\r\ndata: y\r\n\r\ndata:z");
    REQUIRE(events.size() == 3);
    CHECK(events[0] == "{\"a\":1}");
    CHECK(events[1] == "x\ny");
    CHECK(events[2] == "z");
    CHECK(sse_event_data("").empty());
    CHECK(sse_event_data("\n\n\n").empty());
}

TEST_CASE("the auth file is parsed and tokens compared in full", "[gateway][http]") {
    const AuthTable table = two_callers();
    CHECK(table.size() == 2);
    const CallerScope* admin = table.authenticate(std::string("Bearer ") + kAdminToken);
    REQUIRE(admin != nullptr);
    CHECK(admin->name == "admin");
    CHECK_FALSE(admin->servers);
    const CallerScope* files = table.authenticate(std::string("bearer  ") + kFilesToken + " ");
    REQUIRE(files != nullptr);
    CHECK(files->servers == std::vector<std::string>{"filesystem"});
    CHECK(table.authenticate("") == nullptr);
    CHECK(table.authenticate(kAdminToken) == nullptr);  // no scheme
    CHECK(table.authenticate(std::string("Basic ") + kAdminToken) == nullptr);
    CHECK(table.authenticate(std::string("Bearer ") + kAdminToken + "x") == nullptr);
    CHECK(table.authenticate(std::string("Bearer ") + std::string(kAdminToken).substr(1)) ==
          nullptr);
    CHECK(table.authenticate("Bearer " + std::string(100000, 'a')) == nullptr);

    CHECK(constant_time_equal("abc", "abc"));
    CHECK_FALSE(constant_time_equal("abc", "abd"));
    CHECK_FALSE(constant_time_equal("abc", "abcd"));
    CHECK_FALSE(constant_time_equal("", "a"));

    for (const char* bad : {
             "",
             "[]",
             "{}",
             R"({"callers": []})",
             R"({"callers": {}})",
             R"({"callers": [{"name": "a"}]})",
             R"({"callers": [{"token": "0123456789abcdef"}]})",
             R"({"callers": [{"name": "a", "token": "short"}]})",
             R"({"callers": [{"name": "a", "token": "has space 0123456789"}]})",
             R"({"callers": [{"name": "a", "token": "0123456789abcdef", "servers": "x"}]})",
             R"({"callers": [{"name": "a", "token": "0123456789abcdef", "servers": [1]}]})",
             R"({"callers": [{"name": "a", "token": "0123456789abcdef", "extra": 1}]})",
             R"({"callers": [{"name": "a", "token": "0123456789abcdef"}], "x": 1})",
             R"({"callers": [{"name": "a", "token": "0123456789abcdef"},
                             {"name": "a", "token": "0123456789abcdeg"}]})",
             R"({"callers": [{"name": "a", "token": "0123456789abcdef"},
                             {"name": "b", "token": "0123456789abcdef"}]})",
         }) {
        auto r = AuthTable::parse(bad);
        CHECK_FALSE(r.ok());
        CHECK(r.status().code() == scout::Errc::invalid_argument);
    }
    CHECK(AuthTable::load("/nonexistent/auth.json").status().code() == scout::Errc::not_found);
}

TEST_CASE("auth file errors name the key path", "[gateway][http]") {
    const std::vector<std::pair<const char*, const char*>> cases = {
        {R"({"callers": [{"name": "a", "token": "0123456789abcdef"}], "caller": 1})",
         "caller: unknown key"},
        {R"({"callers": [{"name": "a", "token": "0123456789abcdef"},
                         {"name": "b", "token": "0123456789abcdeg", "sevrers": []}]})",
         "callers[1].sevrers: unknown key"},
        {R"({"callers": [{"name": "a", "token": "0123456789abcdef", "servers": ["x", 2]}]})",
         "callers[0].servers[1]: must be a server name (got number)"},
        {R"({"callers": [{"name": 5, "token": "0123456789abcdef"}]})",
         "callers[0].name: must be a string"},
        {R"({"callers": "all"})", "callers: must be a non-empty array (got string)"},
        {R"({"callers": [{"name": "a", "token": "0123456789abcdef",
                          "token_sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}]})",
         "callers[0]: give either \"token\" or \"token_sha256\", not both"},
        {R"({"callers": [{"name": "a", "token_sha256": "abc"}]})",
         "callers[0].token_sha256: must be the token's SHA-256 as 64 hex digits"},
        {R"({"callers": [{"name": "a"}]})", "\"token\" or \"token_sha256\" is required"},
    };
    for (const auto& [text, expected] : cases) {
        INFO(text);
        auto r = AuthTable::parse(text);
        REQUIRE_FALSE(r.ok());
        CHECK(r.status().message().find(expected) != std::string::npos);
    }
}

TEST_CASE("a caller may be given by its token's SHA-256", "[gateway][http]") {
    // SHA-256("test-token-0123456789") from `printf %s test-token-0123456789 | sha256sum`.
    constexpr const char* kToken = "test-token-0123456789";
    const std::string digest = "93b01915ef217ed9eb776b2e473270b00418b7bfc8c89d30696ece5eb5d91240";
    auto parsed = AuthTable::parse(R"({"callers": [{"name": "hashed", "token_sha256": ")" + digest +
                                   R"("}, {"name": "plain", "token": "plain-token-0123456789"}]})");
    REQUIRE(parsed.ok());
    const CallerScope* hashed = parsed->authenticate(std::string("Bearer ") + kToken);
    REQUIRE(hashed != nullptr);
    CHECK(hashed->name == "hashed");
    const CallerScope* plain = parsed->authenticate("Bearer plain-token-0123456789");
    REQUIRE(plain != nullptr);
    CHECK(plain->name == "plain");
    CHECK(parsed->authenticate("Bearer " + digest) == nullptr);  // the digest is no token
    CHECK(parsed->authenticate(std::string("Bearer ") + kToken + "x") == nullptr);
    // Upper-case hex is the same digest; a hash of another caller's token is a duplicate.
    std::string upper = digest;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](char c) {
        return static_cast<char>(c >= 'a' && c <= 'f' ? c - 'a' + 'A' : c);
    });
    auto dup = AuthTable::parse(R"({"callers": [{"name": "a", "token_sha256": ")" + upper +
                                R"("}, {"name": "b", "token": ")" + kToken + R"("}]})");
    REQUIRE_FALSE(dup.ok());
    CHECK(dup.status().message().find("callers[1].token: the same token") != std::string::npos);
}

TEST_CASE("the auth table is reloaded atomically while requests run",
          "[gateway][http][concurrency]") {
    Served served;
    auto admin_client = served.client();
    auto files_client = served.client();
    const std::string files_session = open_session(files_client, kFilesToken);
    const std::string ping = R"({"jsonrpc":"2.0","id":2,"method":"ping"})";

    // Callers that stay (admin keeps its token) loop over their own sessions while the table is
    // replaced under them: none of their requests may fail.
    std::atomic<bool> done{false};
    std::atomic<int> answered{0};
    std::atomic<int> failed{0};
    std::vector<std::thread> loops;
    for (int t = 0; t < 3; ++t) {
        loops.emplace_back([&] {
            auto c = served.client();
            auto r = c.Post("/mcp", with_token(kAdminToken), kInitialize, "application/json");
            if (!r || r->status != 200) {
                ++failed;
                return;
            }
            const std::string id = r->get_header_value("Mcp-Session-Id");
            while (!done.load()) {
                auto p = c.Post("/mcp",
                                with_token(kAdminToken, {{"Mcp-Session-Id", id}}),
                                ping,
                                "application/json");
                if (!p || p->status != 200) {
                    ++failed;
                } else {
                    ++answered;
                }
            }
        });
    }
    constexpr const char* kNewToken = "newbie-token-0123456789";
    auto replaced = AuthTable::parse(std::string(R"({"callers": [
        {"name": "admin", "token": ")") +
                                     kAdminToken + R"("}, {"name": "newbie", "token": ")" +
                                     kNewToken + R"(", "servers": ["filesystem"]}]})");
    REQUIRE(replaced.ok());
    auto table = std::make_shared<const AuthTable>(std::move(replaced.value()));
    while (answered.load() < 20 && failed.load() == 0) {
        std::this_thread::yield();
    }
    REQUIRE(served.transport->reload_auth(table).ok());
    // Right after the reload: the removed token is refused, its session too; the new one works.
    auto removed = files_client.Post("/mcp",
                                     with_token(kFilesToken, {{"Mcp-Session-Id", files_session}}),
                                     ping,
                                     "application/json");
    REQUIRE(removed);
    CHECK(removed->status == 401);
    CHECK(removed->get_header_value("WWW-Authenticate").find("invalid_token") != std::string::npos);
    auto newbie = served.client();
    const std::string newbie_session = open_session(newbie, kNewToken);
    auto newbie_ping = newbie.Post("/mcp",
                                   with_token(kNewToken, {{"Mcp-Session-Id", newbie_session}}),
                                   ping,
                                   "application/json");
    REQUIRE(newbie_ping);
    CHECK(newbie_ping->status == 200);
    // More reloads of the same table under load change nothing for the callers that stay.
    for (int i = 0; i < 20; ++i) {
        REQUIRE(served.transport->reload_auth(table).ok());
    }
    const int before = answered.load();
    while (answered.load() < before + 20 && failed.load() == 0) {
        std::this_thread::yield();
    }
    done.store(true);
    for (auto& t : loops) {
        t.join();
    }
    CHECK(failed.load() == 0);
    CHECK(answered.load() >= 40);
    // A transport built without an auth table has nothing to reload.
    Served open(HttpLimits{}, false);
    CHECK(open.transport->reload_auth(table).code() == scout::Errc::invalid_argument);
}

TEST_CASE("a token bucket per caller bounds its requests", "[gateway][http]") {
    RateLimiter limiter(2);
    const RateLimit two_per_second{2, 3};
    const auto t0 = RateLimiter::Clock::now();
    for (int i = 0; i < 3; ++i) {  // the burst
        CHECK(limiter.acquire("a", two_per_second, t0) == 0);
    }
    CHECK(limiter.acquire("a", two_per_second, t0) == 1);  // half a second to the next token
    CHECK(limiter.acquire("b", two_per_second, t0) == 0);  // another caller's bucket is its own
    CHECK(limiter.acquire("a", two_per_second, t0 + std::chrono::milliseconds(500)) == 0);
    CHECK(limiter.acquire("a", two_per_second, t0 + std::chrono::milliseconds(500)) == 1);
    const RateLimit slow{0.1, 1};
    CHECK(limiter.acquire("c", slow, t0) == 0);
    CHECK(limiter.acquire("c", slow, t0) == 10);  // Retry-After: the seconds to the next token
    // Bounded memory: a third key drops the buckets that are full again.
    CHECK(limiter.acquire("d", slow, t0 + std::chrono::seconds(60)) == 0);

    auto parsed = AuthTable::parse(R"({"callers": [
        {"name": "a", "token": "0123456789abcdef", "rate": {"requests_per_second": 0.5}},
        {"name": "b", "token": "0123456789abcdeg", "rate": {"requests_per_second": 5, "burst": 20}},
        {"name": "c", "token": "0123456789abcdeh"}]})");
    REQUIRE(parsed.ok());
    REQUIRE(parsed->callers()[0].rate);
    CHECK(parsed->callers()[0].rate->requests_per_second == 0.5);
    CHECK(parsed->callers()[0].rate->burst == 1);
    CHECK(parsed->callers()[1].rate->burst == 20);
    CHECK_FALSE(parsed->callers()[2].rate);
    for (const auto& [rate, expected] : std::vector<std::pair<const char*, const char*>>{
             {R"("fast")", "callers[0].rate: must be an object"},
             {R"({"requests_per_second": 0})", "callers[0].rate.requests_per_second"},
             {R"({"requests_per_second": "1"})", "callers[0].rate.requests_per_second"},
             {R"({"burst": 2})", "callers[0].rate.requests_per_second: is required"},
             {R"({"requests_per_second": 1, "burst": 0.5})", "callers[0].rate.burst"},
             {R"({"requests_per_second": 1, "per": "minute"})", "callers[0].rate.per: unknown"},
         }) {
        auto r = AuthTable::parse(std::string(R"({"callers": [{"name": "a", "token":
            "0123456789abcdef", "rate": )") +
                                  rate + "}]}");
        INFO(rate);
        REQUIRE_FALSE(r.ok());
        CHECK(r.status().message().find(expected) != std::string::npos);
    }
}

TEST_CASE("a caller over its rate gets 429 with Retry-After before any work", "[gateway][http]") {
    HttpLimits limits;
    limits.rate = RateLimit{0.01, 2};  // the default: the admin and files callers
    Served served(limits);
    auto c = served.client();
    const std::string ping = R"({"jsonrpc":"2.0","id":2,"method":"ping"})";
    const std::string session = open_session(c, kAdminToken);  // the first of the burst of 2
    auto second = c.Post(
        "/mcp", with_token(kAdminToken, {{"Mcp-Session-Id", session}}), ping, "application/json");
    REQUIRE(second);
    CHECK(second->status == 200);
    auto third = c.Post(
        "/mcp", with_token(kAdminToken, {{"Mcp-Session-Id", session}}), ping, "application/json");
    REQUIRE(third);
    CHECK(third->status == 429);
    CHECK(std::stoi(third->get_header_value("Retry-After")) >= 1);
    CHECK(json_error_code(third->body) == -32000);
    CHECK(third->body.find("rate limit") != std::string::npos);
    // Another caller's bucket is untouched; a caller's own "rate" replaces the default.
    open_session(c, kFilesToken);
    auto own =
        AuthTable::parse(std::string(R"({"callers": [{"name": "admin", "token": ")") + kAdminToken +
                         R"(", "rate": {"requests_per_second": 1000000, "burst": 1000000}}]})");
    REQUIRE(own.ok());
    REQUIRE(served.transport->reload_auth(std::make_shared<const AuthTable>(std::move(*own))).ok());
    auto fast = c.Post(
        "/mcp", with_token(kAdminToken, {{"Mcp-Session-Id", session}}), ping, "application/json");
    REQUIRE(fast);
    CHECK(fast->status == 200);
}

TEST_CASE("the gateway's files are read bounded: a FIFO or directory is refused, never waited on",
          "[gateway][http]") {
    scout::test::TempDir dir;
    const std::string fifo = dir.file("config.fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);  // no writer: a blocking open would never return
    CHECK(load_gateway_config(fifo).status().code() == scout::Errc::io_error);
    CHECK(AuthTable::load(fifo).status().code() == scout::Errc::io_error);
    CHECK_FALSE(load_gateway_config(dir.file("")).ok());
    const std::string bad = dir.write("bad.json", R"({"mcpServers": 1})");
    auto parsed = load_gateway_config(bad);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.status().code() == scout::Errc::invalid_argument);
    CHECK(parsed.status().message().rfind(bad + ": ", 0) == 0);
}

TEST_CASE("the config names pinned tools and remote servers", "[gateway][http]") {
    auto ok = parse_gateway_config(R"({"mcpServers": {
        "a": {"command": "x", "pin": true},
        "b/c": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer t"}},
        "b": {"command": "y"}},
        "pinned": ["b/c/echo", "b/tool"]})");
    REQUIRE(ok.ok());
    CHECK(ok->pinned.servers == std::vector<std::string>{"a"});
    REQUIRE(ok->pinned.tools.size() == 2);
    CHECK(ok->pinned.tools[0].server == "b/c");  // the longest server name wins
    CHECK(ok->pinned.tools[0].tool == "echo");
    CHECK(ok->pinned.tools[1].server == "b");
    const auto named_bc = std::find_if(ok->backends.begin(),
                                       ok->backends.end(),
                                       [](const BackendSpec& b) { return b.name == "b/c"; });
    REQUIRE(named_bc != ok->backends.end());
    const BackendSpec& remote = *named_bc;
    CHECK(remote.url == "http://127.0.0.1:9/mcp");
    CHECK(remote.command.empty());
    CHECK(remote.headers.at("Authorization") == "Bearer t");
    for (const char* bad : {
             R"({"mcpServers": {"a": {"command": "x", "url": "http://h/"}}})",
             R"({"mcpServers": {"a": {"url": "ftp://h/"}}})",
             R"({"mcpServers": {"a": {"url": "http://user@h/"}}})",
             R"({"mcpServers": {"a": {"url": 5}}})",
             R"({"mcpServers": {"a": {"url": "http://h/", "headers": {"Bad Name": "v"}}}})",
             R"({"mcpServers": {"a": {"url": "http://h/", "headers": {"X": "a\nb"}}}})",
             R"({"mcpServers": {"a": {"command": "x", "pin": "yes"}}})",
             R"({"mcpServers": {"a": {"command": "x"}}, "pinned": ["nobody/tool"]})",
             R"({"mcpServers": {"a": {"command": "x"}}, "pinned": ["a/"]})",
             R"({"mcpServers": {"a": {"command": "x"}}, "pinned": "a/t"})",
         }) {
        INFO(bad);
        CHECK_FALSE(parse_gateway_config(bad).ok());
    }
    CHECK(parse_http_url("https://example.com")->path == "/");
    CHECK(parse_http_url("http://h:8080/a/b?x=1")->origin == "http://h:8080");
    CHECK_FALSE(parse_http_url("http:///mcp"));
    CHECK_FALSE(parse_http_url("http://h/a b"));
}

TEST_CASE("a non-loopback listener needs an auth file", "[gateway][http]") {
    auto created = scout::Catalog::create({}, nullptr);
    REQUIRE(created.ok());
    Gateway gw(created.value(),
               {},
               scout::mcp::Connector{},
               BackendTimings{},
               [](const std::string&, Gateway::Wait) {});
    HttpOptions options;
    options.address = {"0.0.0.0", 0};
    HttpTransport open(gw, options);
    const auto refused = open.bind();
    CHECK(refused.code() == scout::Errc::invalid_argument);
    CHECK(refused.message().find("--auth-file") != std::string::npos);
    gw.shutdown();
}

TEST_CASE("the HTTP transport answers bad requests with clear errors", "[gateway][http]") {
    HttpLimits limits;
    limits.server.max_body_bytes = 64 * 1024;
    Served s(limits);
    auto c = s.client();
    const std::string session = open_session(c, kAdminToken);
    auto post = [&](const std::string& body,
                    httplib::Headers extra = {},
                    const char* type = "application/json") {
        extra.emplace("Mcp-Session-Id", session);
        return c.Post("/mcp", with_token(kAdminToken, extra), body, type);
    };

    SECTION("malformed JSON and JSON-RPC") {
        auto r = post("{oops");
        REQUIRE(r);
        CHECK(r->status == 400);
        CHECK(json_error_code(r->body) == kParseError);
        r = post(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");  // batches are gone in 2025-06
        CHECK(r->status == 400);
        CHECK(json_error_code(r->body) == kInvalidRequest);
        r = post("\"\xff\xfe\"");
        CHECK(r->status == 400);
        r = post(std::string(100000, '[').substr(0, 60000));
        CHECK(r->status == 400);
        r = post("");
        CHECK(r->status == 400);
    }
    SECTION("a body over the limit is refused without being parsed") {
        auto r = post(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":")" +
                      std::string(limits.server.max_body_bytes, 'x') + "\"}}");
        REQUIRE(r);
        CHECK(r->status == 413);
    }
    SECTION("bad headers") {
        auto r = post(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", {}, "text/plain");
        CHECK(r->status == 415);
        r = post(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", {{"Accept", "text/html"}});
        CHECK(r->status == 406);
        r = post(R"({"jsonrpc":"2.0","id":1,"method":"ping"})",
                 {{"MCP-Protocol-Version", "1999-01-01"}});
        CHECK(r->status == 400);
        r = post(R"({"jsonrpc":"2.0","id":1,"method":"ping"})",
                 {{"Origin", "http://evil.example"}});
        CHECK(r->status == 403);
        r = c.Post("/mcp",
                   with_token(kAdminToken),
                   R"({"jsonrpc":"2.0","id":1,"method":"ping"})",
                   "application/json");
        CHECK(r->status == 400);  // no session id
        r = c.Post("/mcp",
                   with_token(kAdminToken, {{"Mcp-Session-Id", "0123"}}),
                   R"({"jsonrpc":"2.0","id":1,"method":"ping"})",
                   "application/json");
        CHECK(r->status == 404);
        r = c.Put("/mcp", with_token(kAdminToken), "{}", "application/json");
        CHECK(r->status == 405);
    }
    SECTION("tokens") {
        auto r = c.Post("/mcp", kInitialize, "application/json");
        REQUIRE(r);
        CHECK(r->status == 401);
        CHECK(r->get_header_value("WWW-Authenticate").rfind("Bearer ", 0) == 0);
        r = c.Post("/mcp", with_token("wrong-token-0123456789"), kInitialize, "application/json");
        CHECK(r->status == 401);
        CHECK(r->get_header_value("WWW-Authenticate").find("invalid_token") != std::string::npos);
        // Another caller's session is not found (its existence is not revealed).
        r = c.Post("/mcp",
                   with_token(kFilesToken, {{"Mcp-Session-Id", session}}),
                   R"({"jsonrpc":"2.0","id":1,"method":"ping"})",
                   "application/json");
        CHECK(r->status == 404);
        CHECK(c.Get("/metrics")->status == 401);
        auto m = c.Get("/metrics", with_token(kFilesToken));
        CHECK(m->status == 200);
        CHECK(m->body.find("scout_http_auth_failures_total ") != std::string::npos);
    }
    SECTION("requests, notifications, SSE answers and DELETE") {
        auto r = post(R"({"jsonrpc":"2.0","id":7,"method":"ping"})");
        REQUIRE(r);
        CHECK(r->status == 200);
        CHECK(Json::parse(r->body)["id"] == 7);
        r = post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
        CHECK(r->status == 202);
        CHECK(r->body.empty());
        r = post(R"({"jsonrpc":"2.0","id":9,"result":{}})");
        CHECK(r->status == 202);
        r = post(R"({"jsonrpc":"2.0","id":8,"method":"tools/list"})",
                 {{"Accept", "text/event-stream"}});
        CHECK(r->status == 200);
        CHECK(r->get_header_value("Content-Type") == "text/event-stream");
        const auto events = sse_event_data(r->body);
        REQUIRE(events.size() == 1);
        CHECK(Json::parse(events[0])["id"] == 8);
        r = post(R"({"jsonrpc":"2.0","id":10,"method":"no/such"})");
        CHECK(json_error_code(r->body) == kMethodNotFound);
        auto d = c.Delete("/mcp", with_token(kAdminToken, {{"Mcp-Session-Id", session}}));
        CHECK(d->status == 200);
        r = post(R"({"jsonrpc":"2.0","id":11,"method":"ping"})");
        CHECK(r->status == 404);
    }
}

// gateway_parts_test.cpp: the gateway's parts one by one: JSON-RPC classification, the config
// parser, line splitting and writing, cancel tokens, the call pool, the search mode.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"
#include "scout/doctor.hpp"
#include "scout/mcp/meta_tools.hpp"

#include "built_components.hpp"
#include "call_pool.hpp"
#include "cancel_token.hpp"
#include "config.hpp"
#include "embedder_choice.hpp"
#include "gateway.hpp"
#include "json_rpc.hpp"
#include "line_reader.hpp"
#include "line_writer.hpp"
#include "log.hpp"
#include "support/temp_dir.hpp"
#include "templates_file.hpp"

using namespace scout::gateway;
using scout::Status;

TEST_CASE("JSON-RPC lines are classified", "[gateway]") {
    CHECK(classify("{oops").kind == MessageKind::parse_error);
    CHECK(classify("").kind == MessageKind::parse_error);
    CHECK(classify("\"\xff\"").kind == MessageKind::parse_error);
    CHECK(classify("[]").kind == MessageKind::invalid);
    CHECK(classify("42").kind == MessageKind::invalid);
    Message no_version = classify(R"({"id":3,"method":"ping"})");
    CHECK(no_version.kind == MessageKind::invalid);
    CHECK(no_version.id == 3);
    CHECK(classify(R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})").kind == MessageKind::invalid);
    CHECK(classify(R"({"jsonrpc":"2.0","id":1,"method":7})").kind == MessageKind::invalid);
    CHECK(classify(R"({"jsonrpc":"2.0","id":1,"method":"x","params":"s"})").kind ==
          MessageKind::invalid);
    Message req = classify(R"({"jsonrpc":"2.0","id":"a","method":"tools/list"})");
    CHECK(req.kind == MessageKind::request);
    CHECK(req.method == "tools/list");
    CHECK(req.id == "a");
    CHECK(classify(R"({"jsonrpc":"2.0","method":"notifications/initialized"})").kind ==
          MessageKind::notification);
    CHECK(classify(R"({"jsonrpc":"2.0","id":4,"result":{}})").kind == MessageKind::response);
    CHECK(classify(R"({"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"m"}})").kind ==
          MessageKind::response);
    CHECK(make_error(nullptr, kParseError, "x") ==
          Json::parse(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}})"));
    CHECK(to_line(make_result(1, Json::object())).find('\n') == std::string::npos);
}

TEST_CASE("the Claude Desktop config format is parsed and checked", "[gateway]") {
    auto ok = parse_config(R"({"mcpServers": {
        "a": {"command": "node", "args": ["x.js", "--flag"], "env": {"K": "v"}, "environment": "prod"},
        "b": {"command": "uvx"},
        "c": {"command": "off", "disabled": true}}})");
    REQUIRE(ok.ok());
    REQUIRE(ok->size() == 2);
    CHECK(ok->at(0).name == "a");
    CHECK(ok->at(0).args == std::vector<std::string>{"x.js", "--flag"});
    CHECK(ok->at(0).env.at("K") == "v");
    CHECK(ok->at(0).environment == "prod");
    CHECK(ok->at(1).args.empty());
    for (const char* bad : {"",
                            "[]",
                            R"({"servers":{}})",
                            R"({"mcpServers":[]})",
                            R"({"mcpServers":{"a":{}}})",
                            R"({"mcpServers":{"a":{"command":""}}})",
                            R"({"mcpServers":{"a":{"url":"ftp://x"}}})",
                            R"({"mcpServers":{"a":{"url":"http://x","command":"y"}}})",
                            R"({"mcpServers":{"a":{"command":"x","args":"y"}}})",
                            R"({"mcpServers":{"a":{"command":"x","args":[1]}}})",
                            R"({"mcpServers":{"a":{"command":"x","env":{"K":1}}}})",
                            R"({"mcpServers":{"a":{"command":"x","env":{"A=B":"1"}}}})",
                            R"({"mcpServers":{"":{"command":"x"}}})"}) {
        INFO(bad);
        auto r = parse_config(bad);
        CHECK_FALSE(r.ok());
        CHECK(r.status().code() == scout::Errc::invalid_argument);
    }
    CHECK(parse_config(R"({"mcpServers":{"a":{"command":"x","args":[1]}}})")
              .status()
              .message()
              .find("mcpServers.a") != std::string::npos);
    CHECK_FALSE(load_config("/nonexistent/servers.json").ok());
}

TEST_CASE("over-deep lines are invalid requests that keep their id", "[gateway]") {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    Message req =
        classify(R"({"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"a":)" + deep + "}}");
    CHECK(req.kind == MessageKind::invalid);
    CHECK(req.id == "d");
    CHECK(req.error.find("nested deeper than 256 levels") != std::string::npos);
    CHECK(req.body.is_null());
    Message note = classify(R"({"jsonrpc":"2.0","method":"x","params":{"a":)" + deep + "}}");
    CHECK(note.kind == MessageKind::invalid);
    // A response keeps its kind: the session decides whether the placeholders are acceptable.
    Message resp = classify(R"({"jsonrpc":"2.0","id":4,"result":{"a":)" + deep + "}}");
    CHECK(resp.kind == MessageKind::response);
    CHECK(resp.too_deep);
    CHECK(resp.id == 4);
    Message fine = classify(R"({"jsonrpc":"2.0","id":5,"result":{"a":[[[1]]]}})");
    CHECK_FALSE(fine.too_deep);
}

TEST_CASE("config errors name the key, whatever its type", "[gateway]") {
    const std::vector<std::pair<const char*, const char*>> cases = {
        {R"({"mcpServers":{"a":{"command":"x","disabled":"true"}}})", "mcpServers.a.disabled"},
        {R"({"mcpServers":{"a":{"command":"x","disabled":1}}})", "mcpServers.a.disabled"},
        {R"({"mcpServers":{"a":{"command":7}}})", "mcpServers.a.command"},
        {R"({"mcpServers":{"a":{"command":"x","environment":["prod"]}}})",
         "mcpServers.a.environment"},
        {R"({"mcpServers":{"a":{"command":"x","args":[null]}}})", "mcpServers.a.args"},
        {R"({"mcpServers":{"a":{"command":"x","env":[]}}})", "mcpServers.a.env"},
        {R"({"mcpServers":{"a\u001b[31m":{"command":"x"}}})", "control characters"},
        {R"({"mcpServers":{"a\tb":{"command":"x"}}})", "control characters"},
        {R"({"mcpServers":{"a":{"command":"x\u0000y"}}})", "NUL"},
        {R"({"mcpServers":{"a":{"command":"x","args":["\u0000"]}}})", "NUL"},
        {R"({"mcpServers":{"a":{"command":"x","env":{"K":"\u0000"}}}})", "NUL"},
    };
    for (const auto& [text, expected] : cases) {
        INFO(text);
        auto r = parse_config(text);
        REQUIRE_FALSE(r.ok());
        CHECK(r.status().message().find(expected) != std::string::npos);
        CHECK(r.status().message().find('\x1b') == std::string::npos);
    }
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    auto too_deep = parse_config(R"({"mcpServers":{},"x":)" + deep + "}");
    REQUIRE_FALSE(too_deep.ok());
    CHECK(too_deep.status().message().find("nested deeper") != std::string::npos);
    auto off = parse_config(
        R"({"mcpServers":{"a":{"command":"x","disabled":false},"b":{"command":"y","disabled":true}}})");
    REQUIRE(off.ok());
    REQUIRE(off->size() == 1);
    CHECK(off->at(0).name == "a");
}

TEST_CASE("unknown keys and wrong types in the config name their path", "[gateway]") {
    const std::vector<std::pair<const char*, const char*>> cases = {
        {R"({"mcpServers":{},"mcpservers":{}})", "mcpservers: unknown key"},
        {R"({"servers":{}})", "servers: unknown key"},
        {R"({})", "mcpServers: is required"},
        {R"({"mcpServers":[]})", "mcpServers: must be an object of servers (got array)"},
        {R"({"mcpServers":{"github":{"command":"x","argz":[]}}})",
         "mcpServers.github.argz: unknown key"},
        {R"({"mcpServers":{"github":{"command":"x","disabled":true,"typo":1}}})",
         "mcpServers.github.typo: unknown key"},
        {R"({"mcpServers":{"github":{"command":"x","args":["a","b",3]}}})",
         "mcpServers.github.args[2]: must be a string (got number)"},
        {R"({"mcpServers":{"github":{"command":"x","env":{"TOKEN":1}}}})",
         "mcpServers.github.env.TOKEN"},
        {R"({"mcpServers":{"r":{"url":"https://h/mcp","headers":{"X-A":2}}}})",
         "mcpServers.r.headers.X-A"},
        {R"({"mcpServers":{"a":{"command":"x","headers":{}}}})", "mcpServers.a.headers: only"},
        {R"({"mcpServers":{"github":"npx"}})", "mcpServers.github: must be an object (got string)"},
        {R"({"mcpServers":{"a":{"command":"x"}},"pinned":["a/t",7]})",
         "pinned[1]: must be a \"server/tool\" string (got number)"},
        {R"({"mcpServers":{"a":{"command":"x"}},"pinned":["b/t"]})", "pinned[0]:"},
    };
    for (const auto& [text, expected] : cases) {
        INFO(text);
        auto r = parse_gateway_config(text);
        REQUIRE_FALSE(r.ok());
        CHECK(r.status().code() == scout::Errc::invalid_argument);
        CHECK(r.status().message().find(expected) != std::string::npos);
    }
    // Every documented key is accepted, the "embedder" among them.
    CHECK(parse_gateway_config(
              R"({"mcpServers":{"a":{"command":"x","args":[],"env":{},"environment":"prod",
                  "disabled":false,"pin":true},"r":{"url":"https://h/mcp","headers":{}}},
                  "pinned":["a/t"],"embedder":"none"})")
              .ok());
    // A syntax error carries the parser's line and column.
    auto syntax = parse_gateway_config("{\n  \"mcpServers\": {\n    \"a\": {,}\n  }\n}");
    REQUIRE_FALSE(syntax.ok());
    CHECK(syntax.status().message().find("line 3") != std::string::npos);
}

TEST_CASE("unknown keys and wrong types in the embedder settings name their path", "[gateway]") {
    const std::vector<std::pair<const char*, const char*>> cases = {
        {R"({"embedder":{"type":"http","modle":"m"}})", "embedder.modle: unknown key"},
        {R"({"embedder":{"type":7}})", "embedder.type: must be a string (got number)"},
        {R"({"embedder":{"dimensions":"8"}})", "embedder.dimensions"},
        {R"({"embedder":{"headers":{"X-Key":1}}})", "embedder.headers.X-Key: must be a string"},
        {R"({"embedder":{"allow_cleartext_key":"yes"}})", "embedder.allow_cleartext_key"},
        {R"({"embedder":[]})", "embedder: must be a spec string or an object (got array)"},
    };
    for (const auto& [text, expected] : cases) {
        INFO(text);
        EmbedderSettings settings;
        const Status s = parse_embedder_config(text, settings);
        REQUIRE_FALSE(s.ok());
        CHECK(s.message().find(expected) != std::string::npos);
    }
}

TEST_CASE("the templates file names the key at fault and its line", "[gateway]") {
    const std::vector<std::pair<const char*, const char*>> cases = {
        {"{\n  \"tool_search\": \"Find\",\n  \"execute_tol\": \"Run\"\n}",
         "execute_tol: unknown key (known: tool_search, query,"},
        {"{\n  \"tool_search\": \"Find\",\n  \"execute_tol\": \"Run\"\n}", "(line 3)"},
        {"{\"tool_search\": \"a\",\n\n \"top_k\" :\n 5}",
         "top_k: must be a string (got number) (line 3)"},
        {"[\"tool_search\"]", "not a JSON object of template names to strings (got array)"},
        {"{\n  \"tool_search\": \"a\",,\n}", "line 2"},
    };
    for (const auto& [text, expected] : cases) {
        INFO(text);
        auto parsed = parse_templates_file(text);
        REQUIRE_FALSE(parsed.ok());
        CHECK(parsed.status().code() == scout::Errc::invalid_argument);
        CHECK(parsed.status().message().find(expected) != std::string::npos);
    }
    auto good =
        parse_templates_file(R"({"tool_search": "Search {tool_count} tools", "scope": "s"})");
    REQUIRE(good.ok());
    CHECK(good->tool_search == "Search {tool_count} tools");
    CHECK(good->scope == "s");
    scout::test::TempDir dir;
    const std::string path = dir.write("templates.json", "{\"zz\": \"x\"}");
    auto loaded = load_templates_file(path);
    REQUIRE_FALSE(loaded.ok());
    CHECK(loaded.status().message().rfind(path + ": zz: unknown key", 0) == 0);
    CHECK_FALSE(load_templates_file(dir.file("missing.json")).ok());
}

TEST_CASE("lines are split with bounded memory", "[gateway]") {
    LineSplitter lines(10);
    lines.feed("ab\r\ncd\n\nlong-line-over-ten");
    auto a = lines.next();
    REQUIRE(a);
    CHECK(a->text == "ab");
    CHECK(lines.next()->text == "cd");
    CHECK(lines.next()->text.empty());
    CHECK_FALSE(lines.next());  // the long line is being dropped
    for (int i = 0; i < 1000; ++i) {
        lines.feed(std::string(4096, 'x'));
        CHECK_FALSE(lines.next());
        CHECK(lines.pending_bytes() > 0);
    }
    lines.feed("tail\nnext");
    auto over = lines.next();
    REQUIRE(over);
    CHECK(over->kind == LineEvent::Kind::oversized);
    CHECK(over->bytes == 18 + 1000 * 4096 + 4);
    CHECK_FALSE(lines.next());
    auto last = lines.finish();
    REQUIRE(last);
    CHECK(last->text == "next");
    CHECK_FALSE(lines.finish());
    // A complete over-long line inside one chunk is reported too, once.
    LineSplitter small(3);
    small.feed("abcdef\nabc\n");
    CHECK(small.next()->kind == LineEvent::Kind::oversized);
    CHECK(small.next()->text == "abc");
    CHECK_FALSE(small.next());
}

TEST_CASE("a LineWriter never blocks on a peer that does not read", "[gateway][concurrency]") {
    int fds[2];
    REQUIRE(::pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0);
    LineWriter writer(fds[1], 1 << 20, true);
    const std::string line(100000, 'w');
    REQUIRE(writer.send(line, 1).ok());
    pollfd readable{fds[0], POLLIN, 0};
    REQUIRE(::poll(&readable, 1, 5000) == 1);  // the first line is being written
    int accepted = 1;
    Status refused;
    for (int i = 1; i < 100 && refused.ok(); ++i) {
        refused = writer.send(line, static_cast<std::uint64_t>(i + 1));
        accepted += refused.ok();
    }
    CHECK(refused.code() == scout::Errc::unavailable);
    CHECK(refused.message().find("not reading") != std::string::npos);
    CHECK(accepted >= 10);
    CHECK(accepted < 40);  // the pipe (64 KiB) plus the 1 MiB bound
    // A line not started yet can be withdrawn; the one being written cannot.
    CHECK(writer.withdraw(static_cast<std::uint64_t>(accepted)));
    CHECK_FALSE(writer.withdraw(1));
    CHECK_FALSE(writer.flush(std::chrono::steady_clock::now() + std::chrono::milliseconds(50)));
    const auto start = std::chrono::steady_clock::now();
    writer.close();
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
    CHECK(writer.send("late").code() == scout::Errc::unavailable);
    ::close(fds[0]);
}

TEST_CASE("a LineWriter delivers lines in order and reports a closed peer",
          "[gateway][concurrency]") {
    ::signal(SIGPIPE, SIG_IGN);  // as the gateway does: a closed peer is an EPIPE, not a death
    int fds[2];
    REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
    {
        LineWriter writer(fds[1], 1 << 20, false);
        std::thread producer([&] {
            for (int i = 0; i < 1000; ++i) {
                REQUIRE(
                    writer.send("line " + std::to_string(i), 0, LineWriter::WhenFull::wait).ok());
            }
        });
        std::string got;
        char buf[4096];
        while (std::count(got.begin(), got.end(), '\n') < 1000) {
            const ssize_t n = ::read(fds[0], buf, sizeof buf);
            REQUIRE(n > 0);
            got.append(buf, static_cast<std::size_t>(n));
        }
        producer.join();
        CHECK(got.rfind("line 0\nline 1\n", 0) == 0);
        CHECK((got.size() >= 14 && got.substr(got.size() - 9) == "line 999\n"));
        CHECK(writer.flush(std::chrono::steady_clock::now() + std::chrono::seconds(5)));
        ::close(fds[0]);
        (void)writer.send("to nobody");
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        Status s;
        while ((s = writer.send("to nobody")).ok() && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        CHECK(s.message().find("closed") != std::string::npos);
    }
    ::close(fds[1]);
}

TEST_CASE("a cancel token runs its hook once, also when set late", "[gateway][concurrency]") {
    CancelToken token;
    int runs = 0;
    token.on_cancel([&] { ++runs; });
    token.cancel("first");
    token.cancel("second");
    CHECK(runs == 1);
    CHECK(token.reason() == "first");
    token.on_cancel([&] { runs += 10; });  // already cancelled: runs at once
    CHECK(runs == 11);
    token.on_cancel(nullptr);
    CancelToken idle;
    idle.on_cancel([&] { runs += 100; });
    idle.on_cancel(nullptr);
    idle.cancel("x");
    CHECK(runs == 11);
}

TEST_CASE("the call pool runs jobs off the caller's thread and refuses past its queue",
          "[gateway][concurrency]") {
    CallPool pool(4, 8);
    std::mutex m;
    std::condition_variable cv;
    bool release = false;
    std::atomic<int> done{0};
    auto blocker = [&] {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return release; });
        ++done;
    };
    int accepted = 0;
    for (int i = 0; i < 20; ++i) {
        accepted += pool.submit(blocker);
    }
    // 4 running; the rest wait in the queue of 8 (a thread that has not picked its job yet
    // still counts as queued, so a few more may be refused).
    CHECK(accepted >= 8);
    CHECK(accepted <= 12);
    {
        std::lock_guard lock(m);
        release = true;
    }
    cv.notify_all();
    pool.shutdown();
    CHECK(done.load() == accepted);
    CHECK_FALSE(pool.submit([] {}));
}

TEST_CASE("without an embedder the gateway searches BM25 and reports nothing degraded",
          "[gateway]") {
    auto catalog = scout::Catalog::create({}, nullptr);
    REQUIRE(catalog.ok());
    scout::ServerSpec server;
    server.name = "files";
    server.tools.push_back(
        scout::ToolSpec{"read_file", "", "Read a file from disk", R"({"type":"object"})", ""});
    REQUIRE(catalog->upsert_server(server).ok());
    REQUIRE(catalog->commit().ok());
    const auto search = [&](scout::Mode mode) {
        scout::mcp::Connector connector;
        connector.mode = mode;
        scout::mcp::MetaTools meta(connector);
        return meta.tool_search(catalog->searcher(), Json{{"query", "read a file"}});
    };
    CHECK(search_mode(nullptr) == scout::Mode::bm25);
    const auto before = catalog->stats().fallbacks;
    auto r = search(search_mode(nullptr));
    CHECK(r["structuredContent"]["matches"][0]["tool"] == "read_file");
    CHECK(catalog->stats().fallbacks == before);
    // What it replaces: hybrid with no dense index falls back on every search.
    (void)search(scout::Mode::hybrid);
    CHECK(catalog->stats().fallbacks == before + 1);
}

#if SCOUT_WITH_TRANSFORMER
TEST_CASE("the gateway's embedder choice loads a transformer model directory",
          "[gateway][transformer]") {
    const char* source = std::getenv("SCOUT_SOURCE_DIR");
    const std::string model =
        std::string(source != nullptr ? source : ".") + "/tests/fixtures/transformer/tiny-bert";
    auto embedder = scout::gateway::make_embedder("transformer:" + model);
    REQUIRE(embedder.ok());
    REQUIRE(embedder.value() != nullptr);
    CHECK(embedder.value()->dim() == 36);
    CHECK(embedder.value()->model_id().rfind("transformer-bert-2x36-", 0) == 0);
    auto missing = scout::gateway::make_embedder("transformer:/nonexistent/model");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.status().message().find("not a model directory") != std::string::npos);
}
#else
TEST_CASE("a gateway built without scout::transformer refuses its spec, saying why", "[gateway]") {
    auto refused = scout::gateway::make_embedder("transformer:/some/model");
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.status().message() == SCOUT_TRANSFORMER_LEFT_OUT);
}
#endif

TEST_CASE("/metrics scoped to some servers names no other server or tool", "[gateway]") {
    auto catalog = scout::Catalog::create({}, nullptr);
    REQUIRE(catalog.ok());
    std::vector<BackendSpec> backends(2);
    backends[0].name = "files";
    backends[0].command = "unused";
    backends[1].name = "payroll";
    backends[1].command = "unused";
    Gateway gw(catalog.value(),
               std::move(backends),
               scout::mcp::Connector{},
               BackendTimings{},
               [](const std::string&, Gateway::Wait) {});  // never started: nothing to write
    gw.metrics().record_call("files", "read_file", false);
    gw.metrics().record_call("payroll", "list_salaries", true);
    gw.metrics().record_search(std::chrono::milliseconds(2), false);
    gw.metrics().record_http_request();

    const std::string all = gw.metrics_text();
    CHECK(all == gw.metrics_text(std::nullopt));
    CHECK(all.find("server=\"payroll\"") != std::string::npos);
    CHECK(all.find("list_salaries") != std::string::npos);

    const std::string scoped = gw.metrics_text(std::vector<std::string>{"files"});
    CHECK(scoped.find("payroll") == std::string::npos);
    CHECK(scoped.find("list_salaries") == std::string::npos);
    CHECK(scoped.find("scout_tool_calls_total{server=\"files\",tool=\"read_file\"} 1") !=
          std::string::npos);
    CHECK(scoped.find("scout_backend_state{server=\"files\",state=\"starting\"}") !=
          std::string::npos);
    // The aggregates name no server and stay.
    CHECK(scoped.find("scout_tool_search_duration_seconds_count 1") != std::string::npos);
    CHECK(scoped.find("scout_http_requests_total 1") != std::string::npos);

    const std::string none = gw.metrics_text(std::vector<std::string>{});
    CHECK(none.find("server=") == std::string::npos);
    CHECK(none.find("scout_searches_total") != std::string::npos);
    gw.shutdown();
}

TEST_CASE("/metrics counts callers' searches, not the doctor's", "[gateway]") {
    auto catalog = scout::Catalog::create({}, nullptr);
    REQUIRE(catalog.ok());
    scout::ServerSpec server;
    server.name = "files";
    server.tools.push_back(
        scout::ToolSpec{"read_file", "", "Read a file from disk", R"({"type":"object"})", ""});
    server.tools.push_back(
        scout::ToolSpec{"write_file", "", "Write a file to disk", R"({"type":"object"})", ""});
    REQUIRE(catalog->upsert_server(server).ok());
    REQUIRE(catalog->commit().ok());
    // Hybrid without vectors: every search falls back, the doctor's as well as the callers'.
    scout::mcp::Connector connector;
    connector.mode = scout::Mode::hybrid;
    Gateway gw(
        catalog.value(), {}, connector, BackendTimings{}, [](const std::string&, Gateway::Wait) {});
    // What a backend's indexing runs: the doctor searches the catalog for every tool.
    const auto doctor = [&] {
        REQUIRE(scout::diagnose(scout::CatalogSpec{{server}}, catalog->searcher()).ok());
    };
    doctor();
    const scout::mcp::MetaTools tools(gw.connector());
    const Message search =
        classify(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tool_search",)"
                 R"("arguments":{"query":"read a file"}}})");
    constexpr int kSearches = 3;
    for (int i = 0; i < kSearches; ++i) {
        Json answer = gw.answer(search, tools, std::make_shared<CancelToken>());
        CHECK(answer["result"]["structuredContent"]["matches"][0]["tool"] == "read_file");
        doctor();
    }
    REQUIRE(catalog->stats().searches > kSearches);  // the catalog counts the doctor's too
    const std::string text = gw.metrics_text();
    CHECK(text.find("\nscout_searches_total 3\n") != std::string::npos);
    CHECK(text.find("\nscout_search_fallbacks_total 3\n") != std::string::npos);
    CHECK(text.find("\nscout_search_fallback_ratio 1\n") != std::string::npos);
    CHECK(text.find("\nscout_tool_search_duration_seconds_count 3\n") != std::string::npos);
    gw.shutdown();
}

TEST_CASE("readiness waits for the backends' first start and names no server", "[gateway]") {
    auto catalog = scout::Catalog::create({}, nullptr);
    REQUIRE(catalog.ok());
    std::vector<BackendSpec> backends(1);
    backends[0].name = "secret-payroll";
    backends[0].command = "sleep";  // never answers initialize
    backends[0].args = {"60"};
    scout::mcp::Connector connector;
    connector.mode = scout::Mode::bm25;
    Gateway gw(catalog.value(),
               std::move(backends),
               connector,
               BackendTimings{},
               [](const std::string&, Gateway::Wait) {});
    gw.start(std::chrono::minutes(5));
    const Gateway::Readiness starting = gw.readiness();
    CHECK_FALSE(starting.ready);
    CHECK(starting.body["status"] == "starting");
    CHECK(starting.body["backends"]["starting"] == 1);
    CHECK(starting.body["tools"] == 0);
    CHECK(starting.body["embedder"] == "none");
    CHECK(starting.body.dump().find("payroll") == std::string::npos);
    gw.shutdown();
    const Gateway::Readiness stopped = gw.readiness();
    CHECK(stopped.body["backends"]["stopped"] == 1);
}

TEST_CASE("the start-up log names the embedder, or why there is none", "[gateway]") {
    auto hashing = make_embedder("hashing:64");
    REQUIRE(hashing.ok());
    const std::string line = describe_embedder("hashing:64", hashing.value());
    CHECK(line.rfind("embedder: hashing:64 model ", 0) == 0);
    CHECK(line.find(hashing.value()->model_id()) != std::string::npos);
    CHECK(line.find(", 64 dimensions") != std::string::npos);
    CHECK(describe_embedder("none", nullptr) == "embedder: none: BM25 only (--embedder none)");
    CHECK(describe_embedder("static:/no/such/file", nullptr) ==
          "embedder: none: BM25 only (the static embedder is unavailable, see above)");
}

TEST_CASE("log lines are text or one JSON object each", "[gateway]") {
    using namespace std::chrono;
    const system_clock::time_point when{milliseconds(1767225600123)};  // 2026-01-01T00:00:00.123Z
    CHECK(format_log_line(LogFormat::text, LogLevel::info, "serving on stdio", {}, when) ==
          "scout-gateway: serving on stdio");
    CHECK(format_log_line(LogFormat::text,
                          LogLevel::warn,
                          "HTTP POST /mcp answered 503",
                          {{"request_id", "00ff"}},
                          when) == "scout-gateway: HTTP POST /mcp answered 503 (request_id=00ff)");

    const std::string line = format_log_line(
        LogFormat::json, LogLevel::warn, "backend down", {{"server", "files"}}, when);
    CHECK(line.rfind(R"({"ts":"2026-01-01T00:00:00.123Z","level":"warn","msg":"backend down")",
                     0) == 0);
    CHECK(line.find('\n') == std::string::npos);
    const Json parsed = Json::parse(line);
    CHECK(parsed["server"] == "files");

    // Control characters are escaped and invalid UTF-8 replaced: the line always parses.
    const std::string nasty = std::string("a\nb\tc\x01\"q\"\\ ") + "\xff\xfe caf\xc3\xa9";
    const std::string escaped =
        format_log_line(LogFormat::json, LogLevel::error, nasty, {{"request_id", "\x80"}}, when);
    CHECK(escaped.find('\n') == std::string::npos);
    CHECK(escaped.find('\x01') == std::string::npos);
    const Json back = Json::parse(escaped);
    CHECK(back["level"] == "error");
    CHECK(back["msg"] == "a\nb\tc\x01\"q\"\\ \xef\xbf\xbd\xef\xbf\xbd caf\xc3\xa9");
    CHECK(back["request_id"] == "\xef\xbf\xbd");

    CHECK(parse_log_level("debug") == LogLevel::debug);
    CHECK_FALSE(parse_log_level("verbose").has_value());
    CHECK(parse_log_format("json") == LogFormat::json);
    CHECK_FALSE(parse_log_format("xml").has_value());
    set_log_level(LogLevel::warn);
    CHECK(log_enabled(LogLevel::error));
    CHECK_FALSE(log_enabled(LogLevel::info));
    set_log_level(LogLevel::info);
    CHECK(log_enabled(LogLevel::info));
    CHECK_FALSE(log_enabled(LogLevel::debug));
}

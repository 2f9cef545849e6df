// gateway_limits_test.cpp: scout-gateway's limits on calls (threads, queue, bytes: refused at
// once, never queued without bound), driven in this process, and backends' log messages through
// logging/setLevel over stdio and HTTP (gateway_rig.hpp runs the gateway as a process).
#include <httplib.h>
#include <signal.h>

#include <cerrno>
#include <condition_variable>
#include <map>
#include <mutex>
#include <regex>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"

#include "gateway.hpp"
#include "support/gateway_process.hpp"
#include "support/gateway_rig.hpp"
#include "support/sanitized.hpp"
#include "support/temp_dir.hpp"

using namespace scout::test::gateway_rig;  // Rig, its waits, Json, milliseconds

namespace {

/// The lines a Gateway wrote, collected for a test that drives one in this process.
struct Collected {
    std::mutex mutex;
    std::condition_variable cv;
    std::map<std::string, Json> by_id;

    void add(const std::string& line) {
        Json m = Json::parse(line);
        std::lock_guard lock(mutex);
        if (m.contains("id") && !m["id"].is_null()) {
            const std::string key = m["id"].dump();
            by_id[key] = std::move(m);
        }
        cv.notify_all();
    }
    std::optional<Json> wait(const Json& id, milliseconds within) {
        std::unique_lock lock(mutex);
        cv.wait_for(lock, within, [&] { return by_id.count(id.dump()) != 0; });
        auto it = by_id.find(id.dump());
        return it == by_id.end() ? std::nullopt : std::optional<Json>(it->second);
    }
};

std::string call_line(const std::string& id, const std::string& tool, const std::string& text) {
    return Json{
        {"jsonrpc", "2.0"},
        {"id", id},
        {"method", "tools/call"},
        {"params",
         {{"name", "execute_tool"},
          {"arguments",
           {{"tool_name", tool}, {"server_name", "fake"}, {"arguments", {{"text", text}}}}}}}}
        .dump();
}

bool busy(const std::optional<Json>& r) {
    return r && r->contains("error") && (*r)["error"]["code"] == scout::gateway::kServerBusy;
}

}  // namespace

TEST_CASE("calls beyond the thread, queue and byte limits are refused at once",
          "[gateway][faults]") {
    using namespace scout::gateway;
    TempDir logs;
    const std::string log = logs.file("fake.log");
    // Calls the backend has received so far (warm-up echo included).
    const auto calls_seen = [&] { return count(read_file(log), "tools/call"); };
    const auto wait_calls = [&](std::size_t n) {
        const auto deadline = Clock::now() + milliseconds(5000);
        while (calls_seen() < n && Clock::now() < deadline) {
            std::this_thread::sleep_for(milliseconds(5));
        }
        return calls_seen() == n;
    };
    auto run = [&](CallLimits limits, const std::function<void(Gateway&, Collected&)>& body) {
        auto catalog = scout::Catalog::create({}, nullptr);
        REQUIRE(catalog.ok());
        scout::mcp::Connector connector;
        connector.mode = scout::Mode::bm25;
        Collected out;
        BackendSpec spec;
        spec.name = "fake";
        spec.command = SCOUT_FAKE_BACKEND_PATH;
        spec.args = {"--log", log};
        Gateway gw(
            catalog.value(),
            {spec},
            connector,
            BackendTimings{},
            [&out](const std::string& line, Gateway::Wait) { out.add(line); },
            limits);
        gw.start(milliseconds(5000));
        gw.handle_line(R"({"jsonrpc":"2.0","id":"init","method":"initialize","params":{}})");
        gw.handle_line(call_line("warm", "echo", "x"));
        REQUIRE(out.wait("warm", milliseconds(5000)).has_value());
        body(gw, out);
        const auto start = Clock::now();
        gw.shutdown();  // ends the hung calls with an error
        CHECK(Clock::now() - start < kShutdownBound);
        std::remove(log.c_str());
    };
    SECTION("threads and queue") {
        run(CallLimits{2, 1, 1u << 20}, [&](Gateway& gw, Collected& out) {
            gw.handle_line(call_line("h1", "hang", ""));
            REQUIRE(wait_calls(2));
            gw.handle_line(call_line("h2", "hang", ""));
            REQUIRE(wait_calls(3));                       // both threads now wait on the backend
            gw.handle_line(call_line("h3", "hang", ""));  // waits in the queue
            gw.handle_line(call_line("h4", "hang", ""));  // finds the queue full
            const auto start = Clock::now();
            CHECK(busy(out.wait("h4", milliseconds(2000))));
            CHECK(Clock::now() - start < milliseconds(1000));
            CHECK_FALSE(out.wait("h3", milliseconds(0)).has_value());
            CHECK(calls_seen() == 3);
        });
    }
    SECTION("bytes in flight") {
        run(CallLimits{8, 8, 3000}, [&](Gateway& gw, Collected& out) {
            gw.handle_line(call_line("b1", "hang", std::string(2000, 'b')));
            gw.handle_line(call_line("b2", "hang", std::string(2000, 'b')));
            auto refused = out.wait("b2", milliseconds(2000));
            REQUIRE(busy(refused));
            CHECK((*refused)["error"]["message"].get<std::string>().find("bytes") !=
                  std::string::npos);
            // Small calls still fit beside the big one.
            gw.handle_line(call_line("s1", "echo", "small"));
            auto small = out.wait("s1", milliseconds(5000));
            REQUIRE(small.has_value());
            CHECK(small->contains("result"));
        });
    }
}

TEST_CASE("logging/setLevel reaches the backends that log, and their messages come back",
          "[gateway][faults]") {
    TempDir logs;
    Rig rig(Json{{"loud", backend({"--logging", "--log", logs.file("loud.log")})},
                 {"quiet", backend({"--log", logs.file("quiet.log")})}});
    GatewayProcess& gw = *rig.gw;
    REQUIRE(gw.initialize());
    REQUIRE(echo_works(gw, "loud", milliseconds(5000)));
    REQUIRE(echo_works(gw, "quiet", milliseconds(5000)));
    auto bad = gw.request("logging/setLevel", Json{{"level", "chatty"}}, milliseconds(5000));
    REQUIRE(bad);
    CHECK((*bad)["error"]["code"] == -32602);
    auto r = gw.request("logging/setLevel", Json{{"level", "info"}}, milliseconds(5000));
    REQUIRE(r);
    CHECK((*r)["result"] == Json::object());
    // The backend without the capability is not asked.
    CHECK(log_shows(logs.file("loud.log"), "logging/setLevel", milliseconds(2000)));
    CHECK(read_file(logs.file("quiet.log")).find("logging/setLevel") == std::string::npos);
    // Its warning comes back, named after the server; its debug line is below the level asked.
    std::vector<Json> messages;
    const auto deadline = Clock::now() + milliseconds(5000);
    while (messages.empty() && Clock::now() < deadline) {
        for (const Json& m : gw.unaddressed()) {
            if (m.value("method", std::string()) == "notifications/message") {
                messages.push_back(m["params"]);
            }
        }
        std::this_thread::sleep_for(milliseconds(20));
    }
    INFO("stderr:\n" << gw.stderr_text());
    REQUIRE(messages.size() == 1);
    CHECK(messages[0] ==
          Json{{"level", "warning"}, {"logger", "loud/fake"}, {"data", "level info"}});
    rig.shutdown_cleanly();
}

TEST_CASE("over HTTP, logging/setLevel brings a backend's messages to the session's stream",
          "[gateway][faults]") {
    Rig rig(Json{{"loud", backend({"--logging"})}}, {"--listen", "127.0.0.1:0"});
    GatewayProcess& gw = *rig.gw;
    int port = 0;
    const auto deadline = Clock::now() + milliseconds(10000);
    while (Clock::now() < deadline) {
        const std::string err = gw.stderr_text();
        std::smatch found;
        if (std::regex_search(err, found, std::regex(R"(\(port (\d+),)")) &&
            err.find("'loud' ACTIVE") != std::string::npos) {
            port = std::stoi(found[1].str());
            break;
        }
        std::this_thread::sleep_for(milliseconds(20));
    }
    INFO("stderr:\n" << gw.stderr_text());
    REQUIRE(port != 0);
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(10, 0);
    auto init = c.Post("/mcp",
                       {{"Accept", "application/json, text/event-stream"}},
                       R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{)"
                       R"("protocolVersion":"2025-11-25","capabilities":{},)"
                       R"("clientInfo":{"name":"t","version":"1"}}})",
                       "application/json");
    REQUIRE(init);
    REQUIRE(init->status == 200);
    const std::string session = init->get_header_value("Mcp-Session-Id");
    std::mutex mutex;
    std::string events;
    std::thread reader([&] {
        httplib::Client s("127.0.0.1", port);
        s.set_read_timeout(30, 0);
        (void)s.Get("/mcp",
                    {{"Accept", "text/event-stream"}, {"Mcp-Session-Id", session}},
                    [&](const char* data, std::size_t n) {
                        std::lock_guard lock(mutex);
                        events.append(data, n);
                        return true;
                    });
    });
    const auto has_message = [&] {
        std::lock_guard lock(mutex);
        return events.find("notifications/message") != std::string::npos;
    };
    // The stream may open after the first setLevel: each one makes the backend log again.
    for (int attempt = 0; attempt < 20 && !has_message(); ++attempt) {
        auto r =
            c.Post("/mcp",
                   {{"Accept", "application/json, text/event-stream"}, {"Mcp-Session-Id", session}},
                   R"({"jsonrpc":"2.0","id":2,"method":"logging/setLevel",)"
                   R"("params":{"level":"info"}})",
                   "application/json");
        REQUIRE(r);
        CHECK(r->status == 200);
        CHECK(r->body.find(R"("result":{})") != std::string::npos);
        std::this_thread::sleep_for(milliseconds(200));
    }
    ::kill(gw.pid(), SIGTERM);  // ends the stream
    reader.join();
    REQUIRE(gw.wait_exit(kShutdownBound).has_value());
    CHECK(events.find(R"("logger":"loud/fake")") != std::string::npos);
    CHECK(events.find(R"("data":"level info")") != std::string::npos);
    CHECK(events.find("chatter") == std::string::npos);  // debug: below the level asked
}

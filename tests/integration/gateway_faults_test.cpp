// gateway_faults_test.cpp: scout-gateway against misbehaving backends (tests/support/
// fake_mcp_backend.cpp) and hostile client input, driven over stdio. Each case checks that the
// gateway stays up, answers with a clear error within a bounded time, keeps answering ping, and
// shuts down within 2 s. The liveness bounds are generous (sanitizer builds run them too); they
// catch hangs and head-of-line blocking, not speed. gateway_limits_test.cpp: the thread, queue and
// byte limits of calls, and backends' log messages.
#include <httplib.h>
#include <signal.h>
#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <regex>

#include <catch2/catch.hpp>

#include "support/gateway_process.hpp"
#include "support/gateway_rig.hpp"
#include "support/sanitized.hpp"
#include "support/temp_dir.hpp"

using namespace scout::test::gateway_rig;  // Rig, its waits, Json, milliseconds

TEST_CASE("backends that hang at initialize or tools/list do not take the gateway down",
          "[gateway][faults]") {
    TempDir logs;
    Rig rig(
        Json{{"good", backend()},
             {"stuck_init", backend({"--hang-at", "initialize", "--log", logs.file("init.log")})},
             {"stuck_list", backend({"--hang-at", "tools/list", "--log", logs.file("list.log")})}},
        {"--request-timeout-ms", "300"});
    GatewayProcess& gw = *rig.gw;
    REQUIRE(gw.initialize());
    CHECK(echo_works(gw, "good", milliseconds(5000)));
    // Until both stuck backends have timed out and been restarted (each start is a fresh
    // process), pinging all along.
    const auto restarted = [&] {
        const std::string err = gw.stderr_text();
        return count(err, "backend 'stuck_init' started") >= 2 &&
               count(err, "backend 'stuck_list' started") >= 2;
    };
    const auto deadline = Clock::now() + milliseconds(10000);
    while (!restarted() && Clock::now() < deadline) {
        CHECK(ping_time(gw) < kPingBound);
        std::this_thread::sleep_for(milliseconds(20));
    }
    INFO("stderr:\n" << gw.stderr_text());
    REQUIRE(restarted());
    CHECK_FALSE(gw.wait_exit(milliseconds(0)).has_value());
    CHECK(gw.stderr_text().find("initialize failed: initialize timed out after 300 ms") !=
          std::string::npos);
    CHECK(gw.stderr_text().find("tools/list failed: tools/list timed out after 300 ms") !=
          std::string::npos);
    // The timed-out tools/list was cancelled on the backend (initialize must never be).
    CHECK(log_shows(
        logs.file("list.log"), R"(notifications/cancelled \d+ timeout)", milliseconds(1000)));
    CHECK(read_file(logs.file("init.log")).find("initialize") != std::string::npos);
    CHECK(read_file(logs.file("init.log")).find("notifications/cancelled") == std::string::npos);
    CHECK(echo_works(gw, "good", milliseconds(2000)));
    rig.shutdown_cleanly();
}

TEST_CASE("a tools/call that times out is an isError result and is cancelled on the backend",
          "[gateway][faults]") {
    TempDir logs;
    Rig rig(Json{{"fake", backend({"--log", logs.file("fake.log")})}},
            {"--call-timeout-ms", "300"});
    GatewayProcess& gw = *rig.gw;
    REQUIRE(gw.initialize());
    REQUIRE(echo_works(gw, "fake", milliseconds(5000)));
    // Once the backend is indexed, the doctor's summary of it is logged (soon after the commit).
    const auto logged = Clock::now() + milliseconds(5000);
    while (gw.stderr_text().find(" doctor: ") == std::string::npos && Clock::now() < logged) {
        std::this_thread::sleep_for(milliseconds(20));
    }
    CHECK(gw.stderr_text().find(" doctor: ") != std::string::npos);
    CHECK(gw.stderr_text().find("tools on 1 servers") != std::string::npos);
    const auto start = Clock::now();
    auto r = gw.wait_for(gw.execute_id("fake", "hang", Json::object()), milliseconds(5000));
    const auto took = Clock::now() - start;
    INFO("answer: " << (r ? r->dump() : "none") << "\nstderr:\n" << gw.stderr_text());
    REQUIRE(is_error_result(r));
    CHECK(result_text(r).find("timed out after 300 ms") != std::string::npos);
    CHECK(took < milliseconds(3000));
    CHECK(log_shows(
        logs.file("fake.log"), R"(notifications/cancelled \d+ timeout)", milliseconds(2000)));
    CHECK(echo_works(gw, "fake", milliseconds(2000)));
    rig.shutdown_cleanly();
}

TEST_CASE("a client's notifications/cancelled reaches the backend and the call is not answered",
          "[gateway][faults]") {
    TempDir logs;
    Rig rig(Json{{"fake", backend({"--log", logs.file("fake.log")})}},
            {"--call-timeout-ms", "20000"});
    GatewayProcess& gw = *rig.gw;
    REQUIRE(gw.initialize());
    REQUIRE(echo_works(gw, "fake", milliseconds(5000)));
    const std::size_t calls_before = count(read_file(logs.file("fake.log")), "tools/call");
    const Json id = gw.execute_id("fake", "hang", Json::object());
    auto log_has = [&](const std::string& what, milliseconds within) {
        return log_shows(logs.file("fake.log"), what, within);
    };
    // Cancelled before it reached the backend, the call would never be sent at all.
    const auto deadline = Clock::now() + milliseconds(3000);
    while (count(read_file(logs.file("fake.log")), "tools/call") == calls_before &&
           Clock::now() < deadline) {
        std::this_thread::sleep_for(milliseconds(10));
    }
    REQUIRE(count(read_file(logs.file("fake.log")), "tools/call") == calls_before + 1);
    gw.send(Json{{"jsonrpc", "2.0"},
                 {"method", "notifications/cancelled"},
                 {"params", {{"requestId", id}, {"reason", "user pressed stop"}}}});
    INFO("stderr:\n" << gw.stderr_text());
    CHECK(log_has(R"(notifications/cancelled \d+ user pressed stop)", milliseconds(3000)));
    // The receiver of a cancellation does not answer the cancelled request.
    CHECK_FALSE(gw.wait_for(id, milliseconds(300)).has_value());
    CHECK(ping_time(gw) < kPingBound);
    rig.shutdown_cleanly();
}

TEST_CASE("a backend that stops reading its stdin times calls out and stops within the bound",
          "[gateway][faults]") {
    Rig rig(Json{{"good", backend()}, {"stuck", backend({"--stop-reading", "--ignore-sigterm"})}},
            {"--call-timeout-ms", "500"});
    GatewayProcess& gw = *rig.gw;
    REQUIRE(gw.initialize());
    REQUIRE(echo_works(gw, "good", milliseconds(5000)));
    const std::string megabyte(1 << 20, 'm');
    const auto start = Clock::now();
    const Json big = gw.execute_id("stuck", "echo", Json{{"text", megabyte}});
    const Json second = gw.execute_id("stuck", "echo", Json{{"text", "small"}});
    // The first ping waits behind the 1 MB line's parsing (the client's own doing, slow in
    // Debug builds); the next one measures the gateway with the calls stuck on the backend.
    REQUIRE(gw.request("ping", Json::object(), milliseconds(10000)).has_value());
    CHECK(ping_time(gw) < kPingBound);
    auto r1 = gw.wait_for(big, milliseconds(5000));
    auto r2 = gw.wait_for(second, milliseconds(5000));
    INFO("stderr:\n" << gw.stderr_text());
    CHECK(is_error_result(r1));
    CHECK(is_error_result(r2));
    CHECK(Clock::now() - start < milliseconds(4000));
    CHECK(echo_works(gw, "good", milliseconds(2000)));
    CHECK(ping_time(gw) < kPingBound);
    rig.shutdown_cleanly();
}

TEST_CASE("a backend flooding list_changed, writing garbage or dying mid-answer is survived",
          "[gateway][faults]") {
    TempDir logs;
    // 'dying' leaves a helper holding its stdout: no EOF tells the gateway it died.
    Rig rig(Json{{"flood", backend({"--flood-list-changed", "20000"})},
                 {"garbage", backend({"--garbage"})},
                 {"dying", backend({"--helper-holding-stdout", "--log", logs.file("dying.log")})}},
            {"--call-timeout-ms", "3000"});
    GatewayProcess& gw = *rig.gw;
    REQUIRE(gw.initialize());
    CHECK(echo_works(gw, "flood", milliseconds(5000)));
    CHECK(echo_works(gw, "garbage", milliseconds(5000)));
    REQUIRE(echo_works(gw, "dying", milliseconds(5000)));
    CHECK(ping_time(gw) < kPingBound);

    const auto start = Clock::now();
    auto died = gw.wait_for(gw.execute_id("dying", "die", Json::object()), milliseconds(5000));
    INFO("answer: " << (died ? died->dump() : "none") << "\nstderr:\n" << gw.stderr_text());
    CHECK(is_error_result(died));
    CHECK(Clock::now() - start < milliseconds(2000));    // the exit fails the call, no timeout wait
    CHECK(echo_works(gw, "dying", milliseconds(5000)));  // restarted
    // The helper of the dead process went with it (its process group was swept).
    std::smatch helper;
    const std::string dying_log = read_file(logs.file("dying.log"));
    REQUIRE(std::regex_search(dying_log, helper, std::regex(R"(helper (\d+))")));
    CHECK(process_gone(static_cast<pid_t>(std::stol(helper[1])), milliseconds(2000)));

    for (int i = 0; i < 5; ++i) {
        CHECK(ping_time(gw) < kPingBound);
        CHECK(echo_works(gw, "flood", milliseconds(2000)));
        CHECK(echo_works(gw, "garbage", milliseconds(2000)));
    }
    const std::string err = gw.stderr_text();
    // Malformed lines are logged, but a flood of them does not flood the log.
    CHECK(err.find("malformed") != std::string::npos);
    CHECK(count(err, "\n") < 200);
    // The flood re-lists a few times, never once per notification; the client hears of it only
    // when the answer to tools/list changed (backends coming up, 'dying' leaving and coming
    // back), never once per notification either.
    CHECK(count(err, "backend 'flood' tool list changed") < 100);
    std::size_t notes = 0;
    for (const Json& m : gw.unaddressed()) {
        notes += m.value("method", std::string()) == "notifications/tools/list_changed";
    }
    CHECK(notes < 20);
    rig.shutdown_cleanly();
}

TEST_CASE("200 concurrent calls with 50 hung: ping stays fast and the 150 others succeed",
          "[gateway][faults]") {
    Rig rig(Json{{"fake", backend()}}, {"--call-timeout-ms", "30000"});
    GatewayProcess& gw = *rig.gw;
    REQUIRE(gw.initialize());
    REQUIRE(echo_works(gw, "fake", milliseconds(5000)));

    std::atomic<bool> done{false};
    std::atomic<long> worst_ping{0};
    std::atomic<int> pings{0};
    std::thread pinger([&] {
        while (!done.load()) {
            const long t = ping_time(gw).count();
            worst_ping.store(std::max(worst_ping.load(), t));
            ++pings;
            std::this_thread::sleep_for(milliseconds(10));
        }
    });
    std::vector<Json> hung;
    std::vector<Json> good;
    for (int i = 0; i < 200; ++i) {
        if (i % 4 == 0) {
            hung.push_back(gw.execute_id("fake", "hang", Json::object()));
        } else {
            std::string text = "n";  // (not "n" + to_string: GCC 12 warns falsely, -Wrestrict)
            text += std::to_string(i);
            good.push_back(gw.execute_id("fake", "echo", Json{{"text", text}}));
        }
    }
    int ok = 0;
    for (std::size_t i = 0; i < good.size(); ++i) {
        auto r = gw.wait_for(good[i], milliseconds(10000));
        ok += r && !is_error_result(r) && result_text(r).rfind("echo: n", 0) == 0;
    }
    // A few more pings with every hung call in flight.
    const int pings_then = pings.load();
    while (pings.load() < pings_then + 5) {
        std::this_thread::sleep_for(milliseconds(10));
    }
    done.store(true);
    pinger.join();
    INFO("stderr:\n" << gw.stderr_text());
    CHECK(ok == 150);
    CHECK(pings.load() >= 5);
    CHECK(worst_ping.load() < kPingBound.count());
    // Shutting down with 50 calls hung: each still gets an answer, within the bound.
    rig.shutdown_cleanly();
    int answered = 0;
    for (const Json& id : hung) {
        answered += is_error_result(gw.wait_for(id, milliseconds(0)));
    }
    CHECK(answered == 50);
}

TEST_CASE("SIGTERM stops the gateway and every backend within the bound, even hung ones",
          "[gateway][faults]") {
    Rig rig(Json{{"fake", backend({"--ignore-sigterm"})},
                 {"stuck", backend({"--stop-reading", "--ignore-sigterm"})},
                 {"stuck_init", backend({"--hang-at", "initialize", "--ignore-sigterm"})}},
            {"--startup-timeout-ms", "500", "--request-timeout-ms", "60000"});
    GatewayProcess& gw = *rig.gw;
    REQUIRE(gw.initialize());
    REQUIRE(echo_works(gw, "fake", milliseconds(5000)));
    for (int i = 0; i < 5; ++i) {
        (void)gw.execute_id("fake", "hang", Json::object());
        (void)gw.execute_id("stuck", "echo", Json{{"text", std::string(100000, 'x')}});
    }
    // Answered after the calls' lines, so those calls are in flight now.
    REQUIRE(gw.request("ping", Json::object(), milliseconds(10000)).has_value());
    const std::vector<pid_t> pids = backend_pids(gw.stderr_text());
    REQUIRE(pids.size() == 3);
    const auto start = Clock::now();
    ::kill(gw.pid(), SIGTERM);
    auto status = gw.wait_exit(kShutdownBound);
    INFO("stderr:\n" << gw.stderr_text());
    REQUIRE(status.has_value());
    CHECK(Clock::now() - start < kShutdownBound);
    CHECK(WIFEXITED(*status));
    for (pid_t pid : pids) {
        CHECK(process_gone(pid, milliseconds(1000)));
    }
}

TEST_CASE("deeply nested JSON from the client or a backend is refused, not a crash",
          "[gateway][faults]") {
    Rig rig(Json{{"fake", backend()}, {"deep_list", backend({"--deep-schema"})}},
            {"--call-timeout-ms", "3000"});
    GatewayProcess& gw = *rig.gw;
    REQUIRE(gw.initialize());
    REQUIRE(echo_works(gw, "fake", milliseconds(5000)));

    // The client: execute_tool arguments nested 100000 deep (a 200 KB line).
    const std::string deep(100000, '[');
    gw.send_line(
        R"({"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"execute_tool","arguments":)"
        R"({"tool_name":"echo","server_name":"fake","arguments":{"text":)" +
        deep + std::string(100000, ']') + "}}}}");
    auto refused = gw.wait_for("deep", milliseconds(5000));
    INFO("answer: " << (refused ? refused->dump().substr(0, 300) : "none") << "\nstderr:\n"
                    << gw.stderr_text());
    REQUIRE(refused.has_value());
    REQUIRE(refused->contains("error"));
    CHECK((*refused)["error"]["code"] == -32600);
    CHECK((*refused)["error"]["message"].get<std::string>().find("nested deeper than") !=
          std::string::npos);

    // A backend: a tools/call result nested 100000 deep.
    auto r =
        gw.wait_for(gw.execute_id("fake", "deep", Json{{"depth", 100000}}), milliseconds(5000));
    CHECK(is_error_result(r));
    CHECK(result_text(r).find("nested deeper than") != std::string::npos);
    // Nesting within the limit passes.
    auto shallow =
        gw.wait_for(gw.execute_id("fake", "deep", Json{{"depth", 50}}), milliseconds(5000));
    CHECK((shallow && !is_error_result(shallow)));

    // A backend: one tool's inputSchema nested 100000 deep. That tool is skipped, the others serve.
    CHECK(echo_works(gw, "deep_list", milliseconds(5000)));
    CHECK(gw.stderr_text().find("deep_schema_tool") != std::string::npos);
    CHECK(count(gw.stderr_text(), "backend 'deep_list' started") == 1);
    CHECK(ping_time(gw) < kPingBound);
    rig.shutdown_cleanly();
}

TEST_CASE("backend results and tools the gateway cannot pass on are refused one by one",
          "[gateway][faults]") {
    Rig rig(Json{{"fake", backend({"--big-annotation"})}}, {"--call-timeout-ms", "3000"});
    GatewayProcess& gw = *rig.gw;
    REQUIRE(gw.initialize());
    REQUIRE(echo_works(gw, "fake", milliseconds(5000)));
    // One oversized annotation skips that tool only; the backend is indexed once and stays up.
    INFO("stderr:\n" << gw.stderr_text());
    CHECK(gw.stderr_text().find("'big_annotation_tool'") != std::string::npos);
    CHECK(count(gw.stderr_text(), "backend 'fake' started") == 1);
    auto skipped = gw.wait_for(gw.execute_id("fake", "big_annotation_tool", Json::object()),
                               milliseconds(5000));
    CHECK(is_error_result(skipped));
    // A result that is not an object becomes an isError result.
    auto scalar = gw.wait_for(gw.execute_id("fake", "scalar", Json::object()), milliseconds(5000));
    CHECK(is_error_result(scalar));
    // Size-limit errors quote a clipped value, not the whole of it.
    auto unknown = gw.wait_for(gw.execute_id("fake", std::string(1 << 20, 'q'), Json::object()),
                               milliseconds(5000));
    REQUIRE(is_error_result(unknown));
    CHECK(result_text(unknown).size() < 400);
    auto method = gw.request(std::string(100000, 'z'), Json::object(), milliseconds(5000));
    REQUIRE((method && method->contains("error")));
    CHECK((*method)["error"]["message"].get<std::string>().size() < 300);
    rig.shutdown_cleanly();
}

TEST_CASE("an over-long client line is discarded as it streams in and answered once",
          "[gateway][faults]") {
    Rig rig(Json::object(), {"--max-message-bytes", "1048576"});
    GatewayProcess& gw = *rig.gw;
    REQUIRE(gw.initialize());
    const std::size_t before = gw.peak_rss_kib();
    // 200 MB without a newline, sent in pieces, then a ping on the next line.
    const std::string piece(1 << 20, 'x');
    for (int i = 0; i < 200; ++i) {
        REQUIRE(gw.send_bytes(piece));
    }
    REQUIRE(gw.send_bytes("\n"));
    CHECK(ping_time(gw) < milliseconds(5000));
    const std::size_t after = gw.peak_rss_kib();
    INFO("peak RSS " << before << " KiB before, " << after << " KiB after\nstderr:\n"
                     << gw.stderr_text());
    CHECK(after - before < 64 * 1024);
    std::size_t too_large = 0;
    for (const Json& m : gw.unaddressed()) {
        too_large += m.contains("error") && m["error"]["code"] == -32600;
    }
    CHECK(too_large == 1);
    rig.shutdown_cleanly();
}

TEST_CASE("requests before initialize are refused, ping is not", "[gateway][faults]") {
    Rig rig(Json{{"fake", backend()}});
    GatewayProcess& gw = *rig.gw;
    auto early = gw.request("tools/list", Json::object(), milliseconds(5000));
    REQUIRE(early.has_value());
    CHECK(early->contains("error"));
    auto early_call = gw.request("tools/call",
                                 Json{{"name", "tool_search"}, {"arguments", {{"query", "echo"}}}},
                                 milliseconds(5000));
    REQUIRE(early_call.has_value());
    CHECK(early_call->contains("error"));
    auto ping = gw.request("ping", Json::object(), milliseconds(5000));
    REQUIRE(ping.has_value());
    CHECK(ping->contains("result"));
    REQUIRE(gw.initialize());
    auto later = gw.request("tools/list", Json::object(), milliseconds(5000));
    REQUIRE(later.has_value());
    CHECK(later->contains("result"));
    rig.shutdown_cleanly();
}

TEST_CASE("a config value of the wrong type is a clear error and exit code 2",
          "[gateway][faults]") {
    for (const char* config : {R"({"mcpServers":{"a":{"command":"x","disabled":"true"}}})",
                               R"({"mcpServers":{"bad\u001bname":{"command":"x"}}})"}) {
        TempDir dir;
        const std::string path = dir.write("servers.json", config);
        GatewayProcess gw(gateway_path(), {"--config", path}, dir.file("stderr.txt"));
        auto status = gw.wait_exit(milliseconds(5000));
        INFO(config << "\nstderr:\n" << gw.stderr_text());
        REQUIRE(status.has_value());
        CHECK(WIFEXITED(*status));
        CHECK(WEXITSTATUS(*status) == 2);
        CHECK(gw.stderr_text().find("mcpServers.") != std::string::npos);
        CHECK(gw.stderr_text().find('\x1b') == std::string::npos);
    }
}

TEST_CASE("a FIFO or a device given to --templates ends start-up at once with exit code 2",
          "[gateway][faults]") {
    TempDir dir;
    const std::string config =
        dir.write("servers.json", R"({"mcpServers":{"a":{"command":"unused"}}})");
    const std::string fifo = dir.file("templates.fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);  // no writer: a blocking open would never return
    for (const std::string& odd : {fifo, std::string("/dev/zero")}) {
        GatewayProcess gw(gateway_path(),
                          {"--config", config, "--embedder", "none", "--templates", odd},
                          dir.file("stderr.txt"));
        // /dev/zero read whole took 16 s and 6 GB; the FIFO hung start-up for good.
        auto status = gw.wait_exit(milliseconds(5000));
        INFO(odd << "\nstderr:\n" << gw.stderr_text());
        REQUIRE(status.has_value());
        CHECK(WIFEXITED(*status));
        CHECK(WEXITSTATUS(*status) == 2);
        CHECK(gw.stderr_text().find(odd + ": not a regular file") != std::string::npos);
    }
}

TEST_CASE("tool listings that never end are cut by pages and by bytes", "[gateway][faults]") {
    Rig rig(Json{{"many_pages", backend({"--endless-pages", "10"})},
                 {"big_pages", backend({"--endless-pages", "1048576"})}},
            {"--restart-backoff-ms", "60000", "--max-listing-bytes", "8388608"});
    GatewayProcess& gw = *rig.gw;
    REQUIRE(gw.initialize());
    const auto deadline = Clock::now() + milliseconds(30000);
    const auto both_cut = [&] {
        const std::string err = gw.stderr_text();
        return err.find(
                   "'many_pages' tools/list failed: tools/list did not end after 1000 pages") !=
                   std::string::npos &&
               err.find(
                   "'big_pages' tools/list failed: tools/list pages add up to over 8388608 "
                   "bytes") != std::string::npos;
    };
    while (!both_cut() && Clock::now() < deadline) {
        std::this_thread::sleep_for(milliseconds(20));
    }
    INFO("stderr:\n" << gw.stderr_text());
    CHECK(both_cut());
    CHECK(ping_time(gw) < kPingBound);
    rig.shutdown_cleanly();
}

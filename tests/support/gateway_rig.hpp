// gateway_rig.hpp: scout-gateway run as a process in front of fake backends
// (fake_mcp_backend.cpp), in a scratch directory, with the waits the fault tests share: ping
// times, the backend's message log, echo calls, and backend processes that should be gone.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "support/gateway_process.hpp"
#include "support/sanitized.hpp"
#include "support/temp_dir.hpp"

namespace scout::test::gateway_rig {

using scout::test::Clock;
using scout::test::GatewayProcess;
using scout::test::Json;
using scout::test::TempDir;
using std::chrono::milliseconds;

using scout::test::kSanitized;

/// Longest accepted ping round trip while backends misbehave. Sanitizer builds run several
/// times slower on a shared machine, so they get more room; both are far below the seconds a
/// blocked reading thread costs.
inline const milliseconds kPingBound{kSanitized ? 500 : 100};
/// Longest accepted shutdown, stdin EOF or SIGTERM to exit.
inline const milliseconds kShutdownBound{2000};

inline std::string gateway_path() {
    const char* override = std::getenv("SCOUT_TEST_GATEWAY");
    return override != nullptr && *override != '\0' ? override : SCOUT_GATEWAY_PATH;
}

inline Json backend(std::vector<std::string> args = {}) {
    return Json{{"command", SCOUT_FAKE_BACKEND_PATH}, {"args", std::move(args)}};
}

/// One gateway in front of `servers`, in a scratch directory.
struct Rig {
    TempDir dir;
    std::unique_ptr<GatewayProcess> gw;

    explicit Rig(const Json& servers, std::vector<std::string> flags = {}) {
        const std::string config = dir.write("servers.json", Json{{"mcpServers", servers}}.dump());
        std::vector<std::string> args{"--config",
                                      config,
                                      "--embedder",
                                      "none",
                                      "--startup-timeout-ms",
                                      "5000",
                                      "--restart-backoff-ms",
                                      "100"};
        args.insert(args.end(), flags.begin(), flags.end());
        gw = std::make_unique<GatewayProcess>(gateway_path(), args, dir.file("stderr.txt"));
    }

    /// Closes stdin and checks the gateway exits cleanly within kShutdownBound.
    void shutdown_cleanly() {
        const auto start = Clock::now();
        gw->close_stdin();
        auto status = gw->wait_exit(kShutdownBound);
        const auto took = std::chrono::duration_cast<milliseconds>(Clock::now() - start).count();
        INFO("stderr:\n" << gw->stderr_text());
        REQUIRE(status.has_value());
        CHECK(WIFEXITED(*status));
        CHECK(WEXITSTATUS(*status) == 0);
        CHECK(took < kShutdownBound.count());
        CHECK(gw->bad_lines() == 0);
        CHECK(gw->stderr_text().find("Sanitizer") == std::string::npos);
    }
};

inline std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

/// Waits at most `within` for the fake backend's message log to match `pattern`.
inline bool log_shows(const std::string& path, const std::string& pattern, milliseconds within) {
    const auto deadline = Clock::now() + within;
    for (;;) {
        if (std::regex_search(read_file(path), std::regex(pattern))) {
            return true;
        }
        if (Clock::now() >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(milliseconds(20));
    }
}

/// Round trip of one ping, or a huge value when none came within 5 s.
inline milliseconds one_ping(GatewayProcess& gw) {
    const auto start = Clock::now();
    auto r = gw.request("ping", Json::object(), milliseconds(5000));
    if (!r || !r->contains("result")) {
        return milliseconds(999999);
    }
    return std::chrono::duration_cast<milliseconds>(Clock::now() - start);
}

/// How long the gateway takes to answer ping: the faster of two pings in a row. A blocked
/// reading thread makes both slow (seconds); the machine's scheduler, shared by several builds,
/// can delay any single one, which is not what these tests are about.
inline milliseconds ping_time(GatewayProcess& gw) {
    const milliseconds first = one_ping(gw);
    return first < kPingBound ? first : std::min(first, one_ping(gw));
}

inline bool is_error_result(const std::optional<Json>& r) {
    return r && r->contains("result") && (*r)["result"].value("isError", false);
}

inline std::string result_text(const std::optional<Json>& r) {
    if (!r || !r->contains("result")) {
        return r ? r->dump() : "(no answer)";
    }
    const Json& content = (*r)["result"].value("content", Json::array());
    return content.empty() ? std::string() : content[0].value("text", std::string());
}

/// Calls echo on `server` until it answers (a backend that is still starting or restarting).
inline bool echo_works(GatewayProcess& gw, const std::string& server, milliseconds within) {
    const auto deadline = Clock::now() + within;
    while (Clock::now() < deadline) {
        auto r =
            gw.wait_for(gw.execute_id(server, "echo", Json{{"text", "hi"}}), milliseconds(5000));
        if (r && !is_error_result(r) && result_text(r) == "echo: hi") {
            return true;
        }
        std::this_thread::sleep_for(milliseconds(50));
    }
    return false;
}

inline std::size_t count(const std::string& text, const std::string& needle) {
    std::size_t n = 0;
    for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) {
        ++n;
    }
    return n;
}

/// True once `pid` has exited (gone, or a zombie nobody reaped yet), waiting at most `within`.
inline bool process_gone(pid_t pid, milliseconds within) {
    const auto deadline = Clock::now() + within;
    for (;;) {
        if (::kill(pid, 0) != 0 && errno == ESRCH) {
            return true;
        }
        const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
        const auto paren = stat.rfind(')');
        if (paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z') {
            return true;
        }
        if (Clock::now() >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(milliseconds(10));
    }
}

inline std::vector<pid_t> backend_pids(const std::string& stderr_text) {
    std::vector<pid_t> pids;
    const std::regex started(R"(started \(pid (\d+)\))");
    for (std::sregex_iterator it(stderr_text.begin(), stderr_text.end(), started), end; it != end;
         ++it) {
        pids.push_back(static_cast<pid_t>(std::stol((*it)[1])));
    }
    return pids;
}

}  // namespace scout::test::gateway_rig

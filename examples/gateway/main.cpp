// main.cpp: scout-gateway, an MCP server on stdio that fronts the MCP servers of a
// Claude-Desktop-style config with two meta-tools (tool_search, execute_tool).
#include <signal.h>

#include <charconv>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <string>

#include "config.hpp"
#include "embedder_choice.hpp"
#include "gateway.hpp"
#include "log.hpp"

namespace {

constexpr const char* kUsage =
    "usage: scout-gateway --config servers.json [options]\n"
    "  --config FILE            backends, as {\"mcpServers\": {name: {command, args, env}}}\n"
    "  --expose search|all      serve the two meta-tools (default) or every tool, prefixed\n"
    "  --embedder static[:PATH]|hashing[:DIM]|none   dense branch embedder (default static;\n"
    "                           BM25 only when the static model is not installed)\n"
    "  --environment LABEL      this connector's environment; searches see only its servers\n"
    "  --templates FILE         JSON file overriding the meta-tool description templates\n"
    "  --startup-timeout-ms N   wait at most N ms for backends before serving (default 30000)\n"
    "  --call-timeout-ms N      tools/call timeout per backend call (default 120000)\n"
    "  --restart-backoff-ms N   first restart delay of a crashed backend (default 250)\n"
    "Logs go to stderr; stdout carries only JSON-RPC.\n";

/// Client lines beyond this are refused; MCP requests are small.
constexpr std::size_t kMaxClientLine = 16u << 20;

int usage_error(const std::string& message) {
    scout::gateway::log_line(message);
    std::cerr << kUsage;
    return 2;
}

bool parse_ms(const std::string& text, std::chrono::milliseconds& out) {
    long long v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size() || v < 0) {
        return false;
    }
    out = std::chrono::milliseconds(v);
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace scout;
    std::string config_path;
    std::string embedder_spec = "static";
    std::string templates_path;
    mcp::Connector connector;
    gateway::BackendTimings timings;
    std::chrono::milliseconds startup_timeout{30000};
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::cerr << kUsage;
            return 0;
        }
        if (i + 1 >= argc) {
            return usage_error("missing value for " + arg);
        }
        const std::string value = argv[++i];
        if (arg == "--config") {
            config_path = value;
        } else if (arg == "--expose") {
            if (value != "search" && value != "all") {
                return usage_error("--expose must be search or all");
            }
            connector.tool_search_enabled = value == "search";
        } else if (arg == "--embedder") {
            embedder_spec = value;
        } else if (arg == "--environment") {
            connector.environment = value;
        } else if (arg == "--templates") {
            templates_path = value;
        } else if (arg == "--startup-timeout-ms") {
            if (!parse_ms(value, startup_timeout)) {
                return usage_error("--startup-timeout-ms needs a whole number");
            }
        } else if (arg == "--call-timeout-ms") {
            if (!parse_ms(value, timings.call_timeout) || timings.call_timeout.count() == 0) {
                return usage_error("--call-timeout-ms needs a positive whole number");
            }
        } else if (arg == "--restart-backoff-ms") {
            if (!parse_ms(value, timings.initial_backoff) || timings.initial_backoff.count() == 0) {
                return usage_error("--restart-backoff-ms needs a positive whole number");
            }
        } else {
            return usage_error("unknown option " + arg);
        }
    }
    if (config_path.empty()) {
        return usage_error("--config FILE is required");
    }
    auto backends = gateway::load_config(config_path);
    if (!backends) {
        return usage_error(backends.status().message());
    }
    if (!templates_path.empty()) {
        auto templates = mcp::load_templates(templates_path);
        if (!templates) {
            return usage_error(templates.status().message());
        }
        connector.templates = std::move(templates.value());
    }
    auto embedder = gateway::make_embedder(embedder_spec);
    if (!embedder) {
        return usage_error(embedder.status().message());
    }
    auto catalog = Catalog::create({}, embedder.value());
    if (!catalog) {
        return usage_error(catalog.status().to_string());
    }

    ::signal(SIGPIPE, SIG_IGN);  // a dead backend's pipe must not kill the gateway
    std::mutex out_mutex;
    auto write = [&out_mutex](const std::string& line) {
        std::lock_guard lock(out_mutex);
        std::fwrite(line.data(), 1, line.size(), stdout);
        std::fputc('\n', stdout);
        std::fflush(stdout);
    };
    gateway::Gateway gw(catalog.value(), std::move(backends.value()), connector, timings, write);
    gw.start(startup_timeout);
    gateway::log_line("serving on stdio");

    std::string line;
    while (std::getline(std::cin, line)) {
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        if (line.find_first_not_of(" \t") == std::string::npos) {
            continue;
        }
        if (line.size() > kMaxClientLine) {
            write(gateway::to_line(gateway::make_error(nullptr, gateway::kInvalidRequest, "Invalid Request: message too large")));
            continue;
        }
        gw.handle_line(line);
    }
    gateway::log_line("stdin closed; shutting down");
    gw.shutdown();
    return 0;
}

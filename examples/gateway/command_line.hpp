// command_line.hpp: scout-gateway's options, one table (tools/args) that the parser accepts
// exactly and --help prints: each option with its help text and what it sets.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scout/mcp/meta_tools.hpp"
#include "scout/token_counter.hpp"

#include "args/args.hpp"
#include "backend.hpp"
#include "http_server.hpp"
#include "http_transport.hpp"

namespace scout::gateway {

/// What the command line sets, with the defaults of a gateway started without options.
struct CommandLine {
    std::string config_path;
    /// The embedder options given (name with its dashes, value), applied over the config's.
    std::vector<std::pair<std::string, std::string>> embedder_args;
    std::string templates_path;
    /// --calibration: the fusion calibration file, over the config's "calibration".
    std::string calibration_path;
    mcp::Connector connector;
    BackendTimings timings;
    std::chrono::milliseconds startup_timeout{30000};
    std::size_t max_message_bytes = 16u << 20;  ///< MCP requests are small
    TokenEncoding encoding = TokenEncoding::cl100k_base;
    std::string listen;
    std::string auth_path;
    HttpOptions http;
    TlsFiles tls;
    /// --registry: the PostgreSQL registry's URL (empty: none), its password file.
    std::string registry_url;
    std::string registry_password_file;
    /// --registry-degraded-ttl-s: how long a server the registry holds as DEGRADED stays in
    /// search after its last listing (unset: the replica's default, 24 h).
    std::optional<std::chrono::seconds> registry_degraded_ttl;
    /// --registry-base-dir: where the registry's bases are published (empty: the replica
    /// reads the change log from sequence 0).
    std::string registry_base_dir;
    bool check_only = false;
    bool version = false;
};

/// The table of every option, each setting its part of `into` as it is parsed. `into` must
/// outlive the table.
[[nodiscard]] args::CommandSpec gateway_options(CommandLine& into);

}  // namespace scout::gateway

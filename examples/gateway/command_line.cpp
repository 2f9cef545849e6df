// command_line.cpp: see command_line.hpp.
#include "command_line.hpp"

#include <charconv>
#include <limits>
#include <memory>
#include <optional>

#include "args/values.hpp"
#include "built_components.hpp"
#include "embedder_options.hpp"
#include "log.hpp"

namespace scout::gateway {
namespace {

using args::OptionSpec;
using Setter = std::function<std::string(const std::string&)>;

constexpr std::uint64_t kNoMaximum = std::numeric_limits<std::uint64_t>::max();
/// The longest timeout or delay accepted: a week.
constexpr std::uint64_t kMaxMilliseconds = std::uint64_t{7} * 24 * 3600 * 1000;

/// Sets `out` to a whole number of at least 1.
Setter positive_count(std::size_t& out) {
    return [&out](const std::string& v) { return args::read_whole_into(v, 1, kNoMaximum, out); };
}

/// Sets `out` to a whole number of milliseconds in [min, a week].
Setter milliseconds(std::chrono::milliseconds& out, std::uint64_t min) {
    return [&out, min](const std::string& v) {
        std::uint64_t ms = 0;
        std::string refused = args::read_whole(v, min, kMaxMilliseconds, ms);
        if (refused.empty()) {
            out = std::chrono::milliseconds(static_cast<std::chrono::milliseconds::rep>(ms));
        }
        return refused;
    };
}

/// The longest degraded TTL accepted: 30 days.
constexpr std::uint64_t kMaxDegradedTtlSeconds = std::uint64_t{30} * 24 * 3600;

/// Sets `out` to a whole number of seconds in [1, 30 days].
Setter ttl_seconds(std::optional<std::chrono::seconds>& out) {
    return [&out](const std::string& v) {
        std::uint64_t s = 0;
        std::string refused = args::read_whole(v, 1, kMaxDegradedTtlSeconds, s);
        if (refused.empty()) {
            out = std::chrono::seconds(static_cast<std::chrono::seconds::rep>(s));
        }
        return refused;
    };
}

/// Sets `out` to the value as it is.
Setter text(std::string& out) {
    return [&out](const std::string& v) {
        out = v;
        return std::string();
    };
}

/// "R" or "R:B" of --rate-limit: R > 0 requests per second, a burst B >= 1 (default max(1, R)).
std::optional<RateLimit> parse_rate(const std::string& value) {
    const std::size_t colon = value.find(':');
    const std::string r = value.substr(0, colon);
    double rate = 0;
    auto [ptr, ec] = std::from_chars(r.data(), r.data() + r.size(), rate);
    if (ec != std::errc() || ptr != r.data() + r.size() || !(rate > 0) || rate > 1e6) {
        return std::nullopt;
    }
    double burst = rate > 1 ? rate : 1;
    if (colon != std::string::npos) {
        const std::string b = value.substr(colon + 1);
        auto [bptr, bec] = std::from_chars(b.data(), b.data() + b.size(), burst);
        if (bec != std::errc() || bptr != b.data() + b.size() || !(burst >= 1) || burst > 1e6) {
            return std::nullopt;
        }
    }
    return RateLimit{rate, burst};
}

/// An embedder option, kept to be applied over the config's "embedder" settings.
OptionSpec embedder_option(CommandLine& into,
                           std::string name,
                           std::string value,
                           std::string help,
                           bool repeatable = false) {
    const std::string flag = "--" + name;
    return OptionSpec{std::move(name),
                      std::move(value),
                      "",
                      std::move(help),
                      repeatable,
                      [&into, flag](const std::string& v) {
                          into.embedder_args.emplace_back(flag, v);
                          return std::string();
                      }};
}

std::vector<OptionSpec> general_options(CommandLine& c) {
    return {
        {"config",
         "FILE",
         "",
         "backends, as {\"mcpServers\": {name: {command, args, env}}}; required; SIGHUP reloads "
         "its servers and pinned tools",
         false,
         text(c.config_path)},
        {"check-config",
         "",
         "",
         "check the config, auth file, templates, calibration and embedder settings given, start "
         "nothing, print \"config ok\" (exit 0) or every error (exit 2)",
         false,
         [&c](const std::string&) {
             c.check_only = true;
             return std::string();
         }},
        {"expose",
         "search|all",
         "search",
         "serve the two meta-tools or every tool, prefixed",
         false,
         [&c](const std::string& v) {
             if (v != "search" && v != "all") {
                 return std::string("must be search or all");
             }
             c.connector.tool_search_enabled = v == "search";
             return std::string();
         }},
        {"environment",
         "LABEL",
         "",
         "this connector's environment; searches see only its servers",
         false,
         text(c.connector.environment)},
        {"templates",
         "FILE",
         "",
         "JSON file overriding the meta-tool description templates",
         false,
         text(c.templates_path)},
        {"calibration",
         "FILE",
         "",
         "fusion settings fitted to the embedder by `scout calibrate`, applied to the catalog "
         "(refused for another model); also the config's \"calibration\"; SIGHUP rechecks it, "
         "a change needs a restart",
         false,
         text(c.calibration_path)},
        {"startup-timeout-ms",
         "N",
         "30000",
         "the first tools/list and tools/call wait at most N ms for the backends to start",
         false,
         milliseconds(c.startup_timeout, 0)},
        {"request-timeout-ms",
         "N",
         "30000",
         "timeout of a backend's initialize and tools/list",
         false,
         milliseconds(c.timings.request_timeout, 1)},
        {"call-timeout-ms",
         "N",
         "120000",
         "tools/call timeout per backend call",
         false,
         milliseconds(c.timings.call_timeout, 1)},
        {"restart-backoff-ms",
         "N",
         "250",
         "first restart delay of a crashed backend",
         false,
         milliseconds(c.timings.initial_backoff, 1)},
        {"max-message-bytes",
         "N",
         "16777216",
         "longest client message accepted",
         false,
         positive_count(c.max_message_bytes)},
        {"max-listing-bytes",
         "N",
         "67108864",
         "most bytes of one backend's tools/list pages together; a backend over it is DEGRADED",
         false,
         positive_count(c.timings.max_listing_bytes)},
        {"doctor-report",
         "FILE",
         "",
         "write the catalog doctor's JSON report of every backend to FILE each time one is "
         "indexed (the log has a one-line summary)",
         false,
         [&c](const std::string& v) {
             c.timings.doctor_report = std::make_shared<DoctorReportFile>(v);
             return std::string();
         }},
        {"token-encoding",
         "NAME",
         "cl100k_base",
         "cl100k_base or o200k_base: the BPE counter of tool_search's max_tokens (rank files "
         "from scripts/setup.sh)",
         false,
         [&c](const std::string& v) {
             const auto parsed = parse_token_encoding(v);
             if (!parsed) {
                 return std::string("must be cl100k_base or o200k_base");
             }
             c.encoding = *parsed;
             return std::string();
         }},
        {"max-tokens",
         "N",
         "none",
         "default token budget of a tool_search answer",
         false,
         positive_count(c.connector.max_tokens)},
        {"registry",
         "URL",
         "",
         "share the catalog through a PostgreSQL registry (docs/scale-out.md): backends' "
         "listings are pushed there and searches follow it; the password from PGPASSWORD, "
         "PGPASSFILE or --registry-password-file, never the URL",
         false,
         text(c.registry_url)},
        {"registry-password-file",
         "FILE",
         "",
         "the registry's password, the file's first line",
         false,
         text(c.registry_password_file)},
        {"registry-base-dir",
         "DIR",
         "",
         "start the replica from the newest base published in DIR (scout registry publish), "
         "then the change log after it",
         false,
         text(c.registry_base_dir)},
        {"registry-degraded-ttl-s",
         "N",
         "86400",
         "a server whose backend went down (DEGRADED in the registry) stays in every replica's "
         "search, marked degraded, until N s after its last listing",
         false,
         ttl_seconds(c.registry_degraded_ttl)},
        {"learn",
         "",
         "",
         "learn from executions: record each execute_tool outcome with the query that offered "
         "the tool, and re-rank tool_search with it",
         false,
         [&c](const std::string&) {
             c.connector.outcome_prior = true;
             return std::string();
         }},
        {"log-format",
         "text|json",
         "text",
         "stderr lines as text or one JSON object each",
         false,
         [](const std::string& v) {
             const auto format = parse_log_format(v);
             if (!format) {
                 return std::string("must be text or json");
             }
             set_log_format(*format);
             return std::string();
         }},
        {"log-level",
         "error|warn|info|debug",
         "info",
         "lines at this level and above",
         false,
         [](const std::string& v) {
             const auto level = parse_log_level(v);
             if (!level) {
                 return std::string("must be error, warn, info or debug");
             }
             set_log_level(*level);
             return std::string();
         }},
        {"version",
         "",
         "",
         "print the version and exit",
         false,
         [&c](const std::string&) {
             c.version = true;
             return std::string();
         }},
    };
}

std::vector<OptionSpec> embedder_options(CommandLine& c) {
    return {
        embedder_option(
            c,
            "embedder",
            "SPEC",
            "static[:PATH], glove, transformer:DIR, http, hashing[:DIM] or none: the "
            "dense branch's embedder (default static; BM25 only when the static model "
            "is not installed); also the config's \"embedder\"" SCOUT_LEFT_OUT_HELP_NOTE),
        embedder_option(c,
                        "embedder-url",
                        "URL",
                        "with http: the service, https:// or http://; requests go to "
                        "URL/embeddings (key: $SCOUT_EMBEDDER_API_KEY, else $OPENAI_API_KEY, "
                        "Azure $AZURE_OPENAI_API_KEY; proxies: $HTTPS_PROXY, $NO_PROXY)"),
        embedder_option(c,
                        "embedder-model",
                        "NAME",
                        "with http: the model of each request (Azure: the deployment)"),
        embedder_option(c,
                        "embedder-dimensions",
                        "N",
                        "with http: ask for N dimensions (default: learned by a probe)"),
        embedder_option(c,
                        "embedder-api-version",
                        "V",
                        "with http: Azure OpenAI's api-version (key sent as api-key)"),
        embedder_option(c, "embedder-header", "'K: V'", "with http: an extra request header", true),
        embedder_option(c,
                        "embedder-ca",
                        "FILE",
                        "with http: CA bundle for https (default $SCOUT_CA_BUNDLE, else the "
                        "system's)"),
        embedder_option(c,
                        "embedder-allow-cleartext-key",
                        "",
                        "with http: allow the key over plain http to a host that is not "
                        "loopback (refused otherwise)"),
    };
}

std::vector<OptionSpec> http_options(CommandLine& c) {
    return {
        {"listen",
         "HOST:PORT",
         "",
         "serve MCP Streamable HTTP on http://HOST:PORT/mcp (and /metrics, /healthz, /readyz) "
         "instead of stdio; loopback only without --auth-file",
         false,
         text(c.listen)},
        {"auth-file",
         "FILE",
         "",
         "bearer tokens and their scopes (docs/gateway.md); SIGHUP reloads it",
         false,
         text(c.auth_path)},
        {"allowed-origin",
         "ORIGIN",
         "",
         "a browser origin besides loopback ones that may call",
         true,
         [&c](const std::string& v) {
             c.http.allowed_origins.push_back(v);
             return std::string();
         }},
        {"tls-cert",
         "FILE",
         "",
         "serve HTTPS (TLS 1.2+) with this PEM certificate chain ...",
         false,
         text(c.tls.certificate_chain)},
        {"tls-key", "FILE", "", "... and this PEM private key", false, text(c.tls.private_key)},
        {"rate-limit",
         "R[:B]",
         "",
         "R requests per second, bursts of B (default max(1, R)), per caller without its own "
         "\"rate\" (per address without --auth-file); 429 with Retry-After beyond",
         false,
         [&c](const std::string& v) {
             const auto rate = parse_rate(v);
             if (!rate) {
                 return std::string(
                     "must be R or R:B (R > 0 requests per second, at most 1000000, and a burst "
                     "B >= 1)");
             }
             c.http.limits.rate = *rate;
             return std::string();
         }},
    };
}

std::vector<OptionSpec> http_limit_options(CommandLine& c) {
    HttpLimits& l = c.http.limits;
    HttpServerLimits& s = l.server;
    return {
        {"max-connections",
         "N",
         "512",
         "connections open at once",
         false,
         positive_count(s.max_connections)},
        {"max-connections-per-address",
         "N",
         "256",
         "from one client address",
         false,
         positive_count(s.max_connections_per_address)},
        {"max-header-bytes",
         "N",
         "16384",
         "a request's whole head; 431 beyond",
         false,
         positive_count(s.max_header_bytes)},
        {"max-body-bytes",
         "N",
         "4194304",
         "a request body, sized or chunked; 413 beyond",
         false,
         positive_count(s.max_body_bytes)},
        {"head-timeout-ms",
         "N",
         "10000",
         "a request's whole head, TLS handshake included",
         false,
         milliseconds(s.head_timeout, 1)},
        {"body-timeout-ms",
         "N",
         "30000",
         "a request's whole body; 408 beyond",
         false,
         milliseconds(s.body_timeout, 1)},
        {"write-timeout-ms",
         "N",
         "10000",
         "one response or stream write to a client",
         false,
         milliseconds(s.write_timeout, 1)},
        {"keep-alive-ms",
         "N",
         "5000",
         "an idle connection between requests",
         false,
         milliseconds(s.keep_alive, 1)},
        {"max-sessions",
         "N",
         "1024",
         "sessions of every caller",
         false,
         positive_count(l.max_sessions)},
        {"max-sessions-per-caller",
         "N",
         "128",
         "beyond it the caller's oldest session ends",
         false,
         positive_count(l.max_sessions_per_caller)},
        {"max-streams",
         "N",
         "256",
         "event streams open at once",
         false,
         positive_count(l.max_streams)},
        {"max-streams-per-caller",
         "N",
         "16",
         "event streams of one caller",
         false,
         positive_count(l.max_streams_per_caller)},
        {"max-calls",
         "N",
         "256",
         "backend calls in flight, every caller",
         false,
         positive_count(l.max_calls)},
        {"max-calls-per-caller",
         "N",
         "16",
         "backend calls in flight per caller; 429 beyond",
         false,
         positive_count(l.max_calls_per_caller)},
    };
}

}  // namespace

args::CommandSpec gateway_options(CommandLine& into) {
    return args::CommandSpec{
        "scout-gateway",
        "",
        "An MCP server on stdio (or Streamable HTTP with --listen) in front of the MCP servers of\n"
        "--config, serving their tools through two meta-tools, tool_search and execute_tool.",
        {{"Gateway", general_options(into)},
         {"Embedder (over the config's \"embedder\")", embedder_options(into)},
         {"Streamable HTTP", http_options(into)},
         {"HTTP limits (docs/gateway.md, \"Limits and defaults\")", http_limit_options(into)}},
        "Every FILE must be a regular file: a FIFO, a device or a directory is refused at once.\n"
        "Logs go to stderr; on stdio, stdout carries only JSON-RPC.\n"
        "Exit codes: 0 served until SIGTERM or SIGINT (or the stdio client left), --check-config\n"
        "found no error, --help, --version; 2 a bad argument or file, an address that cannot be\n"
        "bound, or --check-config found errors.\n"};
}

}  // namespace scout::gateway

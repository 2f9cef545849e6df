// main.cpp: scout-gateway, an MCP server on stdio (or Streamable HTTP with --listen) that fronts
// the MCP servers of a Claude-Desktop-style config with two meta-tools (tool_search,
// execute_tool).
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "scout/catalog.hpp"
#include "scout/token_counter.hpp"
#if SCOUT_GATEWAY_REGISTRY
#include "scout/registry/registry.hpp"
#endif

#include "config.hpp"
#include "embedder_choice.hpp"
#include "gateway.hpp"
#include "http_transport.hpp"
#include "line_reader.hpp"
#include "line_writer.hpp"
#include "log.hpp"

namespace {

constexpr const char* kUsage =
    "usage: scout-gateway --config servers.json [options]\n"
    "  --config FILE            backends, as {\"mcpServers\": {name: {command, args, env}}}\n"
    "  --check-config           check the config, auth file, templates and embedder settings\n"
    "                           given, start nothing, print \"config ok\" (exit 0) or every\n"
    "                           error (exit 2)\n"
    "  --expose search|all      serve the two meta-tools (default) or every tool, prefixed\n"
    "  --embedder static[:PATH]|glove|transformer:DIR|http|hashing[:DIM]|none\n"
    "                           dense branch embedder (default static; BM25 only when the static\n"
    "                           model is not installed); also the config's \"embedder\"\n"
    "  --embedder-url URL       with http: the service, https:// or http://; requests go to\n"
    "                           URL/embeddings (key: $SCOUT_EMBEDDER_API_KEY, else\n"
    "                           $OPENAI_API_KEY, Azure $AZURE_OPENAI_API_KEY; proxies:\n"
    "                           $HTTPS_PROXY, $NO_PROXY)\n"
    "  --embedder-model NAME    with http: the model of each request (Azure: the deployment)\n"
    "  --embedder-dimensions N  with http: ask for N dimensions (default: learned by a probe)\n"
    "  --embedder-api-version V with http: Azure OpenAI's api-version (key sent as api-key)\n"
    "  --embedder-header 'K: V' with http: an extra request header (repeatable)\n"
    "  --embedder-ca FILE       with http: CA bundle for https (default $SCOUT_CA_BUNDLE, else\n"
    "                           the system's)\n"
    "  --embedder-allow-cleartext-key   with http: allow the key over plain http to a host\n"
    "                           that is not loopback (refused otherwise)\n"
    "  --environment LABEL      this connector's environment; searches see only its servers\n"
    "  --templates FILE         JSON file overriding the meta-tool description templates\n"
    "  --startup-timeout-ms N   the first tools/list and tools/call wait at most N ms for the\n"
    "                           backends to start (default 30000)\n"
    "  --request-timeout-ms N   timeout of a backend's initialize and tools/list (default 30000)\n"
    "  --call-timeout-ms N      tools/call timeout per backend call (default 120000)\n"
    "  --restart-backoff-ms N   first restart delay of a crashed backend (default 250)\n"
    "  --max-message-bytes N    longest client message accepted (default 16777216)\n"
    "  --max-listing-bytes N    most bytes of one backend's tools/list pages together\n"
    "                           (default 67108864); a backend over it is DEGRADED\n"
    "  --doctor-report FILE     write the catalog doctor's JSON report of every backend to FILE\n"
    "                           each time one is indexed (the log has a one-line summary)\n"
    "  --token-encoding NAME    cl100k_base or o200k_base: the BPE counter of tool_search's\n"
    "                           max_tokens (default cl100k_base; rank files from "
    "scripts/setup.sh)\n"
    "  --max-tokens N           default token budget of a tool_search answer (default none)\n"
    "  --registry URL           share the catalog through a PostgreSQL registry\n"
    "                           (docs/scale-out.md): backends' listings are pushed there and\n"
    "                           searches follow it; the password from PGPASSWORD, PGPASSFILE or\n"
    "                           --registry-password-file, never the URL\n"
    "  --registry-password-file FILE   the registry's password, the file's first line\n"
    "  --learn                  learn from executions: record each execute_tool outcome with\n"
    "                           the query that offered the tool, and re-rank tool_search with it\n"
    "  --listen HOST:PORT       serve MCP Streamable HTTP on http://HOST:PORT/mcp (and\n"
    "                           /metrics, /healthz, /readyz) instead of stdio; loopback only\n"
    "                           without --auth-file\n"
    "  --auth-file FILE         bearer tokens and their scopes (docs/gateway.md); SIGHUP\n"
    "                           reloads it\n"
    "  --allowed-origin ORIGIN  a browser origin besides loopback ones that may call (repeatable)\n"
    "  --tls-cert FILE          serve HTTPS (TLS 1.2+) with this PEM certificate chain ...\n"
    "  --tls-key FILE           ... and this PEM private key\n"
    "  HTTP limits (docs/gateway.md, \"Limits and defaults\"), each a positive whole number:\n"
    "  --max-connections N      connections open at once (default 512)\n"
    "  --max-connections-per-address N  from one client address (default 256)\n"
    "  --max-header-bytes N     a request's whole head (default 16384; 431 beyond)\n"
    "  --max-body-bytes N       a request body, sized or chunked (default 4194304; 413)\n"
    "  --head-timeout-ms N      a request's whole head, TLS handshake included (default 10000)\n"
    "  --body-timeout-ms N      a request's whole body (default 30000; 408 beyond)\n"
    "  --write-timeout-ms N     one response or stream write to a client (default 10000)\n"
    "  --keep-alive-ms N        an idle connection between requests (default 5000)\n"
    "  --max-sessions N         sessions of every caller (default 1024)\n"
    "  --max-sessions-per-caller N  beyond it the caller's oldest session ends (default 128)\n"
    "  --max-streams N          event streams open at once (default 256)\n"
    "  --max-streams-per-caller N   (default 16)\n"
    "  --max-calls N            backend calls in flight, every caller (default 256)\n"
    "  --max-calls-per-caller N backend calls in flight per caller (default 16; 429 beyond)\n"
    "  --log-format text|json   stderr lines as text (default) or one JSON object each\n"
    "  --log-level error|warn|info|debug   lines at this level and above (default info)\n"
    "  --rate-limit R[:B]       R requests per second, bursts of B (default max(1, R)), per\n"
    "                           caller without its own \"rate\" (per address without\n"
    "                           --auth-file); 429 with Retry-After beyond\n"
    "Every FILE must be a regular file: a FIFO, a device or a directory is refused at once.\n"
    "  --version                print the version and exit\n"
    "  --help                   print this and exit\n"
    "Logs go to stderr; on stdio, stdout carries only JSON-RPC.\n"
    "Exit codes: 0 served until SIGTERM or SIGINT (or the stdio client left), --check-config\n"
    "found no error, --help, --version; 2 a bad argument or file, an address that cannot be\n"
    "bound, or --check-config found errors.\n";

#if SCOUT_GATEWAY_REGISTRY
/// The replica's position for /metrics: names no server.
std::string registry_metrics(const scout::registry::ReplicaStats& s) {
    const std::uint64_t lag = s.head_seq > s.applied_seq ? s.head_seq - s.applied_seq : 0;
    std::string out;
    auto series = [&out](const char* name, const char* type, const char* help, std::uint64_t v) {
        out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" +
               name + " " + std::to_string(v) + "\n";
    };
    series("scout_registry_applied_seq", "gauge", "Last registry change applied.", s.applied_seq);
    series("scout_registry_head_seq", "gauge", "Registry head when last seen.", s.head_seq);
    series("scout_registry_lag", "gauge", "Registry changes seen but not applied yet.", lag);
    series("scout_registry_failures_total", "counter", "Failed catch-up attempts.", s.failures);
    series("scout_registry_reconnects_total", "counter", "Reconnections.", s.reconnects);
    series("scout_registry_gaps_total", "counter", "Gaps in the change log.", s.gaps);
    series("scout_registry_resyncs_total", "counter", "Full reads of the registry.", s.resyncs);
    return out;
}
#endif

/// Answers waiting for a client that reads slowly; beyond this their writers wait.
constexpr std::size_t kMaxQueuedOutput = 64u << 20;
/// How long answers still queued at shutdown may take to reach the client.
constexpr std::chrono::milliseconds kOutputFlushGrace{500};

/// " (did you mean --max-calls?)" when an option of the usage text is within two edits of
/// `arg`, else "".
std::string did_you_mean(const std::string& arg) {
    auto distance = [](const std::string& a, const std::string& b) {
        std::vector<std::size_t> row(b.size() + 1);
        for (std::size_t j = 0; j <= b.size(); ++j) {
            row[j] = j;
        }
        for (std::size_t i = 1; i <= a.size(); ++i) {
            std::size_t diagonal = row[0];
            row[0] = i;
            for (std::size_t j = 1; j <= b.size(); ++j) {
                const std::size_t above = row[j];
                row[j] = std::min(
                    {row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0U : 1U)});
                diagonal = above;
            }
        }
        return row[b.size()];
    };
    const std::string_view usage = kUsage;
    std::string best;
    std::size_t best_distance = 3;
    for (std::size_t at = usage.find("--"); at != std::string_view::npos;
         at = usage.find("--", at + 2)) {
        std::size_t end = at + 2;
        while (end < usage.size() &&
               (std::isalnum(static_cast<unsigned char>(usage[end])) != 0 || usage[end] == '-')) {
            ++end;
        }
        const std::string option(usage.substr(at, end - at));
        if (option.size() > 2 && arg.size() < 64) {
            if (const std::size_t d = distance(arg, option); d < best_distance) {
                best_distance = d;
                best = option;
            }
        }
    }
    return best.empty() ? "" : " (did you mean " + best + "?)";
}

/// A bad argument: the message, and where the options are (the whole usage only on --help).
int usage_error(const std::string& message) {
    scout::gateway::log_line(scout::gateway::LogLevel::error, message);
    std::cerr << "run 'scout-gateway --help' for the options\n";
    return 2;
}

bool parse_count(const std::string& text, std::size_t& out) {
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && ptr == text.data() + text.size() && out > 0;
}

/// The field `flag` names in `table`, or nullptr.
template <class T>
T* find_flag(std::initializer_list<std::pair<const char*, T*>> table, const std::string& flag) {
    for (const auto& [name, field] : table) {
        if (flag == name) {
            return field;
        }
    }
    return nullptr;
}

/// The HTTP limit a count flag sets, or nullptr.
std::size_t* http_count_flag(scout::gateway::HttpLimits& l, const std::string& flag) {
    return find_flag<std::size_t>(
        {{"--max-connections", &l.server.max_connections},
         {"--max-connections-per-address", &l.server.max_connections_per_address},
         {"--max-header-bytes", &l.server.max_header_bytes},
         {"--max-body-bytes", &l.server.max_body_bytes},
         {"--max-sessions", &l.max_sessions},
         {"--max-sessions-per-caller", &l.max_sessions_per_caller},
         {"--max-streams", &l.max_streams},
         {"--max-streams-per-caller", &l.max_streams_per_caller},
         {"--max-calls", &l.max_calls},
         {"--max-calls-per-caller", &l.max_calls_per_caller}},
        flag);
}

/// The HTTP deadline a milliseconds flag sets, or nullptr.
std::chrono::milliseconds* http_ms_flag(scout::gateway::HttpServerLimits& l,
                                        const std::string& flag) {
    return find_flag<std::chrono::milliseconds>({{"--head-timeout-ms", &l.head_timeout},
                                                 {"--body-timeout-ms", &l.body_timeout},
                                                 {"--write-timeout-ms", &l.write_timeout},
                                                 {"--keep-alive-ms", &l.keep_alive}},
                                                flag);
}

/// "R" or "R:B" of --rate-limit: R > 0 requests per second, a burst B >= 1 (default max(1, R)).
bool parse_rate(const std::string& text, scout::gateway::RateLimit& out) {
    const std::size_t colon = text.find(':');
    const std::string r = text.substr(0, colon);
    double rate = 0;
    auto [ptr, ec] = std::from_chars(r.data(), r.data() + r.size(), rate);
    if (ec != std::errc() || ptr != r.data() + r.size() || !(rate > 0) || rate > 1e6) {
        return false;
    }
    double burst = rate > 1 ? rate : 1;
    if (colon != std::string::npos) {
        const std::string b = text.substr(colon + 1);
        auto [bptr, bec] = std::from_chars(b.data(), b.data() + b.size(), burst);
        if (bec != std::errc() || bptr != b.data() + b.size() || !(burst >= 1) || burst > 1e6) {
            return false;
        }
    }
    out = scout::gateway::RateLimit{rate, burst};
    return true;
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

/// --check-config: every file given is read and checked as a start would, but no backend is
/// started, no model loaded, no service contacted and no port bound. 0 when all is well, else
/// 2 with every error on stderr (one per file: each parser stops at its first).
int check_configuration(const std::string& config_path,
                        const std::string& auth_path,
                        const std::string& templates_path,
                        const std::vector<std::pair<std::string, std::string>>& embedder_args) {
    using namespace scout;
    std::vector<std::string> errors;
    std::size_t servers = 0;
    if (auto config = gateway::load_gateway_config(config_path); !config) {
        errors.push_back(config.status().message());
    } else {
        servers = config->backends.size();
        gateway::EmbedderSettings embedder;
        Status s = gateway::load_embedder_config(config_path, embedder);
        for (const auto& [name, value] : embedder_args) {
            if (s.ok()) {
                s = gateway::apply_embedder_option(name, value, embedder);
            }
        }
        if (s.ok()) {
            s = gateway::check_embedder_settings(embedder);
        }
        if (!s.ok()) {
            errors.push_back(s.message());
        }
    }
    std::string callers = "no auth file";
    if (!auth_path.empty()) {
        if (auto auth = gateway::AuthTable::load(auth_path); !auth) {
            errors.push_back(auth.status().message());
        } else {
            callers = std::to_string(auth->size()) + (auth->size() == 1 ? " caller" : " callers") +
                      gateway::jwt_summary(*auth);
        }
    }
    if (!templates_path.empty()) {
        if (auto templates = mcp::load_templates(templates_path); !templates) {
            errors.push_back(templates.status().message());
        }
    }
    if (!errors.empty()) {
        for (const std::string& e : errors) {
            std::cerr << "error: " << e << "\n";
        }
        std::cerr << errors.size() << (errors.size() == 1 ? " error\n" : " errors\n");
        return 2;
    }
    std::cout << "config ok: " << servers << (servers == 1 ? " server" : " servers") << " enabled, "
              << callers << std::endl;
    return 0;
}

/// Serves the client on stdin/stdout until stdin closes or the wake pipe is woken (a signal).
void serve_stdio(scout::gateway::Gateway& gw,
                 std::size_t max_message_bytes,
                 scout::gateway::WakePipe& stop_reading) {
    using namespace scout;
    gateway::LineSplitter lines(max_message_bytes);
    auto handle = [&](const gateway::LineEvent& event) {
        if (event.kind == gateway::LineEvent::Kind::oversized) {
            gw.handle_oversized(event.bytes, max_message_bytes);
        } else if (event.text.find_first_not_of(" \t") != std::string::npos) {
            gw.handle_line(event.text);
        }
    };
    char chunk[65536];
    for (;;) {
        while (auto event = lines.next()) {
            handle(*event);
        }
        const ssize_t n = gateway::read_or_wake(STDIN_FILENO, stop_reading, chunk, sizeof chunk);
        if (n == gateway::kWoken) {
            break;  // a signal
        }
        if (n <= 0) {
            if (auto last = lines.finish()) {
                handle(*last);
            }
            gateway::log_line("stdin closed; shutting down");
            break;
        }
        lines.feed(std::string_view(chunk, static_cast<std::size_t>(n)));
    }
}

/// Lets the signal thread stop the HTTP transport, or hand it a reloaded auth table, whether the
/// signal comes before it serves, while it serves or after.
struct HttpStopSwitch {
    std::mutex mutex;
    bool stop_requested = false;
    scout::gateway::HttpTransport* transport = nullptr;
    std::shared_ptr<const scout::gateway::AuthTable> reloaded;  ///< for a transport yet to come

    void stop() {
        std::lock_guard lock(mutex);
        stop_requested = true;
        if (transport != nullptr) {
            transport->stop();
        }
    }

    scout::Status reload_auth(std::shared_ptr<const scout::gateway::AuthTable> auth) {
        std::lock_guard lock(mutex);
        if (transport != nullptr) {
            return transport->reload_auth(std::move(auth));
        }
        reloaded = std::move(auth);
        return {};
    }
};

/// SIGHUP: reads the auth file again. A file that does not parse leaves the callers as they were
/// (and says why); a good one replaces them at once.
void reload_auth_file(const std::string& auth_path, HttpStopSwitch& http_stop) {
    using namespace scout;
    if (auth_path.empty()) {
        gateway::log_line("SIGHUP: no --auth-file to reload; ignored");
        return;
    }
    auto auth = gateway::AuthTable::load(auth_path);
    if (!auth) {
        gateway::log_line("SIGHUP: the auth file was not reloaded, the previous callers stay: " +
                          auth.status().message());
        return;
    }
    const std::size_t callers = auth->size();
    const std::string jwt = gateway::jwt_summary(*auth);
    if (Status s = http_stop.reload_auth(
            std::make_shared<const gateway::AuthTable>(std::move(auth.value())));
        !s.ok()) {
        gateway::log_line("SIGHUP: the auth file was not reloaded: " + s.message());
        return;
    }
    gateway::log_line("SIGHUP: auth file reloaded, " + std::to_string(callers) + " callers" + jwt);
}

/// Serves Streamable HTTP until the switch is thrown (SIGTERM or SIGINT). stdin is not read.
int serve_http(scout::gateway::Gateway& gw,
               scout::gateway::HttpOptions options,
               std::chrono::milliseconds startup_timeout,
               HttpStopSwitch& stop_switch) {
    using namespace scout;
    const std::string where = options.address.host + ":" + std::to_string(options.address.port);
    const bool authenticated = options.auth != nullptr;
    // Bodies and floods of large heads come and go: large blocks are mapped and unmapped
    // rather than kept in the heap (glibc would otherwise raise its mmap threshold after the
    // first free and keep a flood's memory), and one connection per descriptor needs room.
    ::mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    if (rlimit files{};
        ::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        (void)::setrlimit(RLIMIT_NOFILE, &files);
    }
    const bool tls = options.tls.has_value();
    gateway::HttpTransport transport(gw, std::move(options));
    if (Status s = transport.bind(); !s.ok()) {
        gateway::log_line(s.message());
        return 2;
    }
    gw.start(startup_timeout);
    {
        std::lock_guard lock(stop_switch.mutex);
        if (stop_switch.stop_requested) {
            return 0;
        }
        stop_switch.transport = &transport;
        if (stop_switch.reloaded) {  // a SIGHUP while the backends started
            (void)transport.reload_auth(std::move(stop_switch.reloaded));
            stop_switch.reloaded.reset();
        }
    }
    gateway::log_line(std::string("serving Streamable HTTP on ") + (tls ? "https://" : "http://") +
                      where + "/mcp (port " + std::to_string(transport.port()) + ", " +
                      (authenticated ? "bearer tokens required" : "no authentication") + ")");
    transport.serve();
    {
        std::lock_guard lock(stop_switch.mutex);
        stop_switch.transport = nullptr;
    }
    transport.stop();
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace scout;
    // SIGTERM and SIGINT are taken by one thread (sigwait) that starts an orderly shutdown, and
    // SIGHUP by the same thread, which reloads the auth file; every thread created from here on
    // inherits the mask (children get it cleared before exec).
    sigset_t stop_signals;
    ::sigemptyset(&stop_signals);
    ::sigaddset(&stop_signals, SIGTERM);
    ::sigaddset(&stop_signals, SIGINT);
    ::sigaddset(&stop_signals, SIGHUP);
    ::pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    std::string config_path;
    std::vector<std::pair<std::string, std::string>> embedder_args;  // over the config's
    std::string templates_path;
    mcp::Connector connector;
    gateway::BackendTimings timings;
    std::chrono::milliseconds startup_timeout{30000};
    std::size_t max_message_bytes = 16u << 20;  // MCP requests are small
    TokenEncoding encoding = TokenEncoding::cl100k_base;
    std::string listen;
    std::string auth_path;
    gateway::HttpOptions http;
    gateway::TlsFiles tls;
    bool check_only = false;
    std::string registry_url;
    std::string registry_password_file;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::cout << kUsage;
            return 0;
        }
        if (arg == "--version") {
            std::cout << "scout-gateway " << scout::version() << "\n";
            return 0;
        }
        if (gateway::is_embedder_flag(arg)) {
            embedder_args.emplace_back(arg, "");
            continue;
        }
        if (arg == "--learn") {
            connector.outcome_prior = true;
            continue;
        }
        if (arg == "--check-config") {
            check_only = true;
            continue;
        }
        if (i + 1 >= argc) {
            return usage_error("missing value for " + arg);
        }
        const std::string value = argv[++i];
        if (arg == "--config") {
            config_path = value;
        } else if (arg == "--registry") {
            registry_url = value;
        } else if (arg == "--registry-password-file") {
            registry_password_file = value;
        } else if (arg == "--log-format") {
            const auto format = gateway::parse_log_format(value);
            if (!format) {
                return usage_error("--log-format must be text or json");
            }
            gateway::set_log_format(*format);
        } else if (arg == "--log-level") {
            const auto level = gateway::parse_log_level(value);
            if (!level) {
                return usage_error("--log-level must be error, warn, info or debug");
            }
            gateway::set_log_level(*level);
        } else if (arg == "--expose") {
            if (value != "search" && value != "all") {
                return usage_error("--expose must be search or all");
            }
            connector.tool_search_enabled = value == "search";
        } else if (gateway::is_embedder_option(arg)) {
            embedder_args.emplace_back(arg, value);
        } else if (arg == "--environment") {
            connector.environment = value;
        } else if (arg == "--templates") {
            templates_path = value;
        } else if (arg == "--startup-timeout-ms") {
            if (!parse_ms(value, startup_timeout)) {
                return usage_error("--startup-timeout-ms needs a whole number");
            }
        } else if (arg == "--request-timeout-ms") {
            if (!parse_ms(value, timings.request_timeout) || timings.request_timeout.count() == 0) {
                return usage_error("--request-timeout-ms needs a positive whole number");
            }
        } else if (arg == "--call-timeout-ms") {
            if (!parse_ms(value, timings.call_timeout) || timings.call_timeout.count() == 0) {
                return usage_error("--call-timeout-ms needs a positive whole number");
            }
        } else if (arg == "--max-message-bytes") {
            auto [ptr, ec] =
                std::from_chars(value.data(), value.data() + value.size(), max_message_bytes);
            if (ec != std::errc() || ptr != value.data() + value.size() || max_message_bytes == 0) {
                return usage_error("--max-message-bytes needs a positive whole number");
            }
        } else if (arg == "--max-listing-bytes") {
            auto& limit = timings.max_listing_bytes;
            auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), limit);
            if (ec != std::errc() || ptr != value.data() + value.size() || limit == 0) {
                return usage_error("--max-listing-bytes needs a positive whole number");
            }
        } else if (arg == "--doctor-report") {
            timings.doctor_report = std::make_shared<gateway::DoctorReportFile>(value);
        } else if (arg == "--token-encoding") {
            const auto parsed = parse_token_encoding(value);
            if (!parsed) {
                return usage_error("--token-encoding must be cl100k_base or o200k_base");
            }
            encoding = *parsed;
        } else if (arg == "--max-tokens") {
            auto [ptr, ec] =
                std::from_chars(value.data(), value.data() + value.size(), connector.max_tokens);
            if (ec != std::errc() || ptr != value.data() + value.size() ||
                connector.max_tokens == 0) {
                return usage_error("--max-tokens needs a positive whole number");
            }
        } else if (arg == "--listen") {
            listen = value;
        } else if (arg == "--auth-file") {
            auth_path = value;
        } else if (arg == "--allowed-origin") {
            http.allowed_origins.push_back(value);
        } else if (arg == "--tls-cert") {
            tls.certificate_chain = value;
        } else if (arg == "--tls-key") {
            tls.private_key = value;
        } else if (auto* count = http_count_flag(http.limits, arg)) {
            if (!parse_count(value, *count)) {
                return usage_error(arg + " needs a positive whole number");
            }
        } else if (auto* ms = http_ms_flag(http.limits.server, arg)) {
            if (!parse_ms(value, *ms) || ms->count() == 0) {
                return usage_error(arg + " needs a positive whole number of milliseconds");
            }
        } else if (arg == "--rate-limit") {
            scout::gateway::RateLimit rate;
            if (!parse_rate(value, rate)) {
                return usage_error(
                    "--rate-limit needs R or R:B (R > 0 requests per second, a "
                    "burst B >= 1)");
            }
            http.limits.rate = rate;
        } else if (arg == "--restart-backoff-ms") {
            if (!parse_ms(value, timings.initial_backoff) || timings.initial_backoff.count() == 0) {
                return usage_error("--restart-backoff-ms needs a positive whole number");
            }
        } else {
            return usage_error("unknown option " + arg + did_you_mean(arg));
        }
    }
    if (config_path.empty()) {
        return usage_error("--config FILE is required");
    }
    if (check_only) {
        return check_configuration(config_path, auth_path, templates_path, embedder_args);
    }
    auto config = gateway::load_gateway_config(config_path);
    if (!config) {
        return usage_error(config.status().message());
    }
    if (!listen.empty()) {
        auto address = gateway::parse_listen(listen);
        if (!address) {
            return usage_error("--listen needs HOST:PORT (e.g. 127.0.0.1:8808 or [::1]:8808)");
        }
        http.address = *address;
    } else if (!auth_path.empty() || !http.allowed_origins.empty() ||
               !tls.certificate_chain.empty() || !tls.private_key.empty() || http.limits.rate) {
        return usage_error("--auth-file, --allowed-origin, --rate-limit and --tls-* need --listen");
    }
    if (tls.certificate_chain.empty() != tls.private_key.empty()) {
        return usage_error("--tls-cert and --tls-key go together");
    }
    if (!tls.certificate_chain.empty()) {
        http.tls = tls;
    }
    if (!auth_path.empty()) {
        auto auth = gateway::AuthTable::load(auth_path);
        if (!auth) {
            return usage_error(auth.status().message());
        }
        http.auth = std::make_shared<const gateway::AuthTable>(std::move(auth.value()));
    }
    if (!templates_path.empty()) {
        auto templates = mcp::load_templates(templates_path);
        if (!templates) {
            return usage_error(templates.status().message());
        }
        connector.templates = std::move(templates.value());
    }
    // The token counter of max_tokens: without its rank files, tool_search refuses a budget
    // (and a default budget cannot be kept, so that is an error).
    if (auto counter = TokenCounter::load_default(encoding)) {
        connector.token_counter = std::make_shared<const TokenCounter>(std::move(counter.value()));
    } else if (connector.max_tokens != 0) {
        return usage_error("--max-tokens: " + counter.status().message());
    } else {
        gateway::log_line("tool_search budgets are off: " + counter.status().message());
    }
    gateway::EmbedderSettings embedder_settings;
    if (Status s = gateway::load_embedder_config(config_path, embedder_settings); !s.ok()) {
        return usage_error(s.message());
    }
    for (const auto& [name, value] : embedder_args) {
        if (Status s = gateway::apply_embedder_option(name, value, embedder_settings); !s.ok()) {
            return usage_error(s.message());
        }
    }
    auto embedder = gateway::make_embedder(embedder_settings);
    if (!embedder) {
        return usage_error(embedder.status().message());
    }
    connector.mode = gateway::search_mode(embedder.value());
    gateway::log_line(gateway::describe_embedder(embedder_settings.spec, embedder.value()));
    auto catalog = Catalog::create({}, embedder.value());
    if (!catalog) {
        return usage_error(catalog.status().to_string());
    }
    Catalog* searched = &catalog.value();
#if SCOUT_GATEWAY_REGISTRY
    std::unique_ptr<registry::Replica> replica;
    registry::ConnectOptions registry_connect;
    if (!registry_url.empty()) {
        registry_connect.url = registry_url;
        registry_connect.password_file = registry_password_file;
        registry::ReplicaOptions replica_options;
        replica_options.connect = registry_connect;
        auto made = registry::Replica::create(replica_options, embedder.value());
        if (!made) {
            return usage_error("--registry: " + made.status().message());
        }
        replica = std::move(made.value());
        // Serve what the registry holds from the start; when it cannot be reached yet, the
        // follower keeps trying and the catalog fills when it can.
        if (Status s = replica->sync(); !s.ok()) {
            gateway::log_line("registry: " + s.message() + "; following it in the background");
        } else {
            gateway::log_line("registry: at change " + std::to_string(replica->applied_seq()));
        }
        searched = &replica->catalog();
    }
#else
    if (!registry_url.empty()) {
        return usage_error("--registry: this scout-gateway was built without libpq");
    }
#endif
    (void)registry_password_file;

    ::signal(SIGPIPE, SIG_IGN);  // a dead backend's pipe must not kill the gateway
    // Responses go through a writer thread: a client slow to read holds back the threads that
    // answer it (back-pressure) but never the shutdown, which releases them.
    gateway::LineWriter out(STDOUT_FILENO, kMaxQueuedOutput, false);
    std::atomic<std::uint64_t> dropped{0};
    auto write = [&out, &dropped](const std::string& line, gateway::Gateway::Wait wait) {
        const auto when_full = wait == gateway::Gateway::Wait::allowed
                                   ? gateway::LineWriter::WhenFull::wait
                                   : gateway::LineWriter::WhenFull::fail;
        if (Status s = out.send(line, 0, when_full); !s.ok()) {
            // A client gone for good would otherwise cost a log line per answer.
            const std::uint64_t n = ++dropped;
            if (n <= 5 || n % 1000 == 0) {
                gateway::log_line("an answer to the client was dropped (" + std::to_string(n) +
                                  " so far): " + s.message());
            }
        }
    };
    gateway::WakePipe stop_reading;
    HttpStopSwitch http_stop;
    std::atomic<bool> exiting{false};
    std::thread signals([&] {
        for (;;) {
            int sig = 0;
            if (::sigwait(&stop_signals, &sig) != 0 || exiting.load()) {
                return;
            }
            if (sig == SIGHUP) {
                reload_auth_file(auth_path, http_stop);
                continue;
            }
            gateway::log_line(std::string(sig == SIGINT ? "SIGINT" : "SIGTERM") +
                              "; shutting down");
            out.release_waiters();
            stop_reading.wake();
            http_stop.stop();
        }
    });

    gateway::Gateway gw(*searched, std::move(config->backends), connector, timings, write);
    gw.set_pinned(std::move(config->pinned));
#if SCOUT_GATEWAY_REGISTRY
    if (replica) {
        std::shared_ptr<Embedder> document_embedder = embedder.value();
        registry::Replica* follower = replica.get();
        gw.set_publisher([registry_connect, document_embedder, follower](const ServerSpec& server) {
            auto pushed =
                registry::push(registry_connect, CatalogSpec{{server}}, document_embedder);
            if (!pushed.ok()) {
                return pushed.status();
            }
            // Read-your-writes: the listing is searchable here before the backend counts as
            // indexed (bounded: the follower may be reconnecting).
            if (!follower->wait_for(pushed->head_seq, std::chrono::seconds(5))) {
                gateway::log_line("registry: change " + std::to_string(pushed->head_seq) +
                                  " not applied here within 5 s; it will be");
            }
            return Status{};
        });
        gw.set_extra_metrics([&replica] { return registry_metrics(replica->stats()); });
        replica->set_on_applied([&gw](std::uint64_t) { gw.catalog_changed(); });
        replica->start();
    }
#endif
    int exit_code = 0;
    if (!listen.empty()) {
        exit_code = serve_http(gw, std::move(http), startup_timeout, http_stop);
    } else {
        gw.start(startup_timeout);
        gateway::log_line("serving on stdio");
        serve_stdio(gw, max_message_bytes, stop_reading);
    }

    out.release_waiters();
#if SCOUT_GATEWAY_REGISTRY
    if (replica) {
        replica->stop();  // no catalog_changed() once the shutdown has begun
    }
#endif
    gw.shutdown();
    (void)out.flush(std::chrono::steady_clock::now() + kOutputFlushGrace);
    out.close();
    exiting.store(true);
    ::pthread_kill(signals.native_handle(), SIGTERM);
    signals.join();
    return exit_code;
}

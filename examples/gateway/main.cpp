// main.cpp: scout-gateway, an MCP server on stdio (or Streamable HTTP with --listen) that fronts
// the MCP servers of a Claude-Desktop-style config with two meta-tools (tool_search,
// execute_tool).
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "scout/catalog.hpp"
#include "scout/token_counter.hpp"
#if SCOUT_GATEWAY_REGISTRY
#include "scout/registry/registry.hpp"
#endif

#include "args/args.hpp"
#include "command_line.hpp"
#include "config.hpp"
#include "config_reload.hpp"
#include "embedder_choice.hpp"
#include "fusion_calibration.hpp"
#include "gateway.hpp"
#include "http_transport.hpp"
#include "line_reader.hpp"
#include "line_writer.hpp"
#include "log.hpp"
#include "templates_file.hpp"

namespace {

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
    series("scout_registry_base_generation",
           "gauge",
           "Published base the replica started from (0: none).",
           s.base_generation);
    series("scout_registry_outcome_seq",
           "gauge",
           "Last fleet outcome event in this replica's prior.",
           s.outcome_seq);
    series("scout_registry_outcome_events_applied_total",
           "counter",
           "Fleet outcome events (every replica's) learned here.",
           s.outcome_events_applied);
    series("scout_registry_outcome_events_skipped_total",
           "counter",
           "Outcome events trimmed from the registry before this replica read them.",
           s.outcome_events_skipped);
    series("scout_registry_outcomes_pushed_total",
           "counter",
           "Outcomes recorded here and appended to the registry.",
           s.outcomes_pushed);
    series("scout_registry_outcomes_dropped_total",
           "counter",
           "Outcomes dropped here: queue full or over the rate cap.",
           s.outcomes_dropped);
    series("scout_registry_outcomes_queued",
           "gauge",
           "Outcomes waiting to be appended to the registry.",
           s.outcomes_queued);
    return out;
}
#endif

/// Answers waiting for a client that reads slowly; beyond this their writers wait.
constexpr std::size_t kMaxQueuedOutput = 64u << 20;
/// How long answers still queued at shutdown may take to reach the client.
constexpr std::chrono::milliseconds kOutputFlushGrace{500};

/// A bad argument: the message, and where the options are (the whole usage only on --help).
int usage_error(const std::string& message) {
    scout::gateway::log_line(scout::gateway::LogLevel::error, message);
    std::cerr << "run 'scout-gateway --help' for the options\n";
    return 2;
}

/// --check-config: every file given is read and checked as a start would, but no backend is
/// started, no model loaded, no service contacted and no port bound. 0 when all is well, else
/// 2 with every error on stderr (one per file: each parser stops at its first).
int check_configuration(const std::string& config_path,
                        const std::string& auth_path,
                        const std::string& templates_path,
                        const std::string& calibration_flag,
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
        // The file and the embedder's kind; its model is known only once the embedder is made.
        if (const std::string calibration = gateway::calibration_path(calibration_flag, *config);
            !calibration.empty()) {
            if (Status c = gateway::check_calibration_file(calibration, embedder.spec); !c.ok()) {
                errors.push_back(c.message());
            }
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
        if (auto templates = gateway::load_templates_file(templates_path); !templates) {
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
    /// The callers in force (the start's, then each reload's): a reload keeps its JWKS fetcher.
    std::shared_ptr<const scout::gateway::AuthTable> current;

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
            if (scout::Status s = transport->reload_auth(auth); !s.ok()) {
                return s;
            }
        } else {
            reloaded = auth;
        }
        current = std::move(auth);
        return {};
    }

    std::shared_ptr<const scout::gateway::AuthTable> current_auth() {
        std::lock_guard lock(mutex);
        return current;
    }
};

/// The files SIGHUP reads again, and what of them the running gateway was started with.
struct ReloadedFiles {
    std::string config_path;
    std::string auth_path;
    std::vector<std::pair<std::string, std::string>> embedder_args;  ///< over the config's
    std::string running_embedder_json;  ///< the "embedder" section the embedder was made from
    std::string calibration_flag;       ///< --calibration, over the config's "calibration"
    std::string running_embedder_spec;  ///< the spec the running embedder was made from
    std::string running_model_id;       ///< its model id as created ("": BM25 alone)
    std::optional<scout::gateway::CalibrationFile> running_calibration;  ///< in force, if any
};

/// SIGHUP: reads the config file and the auth file again, and checks both before applying
/// either: a file that does not parse keeps both as they were (and says why). Then the callers
/// are replaced at once and the servers and pinned tools as Gateway::reload does (calls in
/// flight finish on the backends they began on); an "embedder" section that changed is logged
/// as needing a restart.
void reload_files(const ReloadedFiles& files,
                  scout::gateway::Gateway& gw,
                  HttpStopSwitch& http_stop) {
    using namespace scout;
    auto refuse = [](const std::string& why) {
        gateway::log_line(gateway::LogLevel::warn,
                          "SIGHUP: not reloaded, the previous config and callers stay: " + why);
    };
    auto config = gateway::load_reloadable_config(files.config_path, files.embedder_args);
    if (!config) {
        refuse(config.status().message());
        return;
    }
    std::string calibration_change;
    if (Status s = gateway::check_reloaded_calibration(
            gateway::calibration_path(files.calibration_flag, *config),
            files.running_embedder_spec,
            files.running_model_id,
            files.running_calibration,
            calibration_change);
        !s.ok()) {
        refuse(s.message());
        return;
    }
    std::shared_ptr<const gateway::AuthTable> auth;
    if (!files.auth_path.empty()) {
        // An unchanged jwks_url keeps its running key set: the reload fetches nothing.
        const auto running = http_stop.current_auth();
        auto loaded = gateway::AuthTable::load(files.auth_path, running.get());
        if (!loaded) {
            refuse(loaded.status().message());
            return;
        }
        auth = std::make_shared<const gateway::AuthTable>(std::move(loaded.value()));
    }
    if (auth) {
        const std::string callers =
            std::to_string(auth->size()) + " callers" + gateway::jwt_summary(*auth);
        if (Status s = http_stop.reload_auth(std::move(auth)); !s.ok()) {
            refuse(s.message());
            return;
        }
        gateway::log_line("SIGHUP: auth file reloaded, " + callers);
    }
    const gateway::ReloadReport report =
        gw.reload(std::move(config->backends), std::move(config->pinned));
    gateway::log_line("SIGHUP: " + gateway::describe_reload(report));
    if (std::string why =
            gateway::embedder_change(files.running_embedder_json, config->embedder_json);
        !why.empty()) {
        gateway::log_line(gateway::LogLevel::warn, "SIGHUP: " + why);
    }
    if (!calibration_change.empty()) {
        gateway::log_line(gateway::LogLevel::warn, "SIGHUP: " + calibration_change);
    }
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
    // SIGHUP by the same thread, which reloads the config and auth files; every thread created from
    // here on inherits the mask (children get it cleared before exec).
    sigset_t stop_signals;
    ::sigemptyset(&stop_signals);
    ::sigaddset(&stop_signals, SIGTERM);
    ::sigaddset(&stop_signals, SIGINT);
    ::sigaddset(&stop_signals, SIGHUP);
    ::pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    gateway::CommandLine cl;
    const args::CommandSpec options = gateway::gateway_options(cl);
    std::string error;
    const auto parsed = args::Args::parse(argc, argv, 1, options, error);
    if (!parsed) {
        return usage_error(error);
    }
    if (parsed->help()) {
        options.print_help(std::cout);
        return 0;
    }
    if (cl.version) {
        std::cout << "scout-gateway " << scout::version() << "\n";
        return 0;
    }
    if (cl.config_path.empty()) {
        return usage_error("--config FILE is required");
    }
    if (cl.check_only) {
        return check_configuration(
            cl.config_path, cl.auth_path, cl.templates_path, cl.calibration_path, cl.embedder_args);
    }
    auto config = gateway::load_gateway_config(cl.config_path);
    if (!config) {
        return usage_error(config.status().message());
    }
    if (!cl.listen.empty()) {
        auto address = gateway::parse_listen(cl.listen);
        if (!address) {
            return usage_error("--listen needs HOST:PORT (e.g. 127.0.0.1:8808 or [::1]:8808)");
        }
        cl.http.address = *address;
    } else if (!cl.auth_path.empty() || !cl.http.allowed_origins.empty() ||
               !cl.tls.certificate_chain.empty() || !cl.tls.private_key.empty() ||
               cl.http.limits.rate) {
        return usage_error("--auth-file, --allowed-origin, --rate-limit and --tls-* need --listen");
    }
    if (cl.registry_degraded_ttl && cl.registry_url.empty()) {
        return usage_error("--registry-degraded-ttl-s needs --registry");
    }
    if (!cl.registry_base_dir.empty() && cl.registry_url.empty()) {
        return usage_error("--registry-base-dir needs --registry");
    }
    if (cl.tls.certificate_chain.empty() != cl.tls.private_key.empty()) {
        return usage_error("--tls-cert and --tls-key go together");
    }
    if (!cl.tls.certificate_chain.empty()) {
        cl.http.tls = cl.tls;
    }
    if (!cl.auth_path.empty()) {
        auto auth = gateway::AuthTable::load(cl.auth_path);
        if (!auth) {
            return usage_error(auth.status().message());
        }
        cl.http.auth = std::make_shared<const gateway::AuthTable>(std::move(auth.value()));
    }
    if (!cl.templates_path.empty()) {
        auto templates = gateway::load_templates_file(cl.templates_path);
        if (!templates) {
            return usage_error(templates.status().message());
        }
        cl.connector.templates = std::move(templates.value());
    }
    // The token counter of max_tokens: without its rank files, tool_search refuses a budget
    // (and a default budget cannot be kept, so that is an error).
    if (auto counter = TokenCounter::load_default(cl.encoding)) {
        cl.connector.token_counter =
            std::make_shared<const TokenCounter>(std::move(counter.value()));
    } else if (cl.connector.max_tokens != 0) {
        return usage_error("--max-tokens: " + counter.status().message());
    } else {
        gateway::log_line("tool_search budgets are off: " + counter.status().message());
    }
    gateway::EmbedderSettings embedder_settings;
    if (Status s = gateway::load_embedder_config(cl.config_path, embedder_settings); !s.ok()) {
        return usage_error(s.message());
    }
    for (const auto& [name, value] : cl.embedder_args) {
        if (Status s = gateway::apply_embedder_option(name, value, embedder_settings); !s.ok()) {
            return usage_error(s.message());
        }
    }
    auto embedder = gateway::make_embedder(embedder_settings);
    if (!embedder) {
        return usage_error(embedder.status().message());
    }
    cl.connector.mode = gateway::search_mode(embedder.value());
    gateway::log_line(gateway::describe_embedder(embedder_settings.spec, embedder.value()));
    // The model as created, before the catalog fits it: what a calibration names.
    const std::string model_id = embedder.value() ? embedder.value()->model_id() : std::string();
    std::string calibration_note;
    auto calibration =
        gateway::start_calibration(gateway::calibration_path(cl.calibration_path, *config),
                                   embedder_settings.spec,
                                   embedder.value(),
                                   calibration_note);
    if (!calibration) {
        return usage_error(calibration.status().message());
    }
    if (!calibration_note.empty()) {
        gateway::log_line(gateway::LogLevel::warn, calibration_note);
    }
    CatalogOptions catalog_options;
    if (calibration->has_value()) {
        catalog_options.fusion = calibration.value()->calibration.fusion;
    }
    auto catalog = Catalog::create(catalog_options, embedder.value());
    if (!catalog) {
        return usage_error(catalog.status().to_string());
    }
    Catalog* searched = &catalog.value();
#if SCOUT_GATEWAY_REGISTRY
    std::unique_ptr<registry::Replica> replica;
    registry::ConnectOptions registry_connect;
    if (!cl.registry_url.empty()) {
        registry_connect.url = cl.registry_url;
        registry_connect.password_file = cl.registry_password_file;
        registry::ReplicaOptions replica_options;
        replica_options.connect = registry_connect;
        replica_options.catalog = catalog_options;
        if (cl.registry_degraded_ttl) {
            replica_options.degraded_ttl = *cl.registry_degraded_ttl;
        }
        replica_options.base_directory = cl.registry_base_dir;
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
    if (!cl.registry_url.empty()) {
        return usage_error("--registry: this scout-gateway was built without libpq");
    }
#endif

    if (calibration->has_value()) {
        // The settings the searched catalog holds (a registry base opened by now brings its own).
        gateway::log_line(gateway::describe_calibration(**calibration, searched->options()));
    }

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
    http_stop.current = cl.http.auth;
    const std::string running_embedder_json = config->embedder_json;
    gateway::Gateway gw(*searched, std::move(config->backends), cl.connector, cl.timings, write);
    gw.set_pinned(std::move(config->pinned));
#if SCOUT_GATEWAY_REGISTRY
    if (replica) {
        // One kept connection for every listing this gateway pushes (opened again if it broke).
        auto writer = std::make_shared<registry::Writer>(registry_connect, embedder.value());
        registry::Replica* follower = replica.get();
        gw.set_publisher([writer, follower](const ServerSpec& server) {
            auto pushed = writer->push(CatalogSpec{{server}});
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
        // --learn: outcomes are learned by every replica of the fleet, this one included,
        // when they come back through the registry.
        gw.set_outcome_recorder(
            [follower](std::string_view query, const ToolKey& tool, Outcome outcome) {
                return follower->record_outcome(query, tool, outcome);
            });
        gw.set_extra_metrics([&replica] { return registry_metrics(replica->stats()); });
        replica->set_on_applied([&gw](std::uint64_t) { gw.catalog_changed(); });
        replica->start();
    }
#endif
    // The signals wait (blocked) until this thread takes them: the gateway is built by then.
    const ReloadedFiles reloaded{cl.config_path,
                                 cl.auth_path,
                                 cl.embedder_args,
                                 running_embedder_json,
                                 cl.calibration_path,
                                 embedder_settings.spec,
                                 model_id,
                                 *calibration};
    std::atomic<bool> exiting{false};
    std::thread signals([&] {
        for (;;) {
            int sig = 0;
            if (::sigwait(&stop_signals, &sig) != 0 || exiting.load()) {
                return;
            }
            if (sig == SIGHUP) {
                reload_files(reloaded, gw, http_stop);
                continue;
            }
            gateway::log_line(std::string(sig == SIGINT ? "SIGINT" : "SIGTERM") +
                              "; shutting down");
            out.release_waiters();
            stop_reading.wake();
            http_stop.stop();
        }
    });
    int exit_code = 0;
    if (!cl.listen.empty()) {
        exit_code = serve_http(gw, std::move(cl.http), cl.startup_timeout, http_stop);
    } else {
        gw.start(cl.startup_timeout);
        gateway::log_line("serving on stdio");
        serve_stdio(gw, cl.max_message_bytes, stop_reading);
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
    // Not a kill: SIGTERM is blocked in every thread, so this only wakes the signal thread's
    // sigwait, which sees `exiting` and returns.
    // NOLINTNEXTLINE(bugprone-bad-signal-to-kill-thread)
    ::pthread_kill(signals.native_handle(), SIGTERM);
    signals.join();
    return exit_code;
}

// backend.cpp: see backend.hpp.
#include "backend.hpp"

#include <set>

#include "scout/catalog_loader.hpp"
#include "scout/doctor.hpp"

#include "bounded_json.hpp"
#include "log.hpp"
#include "printable.hpp"
#include "remote_session.hpp"

namespace scout::gateway {
namespace {

std::string quote_name(const std::string& name) {
    std::string out(1, '\'');  // (not "'" + ...: GCC 12 warns falsely, -Wrestrict)
    out += detail::printable(name);
    out += '\'';
    return out;
}

/// One tools/list entry as a ToolSpec; nullopt (logged) for entries the catalog cannot take.
/// Skipping one tool keeps the rest of the backend's tools: the catalog refuses a whole
/// server over one bad tool, and a backend that lists it again after every restart would
/// otherwise never be indexed.
std::optional<ToolSpec> to_tool_spec(const std::string& server, const Json& t) {
    auto name = t.is_object() ? t.find("name") : t.end();
    if (!t.is_object() || name == t.end() || !name->is_string() ||
        name->get_ref<const std::string&>().empty() ||
        name->get_ref<const std::string&>().size() > kMaxNameBytes) {
        log_line("backend " + quote_name(server) + ": skipped a tool without a usable name");
        return std::nullopt;
    }
    ToolSpec spec;
    spec.name = name->get<std::string>();
    if (detail::has_pruned(t)) {
        log_line("backend " + quote_name(server) + ": skipped tool " + quote_name(spec.name) +
                 ": " + detail::too_deep_message());
        return std::nullopt;
    }
    spec.title = t.value("title", Json()).is_string() ? t["title"].get<std::string>() : "";
    spec.description =
        t.value("description", Json()).is_string() ? t["description"].get<std::string>() : "";
    if (auto schema = t.find("inputSchema"); schema != t.end() && schema->is_object()) {
        spec.input_schema = schema->dump(-1, ' ', false, Json::error_handler_t::replace);
    }
    if (auto ann = t.find("annotations"); ann != t.end() && ann->is_object()) {
        spec.annotations = ann->dump(-1, ' ', false, Json::error_handler_t::replace);
    }
    const auto too_big = [&](const char* what, std::size_t size, std::size_t limit) {
        if (size <= limit) {
            return false;
        }
        log_line("backend " + quote_name(server) + ": skipped tool " + quote_name(spec.name) +
                 ": its " + what + " is " + std::to_string(size) + " bytes, over the limit of " +
                 std::to_string(limit));
        return true;
    };
    if (too_big("title", spec.title.size(), kMaxNameBytes) ||
        too_big("description", spec.description.size(), kMaxDescriptionBytes) ||
        too_big("inputSchema", spec.input_schema.size(), kMaxSchemaBytes) ||
        too_big("annotations", spec.annotations.size(), kMaxSchemaBytes)) {
        return std::nullopt;
    }
    return spec;
}

}  // namespace

Backend::Backend(BackendSpec spec,
                 Catalog& catalog,
                 BackendTimings timings,
                 std::function<void()> on_indexed)
    : spec_(std::move(spec)),
      catalog_(catalog),
      timings_(std::move(timings)),
      on_indexed_(std::move(on_indexed)) {}

Backend::~Backend() {
    stop();
}

void Backend::start() {
    thread_ = std::thread([this] { run(); });
}

bool Backend::wait_first_attempt(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [this] { return first_attempt_done_ || stopping_; });
}

void Backend::request_stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    cv_.notify_all();
}

void Backend::stop() {
    std::shared_ptr<McpSession> session;
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        session = session_;
    }
    cv_.notify_all();
    if (session) {
        session->close();  // unblocks a handshake or listing in progress
    }
    if (thread_.joinable()) {
        thread_.join();
    }
}

bool Backend::sleep_for(std::chrono::milliseconds d) {
    std::unique_lock lock(mutex_);
    return !cv_.wait_for(lock, d, [this] { return stopping_; });
}

void Backend::run() {
    auto backoff = timings_.initial_backoff;
    for (;;) {
        const auto started = std::chrono::steady_clock::now();
        const bool ok = connect_and_index();
        {
            std::lock_guard lock(mutex_);
            first_attempt_done_ = true;
        }
        cv_.notify_all();
        if (ok) {
            serve_until_closed();
        }
        std::shared_ptr<McpSession> session;
        bool stopping = false;
        {
            std::lock_guard lock(mutex_);
            ready_ = false;
            session.swap(session_);
            stopping = stopping_;
        }
        // Closed here, whoever else holds it: calls in flight share the session, and only
        // close() fails them (stop() may no longer find it in session_).
        if (session) {
            session->close();
        }
        if (stopping) {
            break;
        }
        mark_degraded();
        if (std::chrono::steady_clock::now() - started >= timings_.stable_after) {
            backoff = timings_.initial_backoff;
        }
        log_line("backend " + quote_name(spec_.name) + " is DEGRADED; restarting in " +
                 std::to_string(backoff.count()) + " ms");
        if (!sleep_for(backoff)) {
            break;
        }
        backoff = std::min(backoff * 2, timings_.max_backoff);
    }
    std::shared_ptr<McpSession> session;
    {
        std::lock_guard lock(mutex_);
        session.swap(session_);
    }
    if (session) {
        session->close();
    }
}

bool Backend::connect_and_index() {
    std::uint64_t gen = 0;
    {
        std::lock_guard lock(mutex_);
        if (stopping_) {
            return false;
        }
        gen = ++generation_;
        closed_ = false;
        list_changed_ = false;
    }
    auto on_notification = [this, gen](const std::string& method, const Json& params) {
        if (method == "notifications/resources/updated") {
            auto uri = params.is_object() ? params.find("uri") : params.end();
            if (resource_hooks_.updated && params.is_object() && uri != params.end() &&
                uri->is_string()) {
                resource_hooks_.updated(uri->get<std::string>());
            }
            return;
        }
        if (method == "notifications/message") {
            if (resource_hooks_.message && params.is_object()) {
                resource_hooks_.message(params);
            }
            return;
        }
        if (method == "notifications/tools/list_changed") {
            {
                std::lock_guard lock(mutex_);
                if (gen == generation_) {
                    list_changed_ = true;
                }
            }
            cv_.notify_all();
        }
    };
    auto on_closed = [this, gen] {
        {
            std::lock_guard lock(mutex_);
            if (gen == generation_) {
                closed_ = true;
            }
        }
        cv_.notify_all();
    };
    auto started = [&]() -> Result<std::shared_ptr<McpSession>> {
        if (spec_.url.empty()) {
            auto local = BackendSession::start(spec_, on_notification, on_closed);
            if (!local) {
                return local.status();
            }
            return std::shared_ptr<McpSession>(std::move(local.value()));
        }
        auto remote = RemoteSession::start(spec_, on_notification, on_closed);
        if (!remote) {
            return remote.status();
        }
        return std::shared_ptr<McpSession>(std::move(remote.value()));
    }();
    if (!started) {
        log_line(LogLevel::warn,
                 "backend " + quote_name(spec_.name) +
                     " failed to start: " + started.status().message());
        return false;
    }
    std::shared_ptr<McpSession> session = std::move(started.value());
    {
        std::lock_guard lock(mutex_);
        session_ = session;
        if (stopping_) {
            return false;
        }
    }
    log_line("backend " + quote_name(spec_.name) + " started (" + session->where() + ")");
    auto init = session->open(timings_.request_timeout, timings_.discover_timeout);
    if (!init) {
        log_line(
            LogLevel::warn,
            "backend " + quote_name(spec_.name) + " initialize failed: " + init.status().message());
        return false;
    }
    {
        const Json version = init->value("protocolVersion", Json());
        log_line("backend " + quote_name(spec_.name) + " speaks " +
                 (version.is_string() ? detail::printable(version.get<std::string>())
                                      : std::string("an unnamed version")) +
                 (session->modern() ? " (stateless era, server/discover)"
                                    : " (legacy era, initialize)"));
    }
    if (auto info = init->find("serverInfo"); info != init->end() && info->is_object()) {
        const Json title = info->value("title", info->value("name", Json()));
        description_ = title.is_string() ? title.get<std::string>() : std::string();
    }
    {
        const Json resources =
            init->value("capabilities", Json::object()).value("resources", Json::object());
        std::lock_guard lock(mutex_);
        list_changed_ = false;  // the listing below is newer than any earlier notification
        subscribable_ = resources.is_object() && resources.value("subscribe", false) == true;
        const Json capabilities = init->value("capabilities", Json::object());
        logging_ = capabilities.is_object() && capabilities.contains("logging");
        completions_ = capabilities.is_object() && capabilities.contains("completions");
    }
    auto tools = session->list_tools(timings_.request_timeout, timings_.max_listing_bytes);
    if (!tools) {
        log_line("backend " + quote_name(spec_.name) +
                 " tools/list failed: " + tools.status().message());
        return false;
    }
    {
        // Callable before the commit below makes its tools searchable: a caller who finds a tool
        // must be able to run it at once (the doctor's pass after the commit takes a while).
        std::lock_guard lock(mutex_);
        ready_ = true;
    }
    if (!index(tools.value()).ok()) {
        return false;
    }
    resubscribe(*session);
    return true;
}

void Backend::resubscribe(McpSession& session) {
    const std::string level = resource_hooks_.log_level ? resource_hooks_.log_level() : "";
    if (!level.empty() && supports_logging()) {
        RequestOptions options;
        options.timeout = timings_.request_timeout;
        (void)session.request("logging/setLevel", Json{{"level", level}}, options);
    }
    const std::vector<std::string> uris =
        resource_hooks_.held ? resource_hooks_.held() : std::vector<std::string>();
    if (uris.empty()) {
        return;
    }
    if (!accepts_resource_subscriptions()) {
        log_line("backend " + quote_name(spec_.name) + " no longer offers resources/subscribe; " +
                 std::to_string(uris.size()) + " subscriptions get no updates");
        return;
    }
    RequestOptions options;
    options.timeout = timings_.request_timeout;
    std::size_t done = 0;
    for (const std::string& uri : uris) {
        auto r = session.request("resources/subscribe", Json{{"uri", uri}}, options);
        if (r) {
            ++done;
        } else if (r.status().code() == Errc::unavailable) {
            break;  // gone or not answering: the next start tries again
        }
    }
    log_line("backend " + quote_name(spec_.name) + " subscribed again to " + std::to_string(done) +
             " of " + std::to_string(uris.size()) + " resources");
}

void Backend::serve_until_closed() {
    std::unique_lock lock(mutex_);
    for (;;) {
        cv_.wait(lock, [this] { return stopping_ || closed_ || list_changed_; });
        if (stopping_ || closed_) {
            if (closed_ && !stopping_) {
                log_line("backend " + quote_name(spec_.name) + " exited");
            }
            return;
        }
        list_changed_ = false;
        auto session = session_;
        lock.unlock();
        // The old snapshot keeps serving until the re-listed tools are committed.
        if (auto tools =
                session->list_tools(timings_.request_timeout, timings_.max_listing_bytes)) {
            log_line("backend " + quote_name(spec_.name) + " tool list changed; re-indexing");
            (void)index(tools.value());
        } else {
            log_line("backend " + quote_name(spec_.name) +
                     " re-list failed: " + tools.status().message());
        }
        lock.lock();
        // Notifications that came meanwhile are served by one more listing, after a pause: a
        // backend flooding list_changed costs a listing per interval, not one per message.
        cv_.wait_for(lock, timings_.relist_interval, [this] { return stopping_ || closed_; });
    }
}

void Backend::log_doctor_summary(const CatalogSpec& indexed) const {
    // Within this server only: two searches per tool, a few milliseconds for a typical server.
    DoctorOptions options;
    options.search.servers = std::vector<std::string>{spec_.name};
    auto report = diagnose(indexed, catalog_.searcher(), options);
    if (report) {
        log_line("backend " + quote_name(spec_.name) + " " + doctor_summary(report.value()));
        if (timings_.doctor_report) {
            Status s = timings_.doctor_report->update(spec_.name, doctor_report_json(*report));
            if (!s.ok()) {
                log_line("doctor report " + timings_.doctor_report->path() +
                         " not written: " + s.message());
            }
        }
    }
}

Status Backend::index(const Json& tools) {
    ServerSpec server;
    server.name = spec_.name;
    server.description = description_;
    server.environment = spec_.environment;
    server.status = ServerStatus::active;
    std::set<std::string> seen;
    for (const Json& t : tools) {
        auto spec = to_tool_spec(spec_.name, t);
        if (!spec || !seen.insert(spec->name).second) {
            continue;
        }
        // The catalog's own check of this tool alone (an unreadable schema, say): one bad tool
        // must not make it refuse the whole server.
        if (Status s = validate_tool(server, *spec); !s.ok()) {
            log_line("backend " + quote_name(spec_.name) + ": skipped tool " +
                     quote_name(spec->name) + ": " + detail::clipped(s.message(), 200));
            continue;
        }
        server.tools.push_back(std::move(*spec));
    }
    const std::size_t count = server.tools.size();
    if (retired_.load()) {
        return {};  // a reload took the server away (or gave its name to a new backend)
    }
    if (publisher_) {
        if (Status s = publisher_(server); !s.ok()) {
            log_line("backend " + quote_name(spec_.name) +
                     " could not be pushed to the registry: " + s.to_string());
            return s;
        }
        {
            std::lock_guard lock(mutex_);
            last_published_ = server;
        }
        log_line("backend " + quote_name(spec_.name) + " ACTIVE: " + std::to_string(count) +
                 " tools pushed to the registry");
        if (on_indexed_) {
            on_indexed_();
        }
        return {};
    }
    CatalogSpec indexed{{server}};  // what the doctor examines once it is searchable
    if (Status s = catalog_.upsert_server(std::move(server)); !s.ok()) {
        log_line("backend " + quote_name(spec_.name) + " could not be indexed: " + s.to_string());
        return s;
    }
    auto info = catalog_.commit();
    if (!info) {
        log_line("commit failed: " + info.status().to_string());
        return info.status();
    }
    log_line("backend " + quote_name(spec_.name) + " ACTIVE: " + std::to_string(count) +
             " tools indexed (generation " + std::to_string(info->generation) + ")");
    log_doctor_summary(indexed);
    if (on_indexed_) {
        on_indexed_();
    }
    return {};
}

void Backend::mark_degraded() {
    if (retired_.load()) {
        return;
    }
    if (publisher_) {
        publish_degraded();
        return;
    }
    // A server that was never indexed has nothing to hide.
    if (!catalog_.set_server_status(spec_.name, ServerStatus::degraded).ok()) {
        return;
    }
    if (auto info = catalog_.commit(); !info) {
        log_line("commit failed: " + info.status().to_string());
    }
    if (on_indexed_) {
        on_indexed_();
    }
}

void Backend::publish_degraded() {
    std::optional<ServerSpec> listing;
    {
        std::lock_guard lock(mutex_);
        listing.swap(last_published_);  // pushed once per outage; the next listing sets it again
    }
    // A backend never listed has nothing in the registry to mark.
    if (!listing) {
        return;
    }
    // The last listing, unchanged but for its state: the registry keeps its listed_at, so
    // replicas serve these tools until degraded_ttl after it, marked degraded.
    listing->status = ServerStatus::degraded;
    if (Status s = publisher_(*listing); !s.ok()) {
        log_line("backend " + quote_name(spec_.name) +
                 " could not be marked DEGRADED in the registry: " + s.to_string());
        return;
    }
    log_line("backend " + quote_name(spec_.name) + " DEGRADED: pushed to the registry");
    if (on_indexed_) {
        on_indexed_();
    }
}

const char* Backend::state() {
    std::lock_guard lock(mutex_);
    if (stopping_) {
        return "stopped";
    }
    if (ready_ && !closed_) {
        return "active";
    }
    return first_attempt_done_ ? "degraded" : "starting";
}

bool Backend::accepts_resource_subscriptions() {
    std::lock_guard lock(mutex_);
    return !ready_ || closed_ || subscribable_;
}

bool Backend::supports_logging() {
    std::lock_guard lock(mutex_);
    return logging_;
}

bool Backend::supports_completions() {
    std::lock_guard lock(mutex_);
    return completions_;
}

Result<Json> Backend::call_tool(const std::string& tool,
                                const Json& arguments,
                                std::shared_ptr<CancelToken> cancel,
                                const CallerChannel* caller) {
    Json params{{"name", tool}, {"arguments", arguments}};
    if (caller == nullptr) {
        return request("tools/call", std::move(params), std::move(cancel));
    }
    const auto session = running_session();
    if (!session) {
        return Status{Errc::unavailable, "backend " + quote_name(spec_.name) + " is not running"};
    }
    // The relay lives as long as the call: its requests to the caller share the call's deadline.
    auto relay = std::make_shared<CallRelay>(
        *caller, spec_.name, std::chrono::steady_clock::now() + timings_.call_timeout);
    if (!caller->progress_token.is_null()) {
        params["_meta"] = Json{{"progressToken", relay->backend_token()}};
    }
    session->relay_routes().add(relay);
    RequestOptions options;
    options.timeout = timings_.call_timeout;
    options.cancel = std::move(cancel);
    auto result = session->request("tools/call", std::move(params), options);
    session->relay_routes().remove(*relay);
    relay->finish();
    if (result && !result->is_object()) {
        return Status{Errc::invalid_argument,
                      "the backend answered tools/call with a " + std::string(result->type_name()) +
                          " where an object belongs"};
    }
    return result;
}

std::shared_ptr<McpSession> Backend::running_session() {
    std::lock_guard lock(mutex_);
    return ready_ && !closed_ && !stopping_ ? session_ : nullptr;
}

Result<Json> Backend::request(const std::string& method,
                              Json params,
                              std::shared_ptr<CancelToken> cancel) {
    const auto session = running_session();
    if (!session) {
        return Status{Errc::unavailable, "backend " + quote_name(spec_.name) + " is not running"};
    }
    RequestOptions options;
    options.timeout = timings_.call_timeout;
    options.cancel = std::move(cancel);
    auto result = session->request(method, std::move(params), options);
    if (result && !result->is_object()) {
        return Status{Errc::invalid_argument,
                      "the backend answered " + method + " with a " +
                          std::string(result->type_name()) + " where an object belongs"};
    }
    return result;
}

}  // namespace scout::gateway

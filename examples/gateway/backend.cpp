// backend.cpp: see backend.hpp.
#include "backend.hpp"

#include <set>

#include "log.hpp"

namespace scout::gateway {
namespace {

/// One tools/list entry as a ToolSpec; nullopt (logged) for entries the catalog cannot take.
std::optional<ToolSpec> to_tool_spec(const std::string& server, const Json& t) {
    auto name = t.find("name");
    if (!t.is_object() || name == t.end() || !name->is_string() ||
        name->get_ref<const std::string&>().empty() ||
        name->get_ref<const std::string&>().size() > kMaxNameBytes) {
        log_line("backend '" + server + "': skipped a tool without a usable name");
        return std::nullopt;
    }
    ToolSpec spec;
    spec.name = name->get<std::string>();
    spec.title = t.value("title", Json()).is_string() ? t["title"].get<std::string>() : "";
    spec.description =
        t.value("description", Json()).is_string() ? t["description"].get<std::string>() : "";
    if (auto schema = t.find("inputSchema"); schema != t.end() && schema->is_object()) {
        spec.input_schema = schema->dump();
    }
    if (auto ann = t.find("annotations"); ann != t.end() && ann->is_object()) {
        spec.annotations = ann->dump();
    }
    if (spec.description.size() > kMaxDescriptionBytes || spec.input_schema.size() > kMaxSchemaBytes ||
        spec.title.size() > kMaxNameBytes) {
        log_line("backend '" + server + "': skipped oversized tool '" + spec.name + "'");
        return std::nullopt;
    }
    return spec;
}

}  // namespace

Backend::Backend(BackendSpec spec, Catalog& catalog, BackendTimings timings, std::function<void()> on_indexed)
    : spec_(std::move(spec)), catalog_(catalog), timings_(timings), on_indexed_(std::move(on_indexed)) {}

Backend::~Backend() { stop(); }

void Backend::start() {
    thread_ = std::thread([this] { run(); });
}

bool Backend::wait_first_attempt(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [this] { return first_attempt_done_ || stopping_; });
}

void Backend::stop() {
    std::shared_ptr<BackendSession> session;
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
        std::shared_ptr<BackendSession> session;
        {
            std::lock_guard lock(mutex_);
            ready_ = false;
            session.swap(session_);
            if (stopping_) {
                break;
            }
        }
        if (session) {
            session->close();
        }
        mark_degraded();
        if (std::chrono::steady_clock::now() - started >= timings_.stable_after) {
            backoff = timings_.initial_backoff;
        }
        log_line("backend '" + spec_.name + "' is DEGRADED; restarting in " +
                 std::to_string(backoff.count()) + " ms");
        if (!sleep_for(backoff)) {
            break;
        }
        backoff = std::min(backoff * 2, timings_.max_backoff);
    }
    std::shared_ptr<BackendSession> session;
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
    auto on_notification = [this, gen](const std::string& method, const Json&) {
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
    auto started = BackendSession::start(spec_, on_notification, on_closed);
    if (!started) {
        log_line("backend '" + spec_.name + "' failed to start: " + started.status().message());
        return false;
    }
    std::shared_ptr<BackendSession> session = std::move(started.value());
    {
        std::lock_guard lock(mutex_);
        session_ = session;
        if (stopping_) {
            return false;
        }
    }
    log_line("backend '" + spec_.name + "' started (pid " + std::to_string(session->pid()) + ")");
    auto init = session->initialize(timings_.request_timeout);
    if (!init) {
        log_line("backend '" + spec_.name + "' initialize failed: " + init.status().message());
        return false;
    }
    if (auto info = init->find("serverInfo"); info != init->end() && info->is_object()) {
        description_ = info->value("title", info->value("name", std::string()));
    }
    {
        std::lock_guard lock(mutex_);
        list_changed_ = false;  // the listing below is newer than any earlier notification
    }
    auto tools = session->list_tools(timings_.request_timeout);
    if (!tools) {
        log_line("backend '" + spec_.name + "' tools/list failed: " + tools.status().message());
        return false;
    }
    if (!index(tools.value()).ok()) {
        return false;
    }
    std::lock_guard lock(mutex_);
    ready_ = true;
    return true;
}

void Backend::serve_until_closed() {
    std::unique_lock lock(mutex_);
    for (;;) {
        cv_.wait(lock, [this] { return stopping_ || closed_ || list_changed_; });
        if (stopping_ || closed_) {
            if (closed_ && !stopping_) {
                log_line("backend '" + spec_.name + "' exited");
            }
            return;
        }
        list_changed_ = false;
        auto session = session_;
        lock.unlock();
        // The old snapshot keeps serving until the re-listed tools are committed.
        if (auto tools = session->list_tools(timings_.request_timeout)) {
            log_line("backend '" + spec_.name + "' tool list changed; re-indexing");
            (void)index(tools.value());
        } else {
            log_line("backend '" + spec_.name + "' re-list failed: " + tools.status().message());
        }
        lock.lock();
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
        if (auto spec = to_tool_spec(spec_.name, t)) {
            if (seen.insert(spec->name).second) {
                server.tools.push_back(std::move(*spec));
            }
        }
    }
    const std::size_t count = server.tools.size();
    if (Status s = catalog_.upsert_server(std::move(server)); !s.ok()) {
        log_line("backend '" + spec_.name + "' could not be indexed: " + s.to_string());
        return s;
    }
    auto info = catalog_.commit();
    if (!info) {
        log_line("commit failed: " + info.status().to_string());
        return info.status();
    }
    log_line("backend '" + spec_.name + "' ACTIVE: " + std::to_string(count) + " tools indexed (generation " +
             std::to_string(info->generation) + ")");
    if (on_indexed_) {
        on_indexed_();
    }
    return {};
}

void Backend::mark_degraded() {
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

Result<Json> Backend::call_tool(const std::string& tool, const Json& arguments) {
    std::shared_ptr<BackendSession> session;
    {
        std::lock_guard lock(mutex_);
        if (ready_ && !closed_) {
            session = session_;
        }
    }
    if (!session) {
        return Status{Errc::unavailable, "backend '" + spec_.name + "' is not running"};
    }
    return session->request("tools/call", Json{{"name", tool}, {"arguments", arguments}},
                            timings_.call_timeout);
}

}  // namespace scout::gateway

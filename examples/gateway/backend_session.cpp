// backend_session.cpp: see backend_session.hpp.
#include "backend_session.hpp"

#include "bounded_json.hpp"
#include "log.hpp"
#include "modern_protocol.hpp"
#include "printable.hpp"

namespace scout::gateway {
namespace {

/// A tools/list of a few thousand tools is a few MB; anything far beyond is a broken backend.
constexpr std::size_t kMaxLineBytes = 64u << 20;
/// Requests waiting to be written to a backend that reads slowly (or not at all). Above the
/// client's 16 MiB message limit, so one call always fits.
constexpr std::size_t kMaxQueuedBytes = 32u << 20;
/// How long close() lets queued lines reach a backend that still reads.
constexpr std::chrono::milliseconds kFlushOnClose{100};
/// How often a quiet backend is checked for having exited.
constexpr int kExitCheckMs = 500;
/// Guards against a backend whose nextCursor never ends.
constexpr int kMaxToolPages = 1000;
/// Error messages from a backend reach the client; a megabyte of them helps nobody.
constexpr std::size_t kMaxErrorMessageBytes = 4096;

}  // namespace

Result<std::unique_ptr<BackendSession>> BackendSession::start(const BackendSpec& spec,
                                                              NotificationFn on_notification,
                                                              ClosedFn on_closed) {
    auto child = ChildProcess::spawn(spec.command, spec.args, spec.env);
    if (!child) {
        return child.status();
    }
    try {
        std::unique_ptr<BackendSession> session(new BackendSession(
            spec.name, std::move(child.value()), std::move(on_notification), std::move(on_closed)));
        session->reader_ = std::thread([s = session.get()] { s->reader_loop(); });
        return session;
    } catch (const std::exception& e) {  // out of threads or file descriptors
        return Status{Errc::io_error, std::string("cannot start the session: ") + e.what()};
    }
}

BackendSession::BackendSession(std::string name,
                               std::unique_ptr<ChildProcess> child,
                               NotificationFn n,
                               ClosedFn c)
    : name_(std::move(name)),
      child_(std::move(child)),
      writer_(std::make_unique<LineWriter>(child_->take_stdin(), kMaxQueuedBytes, true)),
      on_notification_(std::move(n)),
      on_closed_(std::move(c)) {}

BackendSession::~BackendSession() {
    close();
}

void BackendSession::close() {
    std::call_once(close_once_, [this] {
        {
            std::lock_guard lock(mutex_);
            closed_.store(true);
        }
        // What is queued (a notifications/cancelled, say) goes out first if the backend reads.
        (void)writer_->flush(std::chrono::steady_clock::now() + kFlushOnClose);
        writer_->close();  // closes the child's stdin: EOF asks it to exit
        child_->stop();
        reader_wake_.wake();
        if (reader_.joinable()) {
            reader_.join();
        }
        fail_pending("the backend was stopped");
    });
}

void BackendSession::reader_loop() {
    LineSplitter lines(kMaxLineBytes);
    char chunk[65536];
    for (;;) {
        while (auto event = lines.next()) {
            if (event->kind == LineEvent::Kind::oversized) {
                log_malformed("a line of " + std::to_string(event->bytes) +
                              " bytes, over the limit of " + std::to_string(kMaxLineBytes));
            } else if (!event->text.empty()) {
                handle_line(event->text);
            }
        }
        const ssize_t n =
            read_or_wake(child_->stdout_fd(), reader_wake_, chunk, sizeof chunk, kExitCheckMs);
        if (n == kTimedOut) {
            // A process that exited leaves no EOF while something it started holds its stdout.
            if (child_->exited()) {
                break;
            }
            continue;
        }
        if (n <= 0) {
            break;
        }
        lines.feed(std::string_view(chunk, static_cast<std::size_t>(n)));
    }
    bool stopped = false;  // by close(), rather than by the process ending
    {
        std::lock_guard lock(mutex_);
        stopped = closed_.exchange(true);
    }
    fail_pending(stopped ? "the backend was stopped" : "the backend process exited");
    if (on_closed_) {
        on_closed_();
    }
}

void BackendSession::log_malformed(const std::string& why) {
    // A backend writing garbage in a loop must not flood the log: the first few, then a count.
    ++malformed_lines_;
    if (malformed_lines_ <= 5 || malformed_lines_ % 1000 == 0) {
        log_line("backend '" + detail::printable(name_) + "' sent a malformed line (" + why +
                 "), ignored" +
                 (malformed_lines_ > 5 ? " [" + std::to_string(malformed_lines_) + " so far]"
                                       : std::string()));
    }
}

void BackendSession::handle_line(const std::string& line) {
    Message m = classify(line);
    // Progress, logging and requests to the client during a tool call go to its caller.
    if (route_to_call(relay_routes(), m, [this](const Json& reply) {
            (void)writer_->send(to_line(reply));
        })) {
        return;
    }
    switch (m.kind) {
        case MessageKind::response:
            handle_response(m, line.size());
            return;
        case MessageKind::request: {
            // Besides the requests relayed to a caller (above), the gateway only answers ping.
            Json reply =
                m.method == "ping"
                    ? make_result(m.id, Json::object())
                    : make_error(
                          m.id, kMethodNotFound, "Method not found: " + detail::clipped(m.method));
            (void)writer_->send(to_line(reply));
            return;
        }
        case MessageKind::notification:
            if (on_notification_) {
                on_notification_(m.method, m.body.value("params", Json::object()));
            }
            return;
        default:
            log_malformed(m.error);
    }
}

void BackendSession::handle_response(Message& m, std::size_t bytes) {
    if (!m.id.is_number_integer()) {
        log_malformed("a response to an id the gateway never sent");
        return;
    }
    std::lock_guard lock(mutex_);
    auto it = pending_.find(m.id.get<std::int64_t>());
    if (it == pending_.end()) {
        return;  // a response to a request that already timed out
    }
    Pending& p = *it->second;
    p.bytes = bytes;
    if (m.too_deep && !p.accept_pruned) {
        p.result =
            Status{Errc::invalid_argument, "the backend's answer is " + detail::too_deep_message()};
    } else if (auto err = m.body.find("error"); err != m.body.end()) {
        std::string msg =
            err->is_object() && err->contains("message") && (*err)["message"].is_string()
                ? (*err)["message"].get<std::string>()
                : std::string("error");
        if (msg.size() > kMaxErrorMessageBytes) {
            msg = detail::clipped(msg, kMaxErrorMessageBytes);
        }
        p.result = Status{Errc::invalid_argument, std::move(msg)};
        if (err->is_object() && !m.too_deep) {
            p.error = std::move(*err);
        }
    } else {
        p.result = std::move(m.body["result"]);
    }
    p.cv.notify_all();
    pending_.erase(it);
}

void BackendSession::fail_pending(const std::string& why) {
    std::lock_guard lock(mutex_);
    for (auto& [id, p] : pending_) {
        p->result = Status{Errc::unavailable, why};
        p->cv.notify_all();
    }
    pending_.clear();
}

Result<Json> BackendSession::exchange(const std::string& method,
                                      Json params,
                                      const RequestOptions& options) {
    const auto deadline = std::chrono::steady_clock::now() + options.timeout;
    auto p = std::make_shared<Pending>();
    p->accept_pruned = options.accept_pruned;
    std::int64_t id = 0;
    {
        std::lock_guard lock(mutex_);
        if (closed_.load()) {
            return Status{Errc::unavailable, "the backend process exited"};
        }
        id = next_id_++;
        pending_[id] = p;
    }
    const auto tag = static_cast<std::uint64_t>(id);
    if (Status s = writer_->send(to_line(make_request(id, method, std::move(params))), tag);
        !s.ok()) {
        std::lock_guard lock(mutex_);
        pending_.erase(id);
        return Status{Errc::unavailable,
                      "cannot send " + method + " to the backend: " + s.message()};
    }
    if (options.cancel) {
        options.cancel->on_cancel([this, p] {
            std::lock_guard lock(mutex_);
            p->cancelled = true;
            p->cv.notify_all();
        });
    }
    bool cancelled = false;
    {
        std::unique_lock lock(mutex_);
        p->cv.wait_until(lock, deadline, [&] { return p->result.has_value() || p->cancelled; });
        if (!p->result) {
            pending_.erase(id);  // an answer arriving later is dropped
            cancelled = p->cancelled;
        }
    }
    if (options.cancel) {
        options.cancel->on_cancel(nullptr);
    }
    if (p->result) {  // set under the lock before the entry left pending_; nobody writes it now
        if (options.answer_bytes != nullptr) {
            *options.answer_bytes = p->bytes;
        }
        if (options.error != nullptr) {
            *options.error = std::move(p->error);
        }
        return std::move(*p->result);
    }
    // A request still queued was never seen by the backend: withdrawing it is the whole cancel.
    const bool sent = !writer_->withdraw(tag);
    if (cancelled) {
        if (sent) {
            (void)notify("notifications/cancelled",
                         Json{{"requestId", id}, {"reason", options.cancel->reason()}});
        }
        return Status{Errc::unavailable, method + " was cancelled"};
    }
    if (sent && options.cancel_on_timeout) {
        (void)notify("notifications/cancelled", Json{{"requestId", id}, {"reason", "timeout"}});
    }
    return Status{Errc::unavailable,
                  method + " timed out after " + std::to_string(options.timeout.count()) + " ms"};
}

Status BackendSession::send_unanswered(const std::string& method, Json params) {
    std::int64_t id = 0;
    {
        std::lock_guard lock(mutex_);
        id = next_id_++;  // never in pending_: its late answer is dropped like a timed-out one's
    }
    return writer_->send(to_line(make_request(id, method, std::move(params))));
}

Status BackendSession::notify(const std::string& method, Json params) {
    return writer_->send(to_line(make_notification(method, std::move(params))));
}

Result<Json> McpSession::request(const std::string& method,
                                 Json params,
                                 const RequestOptions& options) {
    if (!modern_.load()) {
        return exchange(method, std::move(params), options);
    }
    if (!params.is_object()) {
        params = Json::object();
    }
    Json& meta = params["_meta"];
    if (!meta.is_object()) {
        meta = Json::object();
    }
    const Json envelope = modern::client_envelope();
    for (const auto& [key, value] : envelope.items()) {
        meta[key] = value;
    }
    auto result = exchange(method, std::move(params), options);
    // The gateway forwards final answers only (a legacy answer without resultType is final).
    if (result && result->is_object()) {
        if (auto type = result->find("resultType"); type != result->end() && *type != "complete") {
            return Status{Errc::invalid_argument,
                          "the backend answered " + method + " with resultType " +
                              detail::clipped(type->dump(), 40) +
                              ", which the gateway cannot relay"};
        }
    }
    return result;
}

Result<Json> McpSession::open(std::chrono::milliseconds timeout,
                              std::chrono::milliseconds probe_timeout) {
    RequestOptions options;
    options.timeout = std::min(timeout, probe_timeout);
    options.cancel_on_timeout = false;  // the legacy fallback follows at once
    Json error;
    options.error = &error;
    auto discovered =
        exchange("server/discover", Json{{"_meta", modern::client_envelope()}}, options);
    if (discovered && modern::is_discover_result(*discovered)) {
        modern_.store(true);
        // A modern server announces tool changes only on an opted-in stream: open one, so
        // its list_changed re-indexes it as a legacy server's does.
        const Json tools =
            discovered->value("capabilities", Json::object()).value("tools", Json::object());
        if (opens_subscriptions() && tools.is_object() &&
            tools.value("listChanged", false) == true) {
            if (Status s = send_unanswered("subscriptions/listen",
                                           Json{{"_meta", modern::client_envelope()},
                                                {"notifications", {{"toolsListChanged", true}}}});
                !s.ok()) {
                return s;
            }
        }
        return modern::initialize_view(*discovered);
    }
    if (!discovered && modern::is_modern_error(error)) {
        // The modern era, which has no initialize to fall back to.
        return Status{
            Errc::invalid_argument,
            "the backend speaks protocol revision " + std::string(modern::kProtocolVersion) +
                " or later but refused server/discover: " + discovered.status().message()};
    }
    // Anything else (-32601 from v1 servers, other errors, HTTP 4xx, silence) means legacy.
    return initialize(timeout);
}

Result<Json> McpSession::initialize(std::chrono::milliseconds timeout) {
    // Declared for every backend: during a tool call they are relayed to the caller, refused
    // (method not found) when that caller did not declare them or no single call is running.
    Json params{{"protocolVersion", kClientProtocolVersion},
                {"capabilities", {{"sampling", Json::object()}, {"elicitation", Json::object()}}},
                {"clientInfo", {{"name", "scout-gateway"}, {"version", "0.1.0"}}}};
    RequestOptions options;
    options.timeout = timeout;
    options.cancel_on_timeout = false;  // MCP: initialize is never cancelled
    auto result = request("initialize", std::move(params), options);
    if (!result) {
        return result;
    }
    if (!result->is_object()) {
        return Status{Errc::invalid_argument, "the initialize result is not an object"};
    }
    if (Status s = notify("notifications/initialized", nullptr); !s.ok()) {
        return s;
    }
    on_initialized();
    return result;
}

Result<Json> McpSession::list_tools(std::chrono::milliseconds timeout, std::size_t max_bytes) {
    Json tools = Json::array();
    Json cursor = nullptr;
    RequestOptions options;
    options.timeout = timeout;
    options.accept_pruned = true;  // one tool nested too deep is skipped, not the listing
    std::size_t page_bytes = 0;
    std::size_t total_bytes = 0;
    options.answer_bytes = &page_bytes;
    for (int page = 0; page < kMaxToolPages; ++page) {
        Json params = Json::object();
        if (!cursor.is_null()) {
            params["cursor"] = cursor;
        }
        auto result = request("tools/list", std::move(params), options);
        if (!result) {
            return result;
        }
        total_bytes += page_bytes;
        if (total_bytes > max_bytes) {
            return Status{
                Errc::invalid_argument,
                "tools/list pages add up to over " + std::to_string(max_bytes) + " bytes"};
        }
        auto list = result->is_object() ? result->find("tools") : result->end();
        if (!result->is_object() || list == result->end() || !list->is_array()) {
            return Status{Errc::invalid_argument, "tools/list result has no \"tools\" array"};
        }
        for (auto& tool : *list) {
            tools.push_back(std::move(tool));
        }
        auto next = result->find("nextCursor");
        if (next == result->end() || !next->is_string() ||
            next->get_ref<const std::string&>().empty()) {
            return tools;
        }
        cursor = *next;
    }
    return Status{Errc::invalid_argument,
                  "tools/list did not end after " + std::to_string(kMaxToolPages) + " pages"};
}

}  // namespace scout::gateway

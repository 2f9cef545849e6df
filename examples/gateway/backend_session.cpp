// backend_session.cpp: see backend_session.hpp.
#include "backend_session.hpp"

#include "log.hpp"

namespace scout::gateway {
namespace {

/// A tools/list of a few thousand tools is a few MB; anything far beyond is a broken backend.
constexpr std::size_t kMaxLineBytes = 64u << 20;
/// Guards against a backend whose nextCursor never ends.
constexpr int kMaxToolPages = 1000;
/// The version the gateway asks its backends for; they may answer with an older one.
constexpr const char* kClientProtocolVersion = "2025-11-25";

}  // namespace

Result<std::unique_ptr<BackendSession>> BackendSession::start(const BackendSpec& spec,
                                                              NotificationFn on_notification,
                                                              ClosedFn on_closed) {
    auto child = ChildProcess::spawn(spec.command, spec.args, spec.env);
    if (!child) {
        return child.status();
    }
    std::unique_ptr<BackendSession> session(
        new BackendSession(std::move(child.value()), std::move(on_notification), std::move(on_closed)));
    session->reader_ = std::thread([s = session.get()] { s->reader_loop(); });
    return session;
}

BackendSession::BackendSession(std::unique_ptr<ChildProcess> child, NotificationFn n, ClosedFn c)
    : child_(std::move(child)), on_notification_(std::move(n)), on_closed_(std::move(c)) {}

BackendSession::~BackendSession() { close(); }

void BackendSession::close() {
    std::call_once(close_once_, [this] {
        child_->stop();  // the reader sees EOF once the process is gone
        if (reader_.joinable()) {
            reader_.join();
        }
    });
}

void BackendSession::reader_loop() {
    while (auto line = child_->read_line(kMaxLineBytes)) {
        if (!line->empty()) {
            handle_line(*line);
        }
    }
    closed_.store(true);
    fail_pending("the backend process exited");
    if (on_closed_) {
        on_closed_();
    }
}

void BackendSession::handle_line(const std::string& line) {
    Message m = classify(line);
    switch (m.kind) {
        case MessageKind::response: {
            if (!m.id.is_number_integer()) {
                return;
            }
            std::promise<Result<Json>> promise;
            {
                std::lock_guard lock(mutex_);
                auto it = pending_.find(m.id.get<std::int64_t>());
                if (it == pending_.end()) {
                    return;  // a response to a request that already timed out
                }
                promise = std::move(it->second);
                pending_.erase(it);
            }
            if (auto err = m.body.find("error"); err != m.body.end()) {
                std::string msg = err->is_object() ? err->value("message", std::string("error"))
                                                   : std::string("error");
                promise.set_value(Status{Errc::invalid_argument, msg});
            } else {
                promise.set_value(m.body["result"]);
            }
            return;
        }
        case MessageKind::request: {
            // The gateway declares no client capabilities; it only answers ping.
            Json reply = m.method == "ping" ? make_result(m.id, Json::object())
                                            : make_error(m.id, kMethodNotFound, "Method not found: " + m.method);
            (void)child_->write_line(to_line(reply));
            return;
        }
        case MessageKind::notification:
            if (on_notification_) {
                on_notification_(m.method, m.body.value("params", Json::object()));
            }
            return;
        default:
            log_line("backend sent a malformed line (" + m.error + "), ignored");
    }
}

void BackendSession::fail_pending(const std::string& why) {
    std::unordered_map<std::int64_t, std::promise<Result<Json>>> pending;
    {
        std::lock_guard lock(mutex_);
        pending.swap(pending_);
    }
    for (auto& [id, promise] : pending) {
        promise.set_value(Status{Errc::unavailable, why});
    }
}

Result<Json> BackendSession::request(const std::string& method,
                                     Json params,
                                     std::chrono::milliseconds timeout) {
    std::future<Result<Json>> future;
    std::int64_t id = 0;
    {
        std::lock_guard lock(mutex_);
        if (closed_.load()) {
            return Status{Errc::unavailable, "the backend process exited"};
        }
        id = next_id_++;
        future = pending_[id].get_future();
    }
    if (Status s = child_->write_line(to_line(make_request(id, method, std::move(params)))); !s.ok()) {
        std::lock_guard lock(mutex_);
        pending_.erase(id);
        return s;
    }
    if (future.wait_for(timeout) != std::future_status::ready) {
        {
            std::lock_guard lock(mutex_);
            pending_.erase(id);
        }
        if (future.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready) {
            (void)notify("notifications/cancelled", Json{{"requestId", id}, {"reason", "timeout"}});
            return Status{Errc::unavailable, method + " timed out after " +
                                                 std::to_string(timeout.count()) + " ms"};
        }
    }
    return future.get();
}

Status BackendSession::notify(const std::string& method, Json params) {
    return child_->write_line(to_line(make_notification(method, std::move(params))));
}

Result<Json> BackendSession::initialize(std::chrono::milliseconds timeout) {
    Json params{{"protocolVersion", kClientProtocolVersion},
                {"capabilities", Json::object()},
                {"clientInfo", {{"name", "scout-gateway"}, {"version", "0.1.0"}}}};
    auto result = request("initialize", std::move(params), timeout);
    if (!result) {
        return result;
    }
    if (Status s = notify("notifications/initialized"); !s.ok()) {
        return s;
    }
    return result;
}

Result<Json> BackendSession::list_tools(std::chrono::milliseconds timeout) {
    Json tools = Json::array();
    Json cursor = nullptr;
    for (int page = 0; page < kMaxToolPages; ++page) {
        Json params = Json::object();
        if (!cursor.is_null()) {
            params["cursor"] = cursor;
        }
        auto result = request("tools/list", std::move(params), timeout);
        if (!result) {
            return result;
        }
        auto list = result->find("tools");
        if (!result->is_object() || list == result->end() || !list->is_array()) {
            return Status{Errc::invalid_argument, "tools/list result has no \"tools\" array"};
        }
        for (auto& tool : *list) {
            tools.push_back(std::move(tool));
        }
        auto next = result->find("nextCursor");
        if (next == result->end() || !next->is_string() || next->get_ref<const std::string&>().empty()) {
            return tools;
        }
        cursor = *next;
    }
    return Status{Errc::invalid_argument, "tools/list did not end after " +
                                              std::to_string(kMaxToolPages) + " pages"};
}

}  // namespace scout::gateway

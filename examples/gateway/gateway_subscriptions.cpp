// gateway_subscriptions.cpp: per-client state the backends' notifications follow: resource
// subscriptions (resources/updated) and logging levels (notifications/message), and their end.
#include <algorithm>
#include <string>
#include <vector>

#include "gateway.hpp"
#include "gateway_internal.hpp"
#include "log.hpp"
#include "printable.hpp"

namespace scout::gateway {

using gateway_detail::prefixed_uri;

Json Gateway::change_subscription(const Message& m,
                                  Backend& backend,
                                  const std::string& uri,
                                  const std::string& client,
                                  const std::shared_ptr<CancelToken>& cancel) {
    const ResourceSubscriptions::Resource resource{backend.name(), uri};
    // Subscriptions change rarely: one at a time per backend keeps its state in step with ours.
    const auto order = subscription_lock(backend.name());
    std::lock_guard lock(*order);
    if (m.method == "resources/unsubscribe") {
        if (resource_subs_.remove(client, resource) == ResourceSubscriptions::Removed::last) {
            // The client is unsubscribed whatever the backend answers: no update reaches it.
            if (auto done = backend.request(m.method, Json{{"uri", uri}}, cancel); !done) {
                log_line("backend '" + detail::printable(backend.name()) +
                         "' resources/unsubscribe failed: " + done.status().message());
            }
        }
        return make_result(m.id, Json::object());
    }
    if (!backend.accepts_resource_subscriptions()) {
        return make_error(m.id,
                          kMethodNotFound,
                          "Method not found: server '" + detail::printable(backend.name()) +
                              "' does not offer resources/subscribe");
    }
    switch (resource_subs_.add(client, resource)) {
        case ResourceSubscriptions::Added::too_many:
            return make_error(m.id,
                              kInvalidRequest,
                              "Invalid Request: a client holds at most " +
                                  std::to_string(resource_subs_.per_client()) +
                                  " resource subscriptions; unsubscribe from one first");
        case ResourceSubscriptions::Added::held:
        case ResourceSubscriptions::Added::shared:
            return make_result(m.id, Json::object());
        case ResourceSubscriptions::Added::first:
            break;
    }
    auto done = backend.request(m.method, Json{{"uri", uri}}, cancel);
    if (!done) {
        (void)resource_subs_.remove(client, resource);
        return make_error(m.id, kInternalError, done.status().message());
    }
    return make_result(m.id, Json::object());
}

Json Gateway::set_logging_level(const Message& m,
                                const mcp::MetaTools& tools,
                                const std::shared_ptr<CancelToken>& cancel,
                                const std::string& client) {
    const Json params = m.body.value("params", Json::object());
    const Json level = params.is_object() ? params.value("level", Json()) : Json();
    if (log_severity(level) < 0) {
        return make_error(m.id,
                          kInvalidParams,
                          "logging/setLevel needs params.level: debug, info, notice, warning, "
                          "error, critical, alert or emergency");
    }
    const auto in_scope = backends_in_scope(tools);
    {
        std::lock_guard lock(log_mutex_);
        LogClient& c = log_clients_[client];
        c.level = level.get<std::string>();
        c.servers.clear();
        for (const auto& b : in_scope) {
            c.servers.push_back(b->name());
        }
        backend_log_level_ = c.level;
    }
    for (const auto& b : in_scope) {
        if (!b->supports_logging()) {
            continue;
        }
        if (auto r = b->request("logging/setLevel", Json{{"level", level}}, cancel); !r) {
            log_line(LogLevel::debug,
                     "logging/setLevel not taken: " + r.status().message(),
                     {{"server", b->name()}});
        }
    }
    return make_result(m.id, Json::object());
}

void Gateway::forward_log(const std::string& server, const Json& params) {
    const int severity = log_severity(params.value("level", Json()));
    if (severity < 0) {
        return;
    }
    std::vector<std::string> sessions;
    bool stdio = false;
    {
        std::lock_guard lock(log_mutex_);
        for (const auto& [client, c] : log_clients_) {
            if (severity < log_severity(Json(c.level)) ||
                std::find(c.servers.begin(), c.servers.end(), server) == c.servers.end()) {
                continue;
            }
            if (client == kStdioClient) {
                stdio = true;
            } else {
                sessions.push_back(client);
            }
        }
    }
    if (!stdio && sessions.empty()) {
        return;
    }
    Json relayed = params;  // the logger names the backend: "server" or "server/logger"
    const Json logger = params.value("logger", Json());
    relayed["logger"] = logger.is_string() ? server + "/" + logger.get<std::string>() : server;
    const std::string line = to_line(make_notification("notifications/message", relayed));
    if (stdio) {
        write_(line, Wait::never);
    }
    if (!sessions.empty() && update_listener_) {
        update_listener_(sessions, line);
    }
}

void Gateway::end_client(const std::string& session) {
    {
        std::lock_guard lock(log_mutex_);
        log_clients_.erase(session);
    }
    std::vector<ResourceSubscriptions::Resource> orphaned = resource_subs_.end_client(session);
    if (orphaned.empty()) {
        return;
    }
    // Off the caller's thread: a backend may take its call timeout to answer.
    const bool queued = pool_.submit([this, orphaned] {
        for (const auto& [server, uri] : orphaned) {
            if (const auto b = backend(server)) {
                const auto order = subscription_lock(server);
                std::lock_guard lock(*order);
                if (resource_subs_.holders({server, uri}).empty()) {  // nobody came back since
                    (void)b->request("resources/unsubscribe", Json{{"uri", uri}});
                }
            }
        }
    });
    if (!queued) {
        log_line("ended session left " + std::to_string(orphaned.size()) +
                 " backend resource subscriptions in place (the gateway is busy or stopping)");
    }
}

void Gateway::forward_update(const std::string& server, const std::string& uri) {
    std::vector<std::string> holders = resource_subs_.holders({server, uri});
    if (holders.empty()) {
        return;  // nobody asked (or the last holder has just left)
    }
    const std::string line = to_line(make_notification("notifications/resources/updated",
                                                       Json{{"uri", prefixed_uri(server, uri)}}));
    auto stdio = std::find(holders.begin(), holders.end(), std::string(kStdioClient));
    if (stdio != holders.end()) {
        holders.erase(stdio);
        write_(line, Wait::never);
    }
    if (!holders.empty() && update_listener_) {
        update_listener_(holders, line);
    }
}

}  // namespace scout::gateway

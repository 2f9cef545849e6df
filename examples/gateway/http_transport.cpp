// http_transport.cpp: see http_transport.hpp. The HTTP server reads requests on its I/O thread;
// complete ones come here and run on one of two pools: searches, listings and session requests
// on a few threads of their own, and requests that may wait on a backend on a larger pool where
// each caller holds at most max_calls_per_caller threads. Event streams hold no thread at all.
// This file: the transport's start-up, auth reload and stop; its state is http_transport_impl.hpp.
#include "http_transport.hpp"

#include <algorithm>

#include "http_transport_impl.hpp"
#include "http_transport_parts.hpp"
#include "modern_protocol.hpp"

namespace scout::gateway {

using transport_detail::caller_connector;
using transport_detail::json_error;
using transport_detail::sse_event;

HttpTransport::Impl::Impl(Gateway& gateway, HttpOptions options)
    : gateway_(gateway),
      options_(std::move(options)),
      open_tools_(std::make_shared<mcp::MetaTools>(gateway.connector())),
      searches_(std::max<std::size_t>(options_.limits.search_threads, 1), 1024),
      calls_(std::max<std::size_t>(options_.limits.max_calls, 1), 1024),
      server_(server_options()) {
    if (options_.auth) {
        callers_ = make_callers(options_.auth);
    }
    // The gateway outlives this transport and its backends may still re-index after it is
    // gone: the listener reaches it through a link that the destructor cuts.
    gateway_.add_list_changed_listener([link = link_] {
        std::lock_guard lock(link->mutex);
        if (link->impl != nullptr) {
            link->impl->broadcast_list_changed();
        }
    });
    gateway_.set_resource_update_listener(
        [link = link_](const std::vector<std::string>& sessions, const std::string& line) {
            std::lock_guard lock(link->mutex);
            if (link->impl != nullptr) {
                link->impl->deliver(sessions, line);
            }
        });
}

HttpTransport::Impl::~Impl() {
    {
        std::lock_guard lock(link_->mutex);
        link_->impl = nullptr;
    }
    stop();
    searches_.shutdown();
    calls_.shutdown();
}

Status HttpTransport::Impl::bind() {
    if (!options_.auth && !is_loopback_host(options_.address.host)) {
        return Status{Errc::invalid_argument,
                      "--listen " + options_.address.host +
                          " is not a loopback address: give --auth-file to serve other hosts"};
    }
    return server_.bind();
}

Status HttpTransport::Impl::reload_auth(std::shared_ptr<const AuthTable> auth) {
    if (!options_.auth) {
        return Status{Errc::invalid_argument,
                      "the transport was started without an auth file: nothing to reload"};
    }
    if (!auth) {
        return Status{Errc::invalid_argument, "no auth table"};
    }
    // Built before the swap, so requests never wait on it; from the swap on, every request
    // (of an existing session too) authenticates against the new table.
    auto fresh = make_callers(std::move(auth));
    std::vector<std::shared_ptr<Session>> ended;
    {
        std::lock_guard lock(callers_mutex_);
        callers_ = fresh;
    }
    {
        // The sessions of callers that are gone end now, their event streams with them.
        std::lock_guard lock(mutex_);
        for (auto it = sessions_.begin(); it != sessions_.end();) {
            if (fresh->tools.count(it->second->caller) == 0 &&
                !fresh->auth->is_jwt_caller(it->second->caller)) {
                ended.push_back(it->second);
                it = sessions_.erase(it);
            } else {
                ++it;
            }
        }
    }
    for (auto& e : ended) {
        close_session(*e);
    }
    return {};
}

void HttpTransport::Impl::stop() {
    std::vector<std::shared_ptr<Session>> sessions;
    std::vector<std::shared_ptr<Listen>> listens;
    std::vector<std::shared_ptr<CancelToken>> modern_calls;
    {
        std::lock_guard lock(mutex_);
        if (stopping_) {
            return;
        }
        stopping_ = true;
        for (auto& [id, s] : sessions_) {
            sessions.push_back(s);
        }
        sessions_.clear();
        for (auto& [n, l] : listens_) {
            listens.push_back(l);
        }
        for (auto& [key, token] : modern_calls_) {
            modern_calls.push_back(token);
        }
    }
    for (auto& s : sessions) {
        close_session(*s);
    }
    for (auto& l : listens) {  // each stream ends with its graceful-close result
        l->stream->finish(sse_event(to_line(modern::listen_closed(l->id))));
    }
    for (auto& t : modern_calls) {
        t->cancel("the gateway is stopping");
    }
    server_.stop();
}

std::shared_ptr<HttpTransport::Impl::Link> HttpTransport::Impl::make_link(Impl* impl) {
    auto link = std::make_shared<Link>();
    link->impl = impl;
    return link;
}

std::shared_ptr<const HttpTransport::Impl::Callers> HttpTransport::Impl::make_callers(
    std::shared_ptr<const AuthTable> auth) const {
    auto callers = std::make_shared<Callers>();
    for (const CallerScope& c : auth->callers()) {
        callers->tools[c.name] =
            std::make_shared<mcp::MetaTools>(caller_connector(gateway_.connector(), c));
    }
    callers->auth = std::move(auth);
    return callers;
}

std::string HttpTransport::Impl::key_set_metrics() {
    const auto callers = current_callers();
    const JwtVerifier* jwt = callers ? callers->auth->jwt() : nullptr;
    return jwt != nullptr && jwt->remote() != nullptr ? jwks_metrics(jwt->remote()->counts())
                                                      : std::string();
}

std::shared_ptr<const HttpTransport::Impl::Callers> HttpTransport::Impl::current_callers() {
    std::lock_guard lock(callers_mutex_);
    return callers_;
}

HttpServerOptions HttpTransport::Impl::server_options() {
    HttpServerOptions o;
    o.host = options_.address.host;
    o.port = options_.address.port;
    o.limits = options_.limits.server;
    o.tls = options_.tls;
    o.check_head = [this](const HttpRequest& head) { return check_head(head); };
    o.handle = [this](HttpRequest request, const Responder& respond) {
        handle(std::move(request), respond);
    };
    o.error_response = [](int status, const std::string& message) {
        return json_error(status, nullptr, status == 503 ? kServerBusy : kInvalidRequest, message);
    };
    return o;
}

HttpTransport::HttpTransport(Gateway& gateway, HttpOptions options)
    : impl_(std::make_unique<Impl>(gateway, std::move(options))) {}

HttpTransport::~HttpTransport() {
    impl_->stop();
}

Status HttpTransport::bind() {
    return impl_->bind();
}

int HttpTransport::port() const {
    return impl_->port();
}

Status HttpTransport::reload_auth(std::shared_ptr<const AuthTable> auth) {
    return impl_->reload_auth(std::move(auth));
}

void HttpTransport::serve() {
    impl_->serve();
}

void HttpTransport::stop() {
    impl_->stop();
}

}  // namespace scout::gateway

// jwks_remote.cpp: see jwks_remote.hpp.
#include "jwks_remote.hpp"

#include <httplib.h>

#include "bounded_body.hpp"
#include "http_rules.hpp"
#include "log.hpp"
#include "printable.hpp"
#include "remote_session.hpp"

namespace scout::gateway {
namespace {

void set_jwks_timeout(httplib::Client& client,
                      std::chrono::milliseconds d,
                      void (httplib::Client::*setter)(time_t, time_t)) {
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(d).count();
    (client.*setter)(static_cast<time_t>(us / 1000000), static_cast<time_t>(us % 1000000));
}

Status fetch_error(const JwksFetchOptions& options, const std::string& why) {
    return Status{Errc::unavailable, detail::printable(options.url) + ": " + why};
}

}  // namespace

Result<KeySet> fetch_jwks(const JwksFetchOptions& options) {
    const auto url = parse_http_url(options.url);
    if (!url) {
        return Status{Errc::invalid_argument,
                      detail::printable(options.url) + ": not an http:// or https:// URL"};
    }
    httplib::Client client(url->origin);
    const auto connect = std::min(options.connect_timeout, options.total_timeout);
    set_jwks_timeout(client, connect, &httplib::Client::set_connection_timeout);
    set_jwks_timeout(client, options.total_timeout, &httplib::Client::set_read_timeout);
    set_jwks_timeout(client, options.total_timeout, &httplib::Client::set_write_timeout);
    client.set_keep_alive(false);
    client.set_follow_location(false);  // a redirect could leave https or loopback
    httplib::Request req;
    req.method = "GET";
    req.path = url->path;
    req.headers.emplace("Accept", "application/json");
    const auto deadline = std::chrono::steady_clock::now() + options.total_timeout;
    BoundedBody got{kMaxJwksBytes, deadline};
    req.content_receiver = got.receiver();
    httplib::Response res;
    httplib::Error error = httplib::Error::Success;
    const bool sent = client.send(req, res, error);
    if (got.too_big) {
        return fetch_error(options,
                           "the key set is over " + std::to_string(kMaxJwksBytes) + " bytes");
    }
    if (got.late) {
        return fetch_error(
            options,
            "no whole answer within " + std::to_string(options.total_timeout.count()) + " ms");
    }
    if (!sent) {
        switch (error) {
            case httplib::Error::Connection:
            case httplib::Error::ConnectionTimeout:
                return fetch_error(
                    options,
                    "could not connect (within " + std::to_string(connect.count()) + " ms)");
            case httplib::Error::Read:
                return fetch_error(options,
                                   "no answer within " +
                                       std::to_string(options.total_timeout.count()) +
                                       " ms (or the connection broke)");
            default:
                return fetch_error(options, httplib::to_string(error));
        }
    }
    if (res.status != 200) {
        return fetch_error(options, "HTTP status " + std::to_string(res.status));
    }
    auto keys = KeySet::parse(got.text);
    if (!keys) {
        return Status{keys.status().code(),
                      detail::printable(options.url) + ": " + keys.status().message()};
    }
    return keys;
}

Result<std::shared_ptr<RemoteKeySet>> RemoteKeySet::start(JwksFetchOptions options,
                                                          JwksFetcher fetch) {
    auto first = fetch(options);
    if (!first) {
        return first.status();
    }
    return std::shared_ptr<RemoteKeySet>(
        new RemoteKeySet(std::move(options), std::move(fetch), std::move(first.value())));
}

RemoteKeySet::RemoteKeySet(JwksFetchOptions options, JwksFetcher fetch, KeySet first)
    : options_(std::move(options)),
      fetch_(std::move(fetch)),
      keys_(std::make_shared<const KeySet>(std::move(first))) {
    counts_.fetched = 1;
    counts_.keys = keys_->keys().size();
    thread_ = std::thread([this] { run(); });
}

RemoteKeySet::~RemoteKeySet() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

std::shared_ptr<const KeySet> RemoteKeySet::current() const {
    std::lock_guard lock(mutex_);
    return keys_;
}

void RemoteKeySet::unknown_kid() {
    {
        std::lock_guard lock(mutex_);
        const auto now = std::chrono::steady_clock::now();
        if (unknown_kid_seen_ && now - last_unknown_kid_ < kUnknownKidRefreshInterval) {
            return;
        }
        unknown_kid_seen_ = true;
        last_unknown_kid_ = now;
        refresh_asked_ = true;
        ++counts_.unknown_kid_refreshes;
    }
    cv_.notify_all();
}

RemoteKeySet::Counts RemoteKeySet::counts() const {
    std::lock_guard lock(mutex_);
    return counts_;
}

void RemoteKeySet::run() {
    std::unique_lock lock(mutex_);
    while (true) {
        cv_.wait_for(lock, options_.refresh, [this] { return stopping_ || refresh_asked_; });
        if (stopping_) {
            return;
        }
        refresh_asked_ = false;
        lock.unlock();
        auto fresh = fetch_(options_);
        lock.lock();
        if (fresh) {
            keys_ = std::make_shared<const KeySet>(std::move(fresh.value()));
            ++counts_.fetched;
            counts_.keys = keys_->keys().size();
        } else {
            ++counts_.failed;
            const std::size_t kept = keys_->keys().size();
            lock.unlock();
            log_line(LogLevel::warn,
                     "jwt: key set not refreshed, keeping the last good one (" +
                         std::to_string(kept) + (kept == 1 ? " key" : " keys") +
                         "): " + fresh.status().message());
            lock.lock();
        }
    }
}

std::string jwks_metrics(const RemoteKeySet::Counts& c) {
    auto line = [](const std::string& name, std::uint64_t v) {
        return name + " " + std::to_string(v) + "\n";
    };
    return "# HELP scout_jwks_fetches_total Fetches of the JWT key set from jwks_url, by result "
           "(failed: the last good set was kept).\n"
           "# TYPE scout_jwks_fetches_total counter\n" +
           line("scout_jwks_fetches_total{result=\"ok\"}", c.fetched) +
           line("scout_jwks_fetches_total{result=\"failed\"}", c.failed) +
           "# HELP scout_jwks_unknown_kid_refreshes_total Refreshes asked by a token naming a "
           "key the set lacked.\n"
           "# TYPE scout_jwks_unknown_kid_refreshes_total counter\n" +
           line("scout_jwks_unknown_kid_refreshes_total", c.unknown_kid_refreshes) +
           "# HELP scout_jwks_keys Keys in the JWT key set in use.\n"
           "# TYPE scout_jwks_keys gauge\n" +
           line("scout_jwks_keys", c.keys);
}

}  // namespace scout::gateway

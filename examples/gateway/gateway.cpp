// gateway.cpp: see gateway.hpp. The Gateway's backend set: construction, start-up, reload (with
// the retirement of replaced backends), shutdown and the tools/list_changed announcements.
#include "gateway.hpp"

#include <algorithm>
#include <map>
#include <thread>

#include "gateway_internal.hpp"
#include "log.hpp"
#include "modern_protocol.hpp"
#include "printable.hpp"

namespace scout::gateway {

Gateway::Gateway(Catalog& catalog,
                 std::vector<BackendSpec> backends,
                 mcp::Connector connector,
                 const BackendTimings& timings,
                 Writer write,
                 CallLimits limits)
    : catalog_(catalog),
      timings_(timings),
      meta_(std::move(connector)),
      write_(std::move(write)),
      pinned_(std::make_shared<const PinnedTools>()),
      limits_(limits),
      pool_(limits.threads, limits.queued) {
    auto set = std::make_shared<BackendSet>();
    for (auto& spec : backends) {
        set->push_back(make_backend(std::move(spec)));
    }
    backends_ = std::move(set);
    catalog_.set_event_sink(gateway_detail::caller_fallback_sink());
}

Gateway::~Gateway() {
    shutdown();
}

/// Keeps the Backend alive while handles exist; when the last goes, wakes the retirers (taking
/// the lock first, so a retirer between its check and its wait cannot miss the wake-up).
struct Gateway::HandleRelease {
    std::shared_ptr<Backend> owner;
    std::shared_ptr<RetireSignal> signal;
    void operator()(Backend* /*handle*/) const {
        { std::lock_guard lock(signal->mutex); }
        signal->cv.notify_all();
    }
};

std::shared_ptr<Backend> Gateway::make_backend(BackendSpec spec) {
    auto b =
        std::make_shared<Backend>(std::move(spec), catalog_, timings_, [this] { on_indexed(); });
    const std::string server = b->name();
    b->set_resource_hooks({[this, server](const std::string& uri) { forward_update(server, uri); },
                           [this, server] { return resource_subs_.held_uris(server); },
                           [this, server](const Json& params) { forward_log(server, params); },
                           [this] {
                               std::lock_guard lock(log_mutex_);
                               return backend_log_level_;
                           }});
    if (publisher_) {
        b->set_publisher(publisher_);
    }
    Backend* raw = b.get();
    return {raw, HandleRelease{std::move(b), retire_signal_}};
}

std::shared_ptr<const Gateway::BackendSet> Gateway::backends() const {
    std::lock_guard lock(backends_mutex_);
    return backends_;
}

std::shared_ptr<const PinnedTools> Gateway::pinned() const {
    std::lock_guard lock(backends_mutex_);
    return pinned_;
}

std::shared_ptr<Backend> Gateway::backend(const std::string& server) const {
    const auto set = backends();
    for (const auto& b : *set) {
        if (b->name() == server) {
            return b;
        }
    }
    return nullptr;
}

std::shared_ptr<std::mutex> Gateway::subscription_lock(const std::string& server) {
    std::lock_guard lock(backends_mutex_);
    auto& slot = subscription_locks_[server];
    if (!slot) {
        slot = std::make_shared<std::mutex>();
    }
    return slot;
}

void Gateway::set_pinned(PinnedTools pinned) {
    auto shared = std::make_shared<const PinnedTools>(std::move(pinned));
    std::lock_guard lock(backends_mutex_);
    pinned_ = std::move(shared);
}

void Gateway::start(std::chrono::milliseconds wait) {
    startup_deadline_ = std::chrono::steady_clock::now() + wait;
    std::shared_ptr<const BackendSet> set;
    {
        std::lock_guard lock(backends_mutex_);
        launched_ = true;
        set = backends_;
    }
    for (const auto& b : *set) {
        b->start();
    }
    if (set->empty()) {
        return;
    }
    // Once every first attempt is over (or the start-up wait has passed): a gateway none of whose
    // backends came up serves nothing, which deserves more than the backends' own warnings. On a
    // thread of its own (joined at shutdown, whose request_stop ends its waits), not the call
    // pool's: it must not take a slot a client's call could have.
    try {
        startup_watch_ = std::thread([this, set] {
            for (const auto& b : *set) {
                const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    startup_deadline_ - std::chrono::steady_clock::now());
                (void)b->wait_first_attempt(std::max(left, std::chrono::milliseconds(0)));
            }
            const auto up = std::count_if(set->begin(), set->end(), [](const auto& b) {
                return std::string_view(b->state()) == "active";
            });
            const bool stopping = std::any_of(set->begin(), set->end(), [](const auto& b) {
                return std::string_view(b->state()) == "stopped";
            });
            if (up == 0 && !stopping) {
                log_line(LogLevel::error,
                         "no backend started (" + std::to_string(set->size()) +
                             " configured): tool_search finds nothing until one does; see the "
                             "warnings above");
            }
        });
    } catch (const std::system_error&) {
        // No thread to spare: the backends' own warnings still say what failed.
    }
}

ReloadReport Gateway::reload(std::vector<BackendSpec> backends, PinnedTools pinned) {
    ReloadReport report;
    std::vector<std::shared_ptr<Backend>> retired;
    std::vector<std::shared_ptr<Backend>> to_start;
    bool launched = false;
    {
        std::lock_guard lock(backends_mutex_);
        launched = launched_;
        std::map<std::string, std::shared_ptr<Backend>> running;
        for (const auto& b : *backends_) {
            running.emplace(b->name(), b);
        }
        auto next = std::make_shared<BackendSet>();
        for (BackendSpec& spec : backends) {
            auto old = running.find(spec.name);
            if (old != running.end() && old->second->spec() == spec) {
                next->push_back(old->second);
                ++report.kept;
            } else {
                (old == running.end() ? report.added : report.restarted).push_back(spec.name);
                if (old != running.end()) {
                    retired.push_back(old->second);
                }
                next->push_back(make_backend(std::move(spec)));
                to_start.push_back(next->back());
            }
            if (old != running.end()) {
                running.erase(old);
            }
        }
        for (auto& [name, b] : running) {  // what is left was removed
            report.removed.push_back(name);
            retired.push_back(std::move(b));
        }
        report.pinned_changed = !(*pinned_ == pinned);
        backends_ = std::move(next);
        pinned_ = std::make_shared<const PinnedTools>(std::move(pinned));
    }
    // Retired first: a replaced backend must not write its listing over its successor's.
    retire(std::move(retired), report.removed);
    if (launched) {
        for (const auto& b : to_start) {
            b->start();
        }
    }
    if (report.pinned_changed || !report.removed.empty()) {
        on_indexed();  // tools/list may have changed; the added backends announce their own
    }
    return report;
}

void Gateway::retire(std::vector<std::shared_ptr<Backend>> retired,
                     std::vector<std::string> dropped) {
    // The retirer owns each Backend and watches its handle: the handle expires when the last
    // call holding it ends, and its deleter wakes the retirer.
    struct Retiree {
        std::shared_ptr<Backend> owner;
        std::weak_ptr<Backend> handle;
    };
    std::vector<Retiree> retirees;
    for (auto& b : retired) {
        b->retire();
        const auto* release = std::get_deleter<HandleRelease>(b);
        retirees.push_back({release != nullptr ? release->owner : b, b});
    }
    retired.clear();  // before the signal's lock: a last handle's deleter takes it
    drop_listings(dropped);
    if (retirees.empty()) {
        return;
    }
    RetireSignal& signal = *retire_signal_;
    std::unique_lock guard(signal.mutex);
    if (signal.now) {  // shut down already: nothing is in flight any more
        guard.unlock();
        for (const auto& r : retirees) {
            r.owner->stop();
        }
        return;
    }
    // Bounded: a call in flight ends by the call timeout (a backend's own wait, then ours).
    const auto deadline =
        std::chrono::steady_clock::now() + timings_.call_timeout + timings_.request_timeout;
    signal.retirers.emplace_back(
        [this, &signal, retirees = std::move(retirees), dropped = std::move(dropped), deadline] {
            for (const auto& r : retirees) {
                std::unique_lock lock(signal.mutex);
                signal.cv.wait_until(
                    lock, deadline, [&] { return r.handle.expired() || signal.now; });
                lock.unlock();
                r.owner->stop();
            }
            // A listing that raced the first removal (the backend indexing as it retired).
            drop_listings(dropped);
            log_line("reload: " + std::to_string(retirees.size()) +
                     (retirees.size() == 1 ? " retired backend" : " retired backends") +
                     " stopped");
        });
}

void Gateway::drop_listings(const std::vector<std::string>& servers) {
    if (servers.empty() || publisher_) {
        return;  // with a registry the listings are the registry's, shared with other replicas
    }
    bool changed = false;
    for (const std::string& server : servers) {
        changed = catalog_.remove_server(server).ok() || changed;
    }
    if (!changed) {
        return;
    }
    if (auto info = catalog_.commit(); !info) {
        log_line("commit failed: " + info.status().to_string());
    }
}

void Gateway::wait_started() {
    if (started_.load()) {
        return;
    }
    std::lock_guard lock(startup_mutex_);  // one thread waits (and logs); the others wait for it
    if (started_.load()) {
        return;
    }
    const auto set = backends();
    for (const auto& b : *set) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            startup_deadline_ - std::chrono::steady_clock::now());
        if (!b->wait_first_attempt(std::max(left, std::chrono::milliseconds(0)))) {
            log_line("backend '" + detail::printable(b->name()) +
                     "' is still starting; serving without it for now");
        }
    }
    started_.store(true);
}

void Gateway::shutdown() {
    std::call_once(shutdown_once_, [this] {
        {
            std::lock_guard lock(retire_signal_->mutex);
            retire_signal_->now = true;
        }
        retire_signal_->cv.notify_all();
        const auto set = backends();
        for (const auto& b : *set) {
            b->request_stop();
        }
        // In parallel: each stop may take its full StopGraces with a backend that ignores EOF
        // and SIGTERM, and the whole shutdown must stay within that once.
        std::vector<std::thread> stoppers;
        for (const auto& b : *set) {
            try {
                stoppers.emplace_back([&b] { b->stop(); });
            } catch (const std::system_error&) {
                b->stop();
            }
        }
        for (auto& t : stoppers) {
            t.join();
        }
        if (startup_watch_.joinable()) {
            startup_watch_.join();  // its waits ended with request_stop
        }
        std::vector<std::thread> retirers;
        {
            std::lock_guard lock(retire_signal_->mutex);
            retirers.swap(retire_signal_->retirers);
        }
        for (auto& t : retirers) {
            t.join();
        }
        pool_.shutdown();  // calls in flight have failed with the backends; their answers go out
        // A graceful end of each subscription, after the last answers.
        std::unordered_map<std::string, Json> open;
        {
            std::lock_guard lock(subscriptions_mutex_);
            open.swap(subscriptions_);
        }
        for (const auto& [key, id] : open) {
            write_(to_line(modern::listen_closed(id)), Wait::never);
        }
    });
}

void Gateway::on_indexed() {
    for (const auto& listener : listeners_) {
        listener();
    }
    std::vector<Json> subscribers;
    {
        std::lock_guard lock(subscriptions_mutex_);
        for (const auto& [key, id] : subscriptions_) {
            subscribers.push_back(id);
        }
    }
    const bool legacy = client_initialized_.load();
    if (!legacy && subscribers.empty()) {
        return;
    }
    // Clients re-fetch tools/list on this notification; send it only when the answer changed.
    std::string now = to_line(list_result(meta_));
    {
        std::lock_guard lock(list_mutex_);
        if (now == last_list_) {
            return;
        }
        last_list_ = std::move(now);
    }
    if (legacy) {
        write_(to_line(make_notification("notifications/tools/list_changed")), Wait::never);
    }
    // The modern era sends change notifications only on an opted-in subscription, tagged.
    for (const Json& id : subscribers) {
        write_(to_line(modern::tools_list_changed(id)), Wait::never);
    }
}

void Gateway::set_publisher(const Backend::Publisher& publisher) {
    publisher_ = publisher;  // for the backends a reload adds
    const auto set = backends();
    for (const auto& b : *set) {
        b->set_publisher(publisher);
    }
}

}  // namespace scout::gateway

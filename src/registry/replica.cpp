// replica.cpp: follow the change log into a Catalog. A notification only says "something
// changed"; what changed is always read back from the log after the last applied number, so a
// lost notification, a restart or a dropped connection costs staleness, never a change.
#include <algorithm>
#include <charconv>
#include <map>
#include <string_view>
#include <vector>

#include "registry/replica_impl.hpp"
#include "registry/schema.hpp"

namespace scout::registry {

namespace {

using Clock = std::chrono::steady_clock;

Status connect_checked(const ConnectOptions& options, std::optional<detail::PgConnection>& out) {
    auto conn = detail::PgConnection::connect(options);
    if (!conn.ok()) {
        return conn.status();
    }
    if (Status s = detail::check_schema(*conn); !s.ok()) {
        return s;
    }
    out.emplace(std::move(conn.value()));
    return {};
}

}  // namespace

Result<std::unique_ptr<Replica>> Replica::create(ReplicaOptions options,
                                                 std::shared_ptr<Embedder> embedder) {
    if (Status s = check_url(options.connect.url); !s.ok()) {
        return s;
    }
    std::shared_ptr<detail::RegistryVectors> vectors;
    if (embedder) {
        vectors = std::make_shared<detail::RegistryVectors>(std::move(embedder), false);
    }
    auto catalog = Catalog::create(options.catalog, vectors);
    if (!catalog.ok()) {
        return catalog.status();
    }
    auto impl = std::make_unique<Impl>(std::move(options), vectors, std::move(catalog.value()));
    impl->position.wants_vectors = impl->vectors != nullptr;
    return std::unique_ptr<Replica>(new Replica(std::move(impl)));
}

Replica::Replica(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Replica::~Replica() {
    stop();
}

Searcher Replica::searcher() const {
    return impl_->catalog.searcher();
}

Catalog& Replica::catalog() {
    return impl_->catalog;
}

std::uint64_t Replica::applied_seq() const {
    return impl_->applied.load();
}

bool Replica::wait_for(std::uint64_t seq, std::chrono::milliseconds timeout) const {
    std::unique_lock lock(impl_->state_mutex);
    return impl_->applied_cv.wait_for(lock, timeout, [&] { return impl_->applied.load() >= seq; });
}

Result<Searcher> Replica::searcher_at(std::uint64_t seq, std::chrono::milliseconds timeout) const {
    if (!wait_for(seq, timeout)) {
        return Status{Errc::unavailable,
                      "registry change " + std::to_string(seq) + " not applied within " +
                          std::to_string(timeout.count()) +
                          " ms (applied: " + std::to_string(applied_seq()) + ")"};
    }
    return searcher();
}

ReplicaStats Replica::stats() const {
    ReplicaStats out;
    {
        std::lock_guard lock(impl_->state_mutex);
        out = impl_->stats;
        out.applied_seq = impl_->applied.load();
    }
    std::lock_guard lock(impl_->outcome_mutex);
    out.outcomes_recorded = impl_->outcomes_recorded;
    out.outcomes_dropped = impl_->outcomes_dropped;
    out.outcomes_queued = impl_->outcome_queue.size();
    return out;
}

Status Replica::sync() {
    return impl_->catch_up();
}

void Replica::set_on_applied(std::function<void(std::uint64_t seq)> on_applied) {
    impl_->on_applied = std::move(on_applied);
}

void Replica::start() {
    if (impl_->follower.joinable()) {
        return;
    }
    {
        std::lock_guard lock(impl_->stop_mutex);
        impl_->stopping = false;
    }
    impl_->follower = std::thread([impl = impl_.get()] { impl->follow(); });
}

void Replica::stop() {
    if (!impl_ || !impl_->follower.joinable()) {
        return;
    }
    {
        std::lock_guard lock(impl_->stop_mutex);
        impl_->stopping = true;
    }
    impl_->stop_cv.notify_all();
    impl_->follower.join();
}

void Replica::Impl::record(const Status& status) {
    std::lock_guard lock(state_mutex);
    if (status.ok()) {
        stats.last_error.clear();
    } else {
        ++stats.failures;
        stats.last_error = status.to_string();
    }
}

Status Replica::Impl::apply(const detail::ChangeBatch& batch) {
    const std::size_t dim = vectors ? vectors->dim() : 0;
    auto decoded = detail::decode_batch(batch, applied.load(), dim);
    if (!decoded.ok()) {
        if (detail::is_gap(decoded.status())) {
            std::lock_guard lock(state_mutex);
            ++stats.gaps;
        }
        return decoded.status();
    }
    {
        std::lock_guard lock(state_mutex);
        stats.head_seq = std::max(stats.head_seq, batch.head);
    }
    if (decoded->empty) {
        return {};
    }
    // Vectors first, so the commit below finds them; they are keyed by content, so vectors of
    // a batch that fails later are harmless.
    if (vectors && batch.model && !batch.vectors_model.empty() &&
        vectors->pin(batch.model->id, batch.model->fitted_state)) {
        for (auto& [hash, vector] : decoded->vectors) {
            vectors->add(hash, std::move(vector));
        }
        std::lock_guard lock(state_mutex);
        stats.vectors_fetched += decoded->vectors.size();
        stats.model_id = batch.model->id;
    }
    // A DEGRADED server is searched from its last listing until degraded_ttl after it: the
    // age of that listing comes with the server's last upsert row in the batch.
    std::map<std::string_view, double, std::less<>> listing_age;
    for (const detail::ChangeRow& row : batch.rows) {
        if (row.op == "upsert") {
            listing_age[row.server] = row.listed_age_s.value_or(0.0);
        }
    }
    const auto now = Clock::now();
    std::map<std::string, Clock::time_point, std::less<>> served_degraded;
    CatalogSpec upserts;
    std::vector<std::string> removals;
    for (auto& [name, spec] : decoded->servers) {
        if (spec) {
            upserts.servers.push_back(*spec);
            if (spec->status != ServerStatus::degraded) {
                continue;
            }
            const auto it = listing_age.find(name);
            const std::chrono::duration<double> left =
                options.degraded_ttl -
                std::chrono::duration<double>(it != listing_age.end() ? it->second : 0.0);
            if (left.count() > 0) {
                upserts.servers.back().status = ServerStatus::active;
                served_degraded.emplace(name,
                                        now + std::chrono::duration_cast<Clock::duration>(left));
            }
        } else {
            // Also a server the set does not know: after a base it holds only what was searched.
            removals.push_back(name);
        }
    }
    if (batch.full) {
        for (const std::string& name : servers) {
            if (!decoded->servers.contains(name)) {
                removals.push_back(name);
            }
        }
    }
    if (Status s = catalog.upsert_servers(upserts); !s.ok()) {
        return {s.code(),
                "registry changes up to " + std::to_string(decoded->last_seq) +
                    " rejected by the catalog: " + s.message()};
    }
    for (const std::string& name : removals) {
        (void)catalog.remove_server(name);  // only not_found, when it was never staged
    }
    auto committed = catalog.commit();
    if (!committed.ok()) {
        return committed.status();
    }
    for (const ServerSpec& s : upserts.servers) {
        servers.insert(s.name);
        degraded_until.erase(s.name);
    }
    for (const std::string& name : removals) {
        servers.erase(name);
        degraded_until.erase(name);
    }
    degraded_until.merge(served_degraded);
    if (!batch.vectors_model.empty()) {
        position.vectors_model = batch.vectors_model;
        position.vectors_upto = decoded->last_seq;
    }
    position.applied = decoded->last_seq;
    {
        std::lock_guard lock(state_mutex);
        ++stats.batches;
        applied.store(decoded->last_seq);
        stats.degraded_served.clear();
        for (const auto& [name, until] : degraded_until) {
            stats.degraded_served.push_back(name);
        }
    }
    applied_cv.notify_all();
    if (on_applied) {
        on_applied(decoded->last_seq);
    }
    return {};
}

void Replica::Impl::expire_degraded_locked() {
    const auto now = Clock::now();
    std::vector<std::string> expired;
    for (const auto& [name, until] : degraded_until) {
        if (until <= now) {
            expired.push_back(name);
        }
    }
    if (expired.empty()) {
        return;
    }
    for (const std::string& name : expired) {
        (void)catalog.set_server_status(name, ServerStatus::degraded);
    }
    if (auto committed = catalog.commit(); !committed.ok()) {
        record(committed.status());  // tried again on the next catch-up
        return;
    }
    for (const std::string& name : expired) {
        degraded_until.erase(name);
    }
    {
        std::lock_guard lock(state_mutex);
        stats.degraded_expired += expired.size();
        stats.degraded_served.clear();
        for (const auto& [name, until] : degraded_until) {
            stats.degraded_served.push_back(name);
        }
    }
    if (on_applied) {
        on_applied(applied.load());  // the catalog changed, the sequence did not
    }
}

Status Replica::Impl::catch_up() {
    std::lock_guard lock(apply_mutex);
    const auto attempt = [&]() -> Status {
        if (!reader || !reader->ok()) {
            reader.reset();
            if (Status s = connect_checked(options.connect, reader); !s.ok()) {
                return s;
            }
        }
        if (!base_tried && !options.base_directory.empty()) {
            if (Status s = open_base_locked(); !s.ok()) {
                return s;
            }
        }
        for (bool refilled = false;;) {
            position.applied = applied.load();
            auto batch = detail::read_changes(*reader, position, options.batch_rows);
            if (!batch.ok()) {
                return batch.status();
            }
            Status s = apply(*batch);
            // A head beyond the last row read means rows after `applied` are gone too.
            const bool rows_missing = s.ok() && batch->rows.empty() && batch->head > applied.load();
            if (rows_missing) {
                std::lock_guard stats_lock(state_mutex);
                ++stats.gaps;
            }
            if (detail::is_gap(s) || rows_missing) {
                if (!refilled) {
                    refilled = true;  // read once more: the rows may have been in flight
                    continue;
                }
                // The log no longer holds the missing rows: read the whole registry instead.
                auto everything = detail::read_everything(*reader, position.wants_vectors);
                if (!everything.ok()) {
                    return everything.status();
                }
                {
                    std::lock_guard stats_lock(state_mutex);
                    ++stats.resyncs;
                }
                if (s = apply(*everything); !s.ok()) {
                    return s;
                }
                refilled = false;
                continue;
            }
            if (!s.ok()) {
                return s;
            }
            if (batch->rows.empty() || applied.load() >= batch->head) {
                return {};
            }
        }
    };
    // A connection the server dropped since the last call is noticed by its first statement:
    // one more attempt on a new connection.
    const bool had_reader = reader.has_value();
    Status result = attempt();
    if (!result.ok() && had_reader && reader && !reader->ok()) {
        reader.reset();
        result = attempt();
    }
    // Outcomes after the catalog's changes, on the same connection; a failure leaves them
    // queued (or not yet replayed) for the next catch-up and the catalog as it is.
    if (result.ok() && reader) {
        result = sync_outcomes_locked();
    }
    if (reader && !reader->ok()) {
        reader.reset();
    }
    record(result);
    // Also while the registry cannot be reached: the TTL is what bounds serving a down backend.
    expire_degraded_locked();
    return result;
}

void Replica::Impl::follow() {
    std::optional<detail::PgConnection> listener;
    auto backoff = options.reconnect_min;
    auto pause = [&](std::chrono::milliseconds d) {
        std::unique_lock lock(stop_mutex);
        return !stop_cv.wait_for(lock, d, [&] { return stopping; });
    };
    auto stop_requested = [&] {
        std::lock_guard lock(stop_mutex);
        return stopping;
    };
    bool connected_before = false;
    while (!stop_requested()) {
        if (!listener || !listener->ok()) {
            listener.reset();
            Status s = connect_checked(options.connect, listener);
            if (s.ok()) {
                s = listener->run(std::string("LISTEN ") + detail::kFeedChannel);
            }
            if (!s.ok()) {
                listener.reset();
                record(s);
                {
                    std::lock_guard lock(apply_mutex);
                    expire_degraded_locked();
                }
                if (!pause(backoff)) {
                    return;
                }
                backoff = std::min(backoff * 2, options.reconnect_max);
                continue;
            }
            if (connected_before) {
                std::lock_guard lock(state_mutex);
                ++stats.reconnects;
            }
            connected_before = true;
        }
        // Catch up after every (re)connection, notification and poll interval.
        if (Status s = catch_up(); !s.ok()) {
            if (!pause(backoff)) {
                return;
            }
            backoff = std::min(backoff * 2, options.reconnect_max);
            continue;
        }
        backoff = options.reconnect_min;
        const auto deadline = Clock::now() + options.poll_interval;
        while (!stop_requested() && Clock::now() < deadline) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
            auto got = listener->wait_notifications(
                std::clamp(left, std::chrono::milliseconds(1), std::chrono::milliseconds(100)));
            if (!got.ok()) {
                record(got.status());
                listener.reset();
                break;
            }
            if (!got->empty()) {
                std::lock_guard lock(state_mutex);
                stats.notifications += got->size();
                for (const std::string& payload : *got) {
                    std::uint64_t seq = 0;
                    std::from_chars(payload.data(), payload.data() + payload.size(), seq);
                    stats.head_seq = std::max(stats.head_seq, seq);
                }
                break;
            }
        }
    }
}

}  // namespace scout::registry

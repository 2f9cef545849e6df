// replica_impl.hpp: the state of a Replica. One apply at a time (apply_mutex), on the follower
// thread or a sync() caller; readers take searchers from the catalog without waiting.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "scout/catalog.hpp"
#include "scout/registry/registry.hpp"

#include "registry/batch_decoder.hpp"
#include "registry/change_feed.hpp"
#include "registry/outcome_log.hpp"
#include "registry/pg_connection.hpp"
#include "registry/registry_vectors.hpp"

namespace scout::registry {

struct Replica::Impl {
    Impl(ReplicaOptions o, std::shared_ptr<detail::RegistryVectors> v, Catalog c)
        : options(std::move(o)), vectors(std::move(v)), catalog(std::move(c)) {}

    /// Reads and applies batches until the registry's head is applied.
    [[nodiscard]] Status catch_up();
    /// Applies one batch read from the registry (or made by a test): duplicates are no-ops, a
    /// gap is refused (detail::is_gap), a bad row changes nothing. apply_mutex must be held.
    [[nodiscard]] Status apply(const detail::ChangeBatch& batch);
    void follow();
    /// First catch-up with ReplicaOptions::base_directory: the newest published base becomes
    /// the catalog and the position, or is refused (stats.base_error) and nothing changes.
    /// Fails only when the registry cannot be read, so the next attempt tries again.
    /// apply_mutex and a connected reader held.
    [[nodiscard]] Status open_base_locked();
    /// DEGRADED servers whose TTL has passed leave search (one commit). apply_mutex held.
    void expire_degraded_locked();
    void record(const Status& status);
    /// Appends the queued outcomes, then replays the outcome log after outcome_applied into
    /// the prior. apply_mutex and a connected reader held.
    [[nodiscard]] Status sync_outcomes_locked();

    ReplicaOptions options;
    std::shared_ptr<detail::RegistryVectors> vectors;  // null: BM25 only
    Catalog catalog;

    std::mutex apply_mutex;
    std::optional<detail::PgConnection> reader;  // under apply_mutex
    detail::FeedPosition position;               // under apply_mutex
    std::set<std::string, std::less<>> servers;  // what the catalog holds; under apply_mutex
    bool base_tried = false;                     // under apply_mutex
    // DEGRADED servers searched until their TTL; under apply_mutex (a copy of the names in
    // stats.degraded_served).
    std::map<std::string, std::chrono::steady_clock::time_point, std::less<>> degraded_until;

    std::atomic<std::uint64_t> applied{0};
    mutable std::mutex state_mutex;  // stats, and the waits on `applied`
    mutable std::condition_variable applied_cv;
    ReplicaStats stats;
    std::function<void(std::uint64_t)> on_applied;  // set before start()

    // Shared learning. The queue, its numbering and its rate bucket are under outcome_mutex,
    // never held across a statement, so record_outcome does not wait for the registry.
    std::string replica_id;  // random per Replica: who appended an event, for retried appends
    std::mutex outcome_mutex;
    std::deque<detail::PendingOutcome> outcome_queue;
    std::uint64_t next_local_seq = 1;
    double outcome_tokens = 0;
    std::chrono::steady_clock::time_point outcome_refilled;
    std::uint64_t outcomes_recorded = 0;
    std::uint64_t outcomes_dropped = 0;
    std::uint64_t outcome_applied = 0;  // under apply_mutex; its copy in stats.outcome_seq

    std::thread follower;
    std::mutex stop_mutex;
    std::condition_variable stop_cv;
    bool stopping = false;  // under stop_mutex
};

}  // namespace scout::registry

namespace scout::detail {
struct ReplicaAccess {
    static registry::Replica::Impl& impl(registry::Replica& replica) { return *replica.impl_; }
};
}  // namespace scout::detail

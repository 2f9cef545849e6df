// replica_outcomes.cpp: learning shared by a fleet. record_outcome only queues (bounded, rate
// capped); the catch-up appends the queue to the registry's outcome log and replays the log in
// sequence order into the prior, the recorder's own events included, so replicas converge.
#include <algorithm>
#include <cstddef>
#include <random>

#include "registry/replica_impl.hpp"

namespace scout::registry {

namespace {

std::string random_replica_id() {
    std::random_device device;
    std::uniform_int_distribution<std::uint64_t> pick;
    constexpr char kHex[] = "0123456789abcdef";
    std::string id;
    for (int part = 0; part < 2; ++part) {
        std::uint64_t v = pick(device);
        for (int i = 0; i < 16; ++i, v >>= 4U) {
            id += kHex[v & 0xFU];
        }
    }
    return id;
}

}  // namespace

Status Replica::record_outcome(std::string_view query, const ToolKey& tool, Outcome outcome) {
    auto analysed = impl_->catalog.analyse_outcome(query, tool, outcome);
    if (!analysed.ok()) {
        return analysed.status();
    }
    Impl& impl = *impl_;
    std::lock_guard lock(impl.outcome_mutex);
    if (impl.replica_id.empty()) {
        impl.replica_id = random_replica_id();
        impl.outcome_tokens = impl.options.outcome_rate;
        impl.outcome_refilled = std::chrono::steady_clock::now();
    }
    // A token bucket holding one second of outcome_rate.
    const auto now = std::chrono::steady_clock::now();
    const double rate = std::max(impl.options.outcome_rate, 0.0);
    impl.outcome_tokens =
        std::min(rate,
                 impl.outcome_tokens +
                     rate * std::chrono::duration<double>(now - impl.outcome_refilled).count());
    impl.outcome_refilled = now;
    if (impl.outcome_tokens < 1.0 || impl.outcome_queue.size() >= impl.options.outcome_queue) {
        ++impl.outcomes_dropped;
        return {};
    }
    impl.outcome_tokens -= 1.0;
    impl.outcome_queue.push_back({impl.next_local_seq++, std::move(analysed.value())});
    ++impl.outcomes_recorded;
    return {};
}

Status Replica::Impl::sync_outcomes_locked() {
    const std::size_t batch_size = std::max<std::size_t>(options.outcome_batch, 1);
    // Append: a copy of the queue's head, taken off only once the append committed, so a failed
    // append keeps it for the next catch-up (and a retried one appends nothing twice).
    for (;;) {
        std::vector<detail::PendingOutcome> pending;
        std::string id;
        {
            std::lock_guard lock(outcome_mutex);
            const std::size_t n = std::min(batch_size, outcome_queue.size());
            pending.assign(outcome_queue.begin(),
                           outcome_queue.begin() + static_cast<std::ptrdiff_t>(n));
            id = replica_id;
        }
        if (pending.empty()) {
            break;
        }
        auto head = detail::append_outcomes(*reader, id, pending, options.outcome_log_cap);
        if (!head.ok()) {
            return head.status();
        }
        {
            std::lock_guard lock(outcome_mutex);
            const std::uint64_t last = pending.back().local_seq;
            while (!outcome_queue.empty() && outcome_queue.front().local_seq <= last) {
                outcome_queue.pop_front();
            }
        }
        std::lock_guard lock(state_mutex);
        stats.outcomes_pushed += pending.size();
        stats.outcome_head_seq = std::max(stats.outcome_head_seq, *head);
    }
    // Replay every replica's events, in sequence order, after the last one applied.
    for (;;) {
        auto batch = detail::read_outcomes(*reader, outcome_applied, batch_size);
        if (!batch.ok()) {
            return batch.status();
        }
        if (Status s = catalog.replay_outcomes(batch->events); !s.ok()) {
            return s;
        }
        const bool more = batch->last > outcome_applied && batch->last < batch->head;
        outcome_applied = batch->last;
        {
            std::lock_guard lock(state_mutex);
            stats.outcome_seq = outcome_applied;
            stats.outcome_head_seq = std::max(stats.outcome_head_seq, batch->head);
            stats.outcome_events_applied += batch->events.size();
            stats.outcome_events_skipped += batch->missing + batch->malformed;
        }
        if (!more) {
            return {};
        }
    }
}

}  // namespace scout::registry

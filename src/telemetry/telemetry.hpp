// telemetry.hpp: what a Catalog shares with its Searchers for observability: the optional event
// sink and the search statistics. Searches record here after they finish.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string_view>

#include "scout/events.hpp"
#include "scout/types.hpp"

#include "telemetry/latency_histogram.hpp"

namespace scout::detail {

class Telemetry {
public:
    /// Replaces the sink (nullptr: no events). Thread-safe; searches already running may still
    /// emit to the old sink.
    void set_sink(std::shared_ptr<EventSink> sink, EventOptions options);

    /// Records one search call: statistics always, events when a sink is set.
    void record_search(std::string_view query,
                       const SearchOptions& options,
                       const Result<SearchResult>& result,
                       std::chrono::nanoseconds latency) noexcept;

    [[nodiscard]] SearchStats stats() const noexcept;

private:
    mutable std::mutex sink_mu_;  // guards the two fields below (a pointer copy per search)
    std::shared_ptr<EventSink> sink_;
    EventOptions options_;

    LatencyHistogram latency_;
    std::atomic<std::uint64_t> searches_{0};
    std::atomic<std::uint64_t> failures_{0};
    std::atomic<std::uint64_t> fallbacks_{0};
};

}  // namespace scout::detail

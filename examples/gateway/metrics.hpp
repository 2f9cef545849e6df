// metrics.hpp: what an operator scrapes from the gateway's /metrics: the tool_search latency
// histogram, the callers' searches and their fallbacks, calls and errors per routed tool, and
// (filled in when rendered) the backends' states. Prometheus text exposition format 0.0.4.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace scout::gateway {

/// Thread-safe: counters are atomics, the per-tool map takes a short lock.
class Metrics {
public:
    /// Upper bounds (seconds) of the tool_search latency histogram's buckets (+Inf implied).
    static constexpr std::array<double, 12> kLatencyBounds = {
        0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0};

    /// One caller's tool_search: `failed` when answered with isError, `fell_back` when the
    /// catalog degraded to BM25 (or found nothing indexed) for it. The catalog's own count would
    /// also hold the searches the gateway makes itself (the doctor's, when a backend is indexed).
    void record_search(std::chrono::nanoseconds took, bool failed, bool fell_back = false);
    /// One routed tool call (through execute_tool or a pinned tool); `failed` when the backend
    /// answered with an error or isError.
    void record_call(const std::string& server, const std::string& tool, bool failed);
    void record_http_request() { http_requests_.fetch_add(1, std::memory_order_relaxed); }
    void record_auth_failure() { auth_failures_.fetch_add(1, std::memory_order_relaxed); }

    /// The exposition text. `backends` pairs server names with their state ("starting",
    /// "active", "degraded", "stopped"). With
    /// `visible_servers`, the per-tool series are those of the listed servers only (a series of
    /// no server, the "(other)" overflow, is dropped too); the backends are the caller's to
    /// filter, and the aggregate series, which name no server or tool, are always there.
    [[nodiscard]] std::string render(
        const std::vector<std::pair<std::string, std::string>>& backends,
        const std::optional<std::vector<std::string>>& visible_servers = std::nullopt) const;

private:
    struct ToolCounts {
        std::uint64_t calls = 0;
        std::uint64_t errors = 0;
    };
    std::array<std::atomic<std::uint64_t>, kLatencyBounds.size() + 1> buckets_{};
    std::atomic<std::uint64_t> search_count_{0};
    std::atomic<std::uint64_t> search_failures_{0};
    std::atomic<std::uint64_t> search_answers_{0};  ///< tool_search calls without isError
    std::atomic<std::uint64_t> search_fallbacks_{0};
    std::atomic<std::uint64_t> search_nanos_{0};
    std::atomic<std::uint64_t> http_requests_{0};
    std::atomic<std::uint64_t> auth_failures_{0};
    mutable std::mutex tools_mutex_;
    std::map<std::pair<std::string, std::string>, ToolCounts> tools_;
};

/// A Prometheus label value: backslash, double quote and newline escaped.
[[nodiscard]] std::string prometheus_label(const std::string& value);

}  // namespace scout::gateway

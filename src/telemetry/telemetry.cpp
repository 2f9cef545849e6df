// telemetry.cpp: per-search statistics and the tool_search_completed / tool_search_fallback
// events.
#include "telemetry/telemetry.hpp"

#include <algorithm>
#include <cstdio>

#include "util/hash.hpp"

namespace scout::detail {
namespace {

std::string scope_text(const SearchOptions& options) {
    if (!options.servers) {
        return "*";
    }
    std::string out;
    for (const std::string& s : *options.servers) {
        if (!out.empty()) {
            out += ',';
        }
        out += s;
    }
    return out;
}

std::string hash_hex(std::string_view text) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv1a(text)));
    return buf;
}

Event completed_event(std::string_view query,
                      const SearchOptions& options,
                      const SearchResult& r,
                      double latency_ms,
                      bool with_text) {
    Event e{"tool_search_completed", {}};
    e.fields.emplace_back("scope", scope_text(options));
    if (options.environment) {
        e.fields.emplace_back("environment", *options.environment);
    }
    e.fields.emplace_back("k",
                          static_cast<std::int64_t>(
                              std::clamp<std::size_t>(options.top_k, 1, SearchOptions::kMaxTopK)));
    e.fields.emplace_back("results", static_cast<std::int64_t>(r.hits.size()));
    e.fields.emplace_back("latency_ms", latency_ms);
    e.fields.emplace_back("mode", std::string(mode_name(r.mode)));
    e.fields.emplace_back("requested_mode", std::string(mode_name(options.mode)));
    e.fields.emplace_back("degraded", r.degraded);
    e.fields.emplace_back("generation", static_cast<std::int64_t>(r.generation));
    if (with_text) {
        e.fields.emplace_back("query", std::string(query));
    } else {
        e.fields.emplace_back("query_hash", hash_hex(query));
    }
    return e;
}

}  // namespace

void Telemetry::set_sink(std::shared_ptr<EventSink> sink, EventOptions options) {
    std::lock_guard lock(sink_mu_);
    sink_ = std::move(sink);
    options_ = options;
}

void Telemetry::record_search(std::string_view query,
                              const SearchOptions& options,
                              const Result<SearchResult>& result,
                              std::chrono::nanoseconds latency) noexcept {
    if (!result) {
        failures_.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    const auto micros = static_cast<std::uint64_t>(std::max<std::int64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(latency).count(), 0));
    latency_.record(micros);
    searches_.fetch_add(1, std::memory_order_relaxed);
    const SearchResult& r = result.value();
    const bool fallback = r.degraded || r.catalog_empty;
    if (fallback) {
        fallbacks_.fetch_add(1, std::memory_order_relaxed);
    }

    std::shared_ptr<EventSink> sink;
    EventOptions event_options;
    {
        std::lock_guard lock(sink_mu_);
        sink = sink_;
        event_options = options_;
    }
    if (!sink) {
        return;
    }
    try {
        const double ms = std::chrono::duration<double, std::milli>(latency).count();
        sink->emit(completed_event(query, options, r, ms, event_options.include_query_text));
        if (fallback) {
            const std::string reason = r.catalog_empty ? "catalog_empty" : r.degraded_reason;
            sink->emit(
                {"tool_search_fallback",
                 {{"reason", reason},
                  {"kind", std::string(r.catalog_empty ? "catalog_empty" : "dense_unavailable")},
                  {"mode", std::string(mode_name(r.mode))}}});
        }
    } catch (...) {
        // A failing sink must never fail or crash a search; the statistics above still count.
    }
}

SearchStats Telemetry::stats() const noexcept {
    SearchStats s;
    s.searches = searches_.load(std::memory_order_relaxed);
    s.failures = failures_.load(std::memory_order_relaxed);
    s.fallbacks = fallbacks_.load(std::memory_order_relaxed);
    s.fallback_rate =
        s.searches == 0 ? 0.0 : static_cast<double>(s.fallbacks) / static_cast<double>(s.searches);
    s.p50_ms = latency_.quantile_us(0.50) / 1000.0;
    s.p95_ms = latency_.quantile_us(0.95) / 1000.0;
    s.p99_ms = latency_.quantile_us(0.99) / 1000.0;
    s.max_ms = latency_.quantile_us(1.0) / 1000.0;
    return s;
}

}  // namespace scout::detail

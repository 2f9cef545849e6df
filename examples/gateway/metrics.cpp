// metrics.cpp: see metrics.hpp.
#include "metrics.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>

namespace scout::gateway {
namespace {

constexpr std::size_t kMaxToolSeries = 10000;  ///< a flood of distinct names must not grow /metrics

std::string number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

}  // namespace

std::string prometheus_label(const std::string& value) {
    std::string out;
    out.reserve(value.size());
    for (const char c : value) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c == '"') {
            out += "\\\"";
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

void Metrics::record_search(std::chrono::nanoseconds took, bool failed, bool fell_back) {
    const double seconds = std::chrono::duration<double>(took).count();
    std::size_t b = 0;
    while (b < kLatencyBounds.size() && seconds > kLatencyBounds[b]) {
        ++b;
    }
    buckets_[b].fetch_add(1, std::memory_order_relaxed);
    search_count_.fetch_add(1, std::memory_order_relaxed);
    search_nanos_.fetch_add(static_cast<std::uint64_t>(took.count()), std::memory_order_relaxed);
    if (failed) {
        search_failures_.fetch_add(1, std::memory_order_relaxed);
    } else {
        search_answers_.fetch_add(1, std::memory_order_relaxed);
    }
    if (fell_back) {
        search_fallbacks_.fetch_add(1, std::memory_order_relaxed);
    }
}

void Metrics::record_call(const std::string& server, const std::string& tool, bool failed) {
    std::lock_guard lock(tools_mutex_);
    auto key = std::make_pair(server, tool);
    auto it = tools_.find(key);
    if (it == tools_.end()) {
        if (tools_.size() >= kMaxToolSeries) {
            key = {"", "(other)"};
        }
        it = tools_.try_emplace(std::move(key)).first;
    }
    ++it->second.calls;
    if (failed) {
        ++it->second.errors;
    }
}

std::string Metrics::render(const std::vector<std::pair<std::string, std::string>>& backends,
                            const std::optional<std::vector<std::string>>& visible_servers) const {
    const auto visible = [&visible_servers](const std::string& server) {
        return !visible_servers ||
               std::find(visible_servers->begin(), visible_servers->end(), server) !=
                   visible_servers->end();
    };
    std::string out;
    const auto family = [&out](
                            std::string_view name, std::string_view type, std::string_view help) {
        out.append("# HELP ").append(name).append(" ").append(help).append("\n");
        out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
    };
    // A family of one unlabelled sample.
    const auto single = [&](std::string_view name,
                            std::string_view type,
                            std::string_view help,
                            const std::string& value) {
        family(name, type, help);
        out.append(name).append(" ").append(value).append("\n");
    };
    const auto count = [](const std::atomic<std::uint64_t>& c) {
        return std::to_string(c.load(std::memory_order_relaxed));
    };

    family("scout_tool_search_duration_seconds",
           "histogram",
           "tool_search round trip inside the gateway.");
    std::uint64_t cumulative = 0;
    for (std::size_t b = 0; b < buckets_.size(); ++b) {
        cumulative += buckets_[b].load(std::memory_order_relaxed);
        const std::string le = b < kLatencyBounds.size() ? number(kLatencyBounds[b]) : "+Inf";
        out += "scout_tool_search_duration_seconds_bucket{le=\"" + le + "\"} " +
               std::to_string(cumulative) + "\n";
    }
    out += "scout_tool_search_duration_seconds_sum " +
           number(static_cast<double>(search_nanos_.load(std::memory_order_relaxed)) * 1e-9) + "\n";
    out += "scout_tool_search_duration_seconds_count " + std::to_string(cumulative) + "\n";
    single("scout_tool_search_failures_total",
           "counter",
           "tool_search calls answered with isError.",
           count(search_failures_));
    const std::uint64_t searches = search_answers_.load(std::memory_order_relaxed);
    const std::uint64_t fallbacks = search_fallbacks_.load(std::memory_order_relaxed);
    single("scout_searches_total",
           "counter",
           "Callers' tool_search calls the catalog answered.",
           std::to_string(searches));
    single("scout_search_fallbacks_total",
           "counter",
           "Callers' searches that degraded to BM25 or found an empty catalog.",
           std::to_string(fallbacks));
    single("scout_search_fallback_ratio",
           "gauge",
           "Fallbacks over searches since start.",
           number(searches == 0 ? 0.0
                                : static_cast<double>(fallbacks) / static_cast<double>(searches)));
    family("scout_backend_state", "gauge", "1 for the state each backend is in.");
    for (const auto& [name, state] : backends) {
        for (const char* s : {"starting", "active", "degraded", "stopped"}) {
            out += "scout_backend_state{server=\"" + prometheus_label(name) + "\",state=\"" + s +
                   "\"} " + (state == s ? "1" : "0") + "\n";
        }
    }
    family("scout_tool_calls_total", "counter", "Tool calls routed to a backend.");
    std::string errors =
        "# HELP scout_tool_errors_total Routed tool calls that failed or answered isError.\n"
        "# TYPE scout_tool_errors_total counter\n";
    {
        std::lock_guard lock(tools_mutex_);
        for (const auto& [key, counts] : tools_) {
            if (!visible(key.first)) {
                continue;  // a scoped caller must not learn other servers' tool names
            }
            const std::string labels = "{server=\"" + prometheus_label(key.first) + "\",tool=\"" +
                                       prometheus_label(key.second) + "\"} ";
            out += "scout_tool_calls_total" + labels + std::to_string(counts.calls) + "\n";
            errors += "scout_tool_errors_total" + labels + std::to_string(counts.errors) + "\n";
        }
    }
    out += errors;
    single("scout_http_requests_total",
           "counter",
           "HTTP requests received on the listener.",
           count(http_requests_));
    single("scout_http_auth_failures_total",
           "counter",
           "Requests refused with 401.",
           count(auth_failures_));
    return out;
}

}  // namespace scout::gateway

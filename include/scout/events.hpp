// events.hpp: observability. Structured events (name + typed fields) sent to a host-supplied
// sink, a JSON-lines sink, helpers for the gateway-side events, and in-process search statistics.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "scout/export.hpp"
#include "scout/status.hpp"

namespace scout {

/// The value of one event field.
using EventValue = std::variant<bool, std::int64_t, double, std::string>;

/// One structured event: a stable name ("tool_search_completed", ...) and ordered fields.
struct SCOUT_API Event {
    std::string name;
    std::vector<std::pair<std::string, EventValue>> fields;

    /// The field called `key`, or nullptr.
    [[nodiscard]] const EventValue* find(std::string_view key) const noexcept;
};

/// Receives events. emit() is called on the searching thread, possibly from several threads at
/// once, so implementations must be thread-safe and should be quick. Exceptions thrown by emit()
/// are swallowed by the library (an event sink never fails a search).
class SCOUT_API EventSink {
public:
    virtual ~EventSink() = default;
    virtual void emit(const Event& event) = 0;
};

/// Writes one JSON object per line: {"event": name, field: value, ...}. Thread-safe (a mutex
/// serializes lines); strings are escaped, invalid UTF-8 bytes become U+FFFD.
class SCOUT_API JsonLinesSink final : public EventSink {
public:
    /// Writes to `out`, which must outlive the sink.
    explicit JsonLinesSink(std::ostream& out) : out_(&out) {}
    /// Appends to the file at `path`; io_error when it cannot be opened.
    [[nodiscard]] static Result<std::shared_ptr<JsonLinesSink>> open_file(
        const std::filesystem::path& path);

    void emit(const Event& event) override;

private:
    JsonLinesSink() = default;
    std::mutex mu_;
    std::ofstream file_;
    std::ostream* out_ = nullptr;
};

/// What search events carry.
struct EventOptions {
    /// Put the query text in tool_search_completed; otherwise only "query_hash" (a stable 64-bit
    /// FNV-1a hash in hex), so logs need not hold what users typed.
    bool include_query_text = false;
};

/// Renders one event as a single JSON line (without the trailing newline).
[[nodiscard]] SCOUT_API std::string event_to_json(const Event& event);

/// `tools_list`: a gateway answered tools/list with the two meta-tools (`meta_tools` true) or the
/// full list of `tool_count` tools.
[[nodiscard]] SCOUT_API Event tools_list_event(bool meta_tools, std::size_t tool_count);
/// `tool_execute_completed`: a proxied tools/call succeeded.
[[nodiscard]] SCOUT_API Event tool_execute_completed_event(std::string_view server,
                                                           std::string_view tool,
                                                           double latency_ms);
/// `tool_execute_failed`: a proxied tools/call failed; `error_class` is a short stable word
/// such as "timeout", "unknown_tool", "backend_error".
[[nodiscard]] SCOUT_API Event tool_execute_failed_event(std::string_view server,
                                                        std::string_view tool,
                                                        double latency_ms,
                                                        std::string_view error_class);

/// Search statistics of one Catalog since it was created (all Searchers it handed out).
/// Percentiles come from a log-bucketed histogram (4 buckets per power of two of microseconds),
/// so they are upper bounds within about 19%.
struct SearchStats {
    std::uint64_t searches = 0;   ///< completed searches (successful calls)
    std::uint64_t failures = 0;   ///< calls that returned an error (bad query, ...)
    std::uint64_t fallbacks = 0;  ///< searches that degraded to BM25 or found an empty catalog
    double fallback_rate = 0;     ///< fallbacks / searches (0 when none)
    double p50_ms = 0;
    double p95_ms = 0;
    double p99_ms = 0;
    double max_ms = 0;  ///< upper bound of the highest non-empty bucket
};

}  // namespace scout

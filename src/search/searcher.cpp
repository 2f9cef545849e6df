// searcher.cpp: the public reader handle. A search runs the pipeline (pipeline.cpp) on the pinned
// snapshot and records its latency and events; the lookups read the snapshot's id maps.
#include "scout/searcher.hpp"

#include <chrono>

#include "search/hits.hpp"
#include "search/multi_query.hpp"
#include "search/outcome_boost.hpp"
#include "search/pinned.hpp"
#include "search/pipeline.hpp"
#include "search/scope.hpp"

namespace scout {

std::shared_ptr<const Searcher::Pinned> Searcher::empty_pinned() {
    static const auto empty = std::make_shared<const Pinned>(
        Pinned{std::make_shared<const detail::Snapshot>(), nullptr, nullptr});
    return empty;
}

Searcher::Searcher() : pinned_(empty_pinned()) {}

Searcher::Searcher(std::shared_ptr<const Pinned> pinned)
    : pinned_(pinned ? std::move(pinned) : empty_pinned()) {}

Result<SearchResult> Searcher::search(std::string_view query, const SearchOptions& options) const {
    return timed_search(query, nullptr, options);
}

Result<SearchResult> Searcher::search(std::string_view query,
                                      std::span<const float> query_vector,
                                      const SearchOptions& options) const {
    return timed_search(query, &query_vector, options);
}

Result<SearchResult> Searcher::timed_search(std::string_view query,
                                            const std::span<const float>* query_vector,
                                            const SearchOptions& options) const {
    const auto started = std::chrono::steady_clock::now();
    Result<SearchResult> result =
        options.alternatives.empty()
            ? detail::run_search(
                  *pinned_->snapshot, pinned_->embedder, query, query_vector, options)
            : detail::run_multi_query(
                  *pinned_->snapshot, pinned_->embedder, query, query_vector, options);
    if (result && options.outcome_prior && pinned_->outcomes) {
        try {
            detail::apply_outcome_prior(
                *pinned_->snapshot, *pinned_->outcomes, query, options, result->hits);
        } catch (const std::exception& e) {
            result = Status{Errc::internal, std::string("outcome prior failed: ") + e.what()};
        }
    }
    if (pinned_->telemetry) {
        pinned_->telemetry->record_search(
            query, options, result, std::chrono::steady_clock::now() - started);
    }
    return result;
}

std::optional<ToolKey> Searcher::resolve(std::string_view enhanced_name) const {
    const detail::Snapshot& snap = *pinned_->snapshot;
    auto i = detail::resolve_enhanced_name(snap, enhanced_name);
    if (!i) {
        return std::nullopt;
    }
    return ToolKey{std::string(snap.tools[*i].server), std::string(snap.tools[*i].tool)};
}

std::optional<Hit> Searcher::find(std::string_view server, std::string_view tool) const {
    const detail::Snapshot& snap = *pinned_->snapshot;
    auto it = snap.servers->index.find(std::string(server));
    if (it == snap.servers->index.end()) {
        return std::nullopt;
    }
    const detail::ServerRecord& s = snap.servers->records[it->second];
    for (ToolId id = s.first_tool; id < s.end_tool; ++id) {
        if (snap.tools[id].tool == tool) {
            return detail::make_hit(snap, id);
        }
    }
    return std::nullopt;
}

std::vector<Hit> Searcher::list_tools(const SearchOptions& options) const {
    const detail::Snapshot& snap = *pinned_->snapshot;
    const std::optional<detail::Bitset> allowed = detail::scope_filter(snap, options);
    std::vector<Hit> out;
    for (ToolId id = 0; id < snap.tools.size(); ++id) {
        if (!allowed || allowed->test(id)) {
            out.push_back(detail::make_hit(snap, id));
        }
    }
    return out;
}

std::vector<std::string> Searcher::server_names() const {
    const detail::ServerTable& servers = *pinned_->snapshot->servers;
    std::vector<std::string> out;
    out.reserve(servers.records.size());
    for (const detail::ServerRecord& record : servers.records) {
        out.push_back(record.name);
    }
    return out;
}

MemoryUsage Searcher::memory_usage() const noexcept {
    return detail::memory_usage(*pinned_->snapshot);
}

std::uint64_t Searcher::generation() const noexcept {
    return pinned_->snapshot->generation;
}
std::size_t Searcher::size() const noexcept {
    return pinned_->snapshot->tools.size();
}
bool Searcher::has_dense() const noexcept {
    return pinned_->snapshot->dense != nullptr;
}

}  // namespace scout

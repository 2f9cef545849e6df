// searcher.hpp: the reader handle. A Searcher pins one immutable snapshot of the catalog, so
// every search through it sees one generation, whatever commits happen meanwhile.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "scout/embedder.hpp"
#include "scout/export.hpp"
#include "scout/status.hpp"
#include "scout/types.hpp"

namespace scout {

/// Cheap to copy (one shared pointer). All methods are const and thread-safe. A Searcher keeps
/// its snapshot alive; take a fresh one from Catalog::searcher() per request to see updates.
class SCOUT_API Searcher {
public:
    /// An empty searcher: every search reports `catalog_empty`.
    Searcher();

    /// Hybrid / BM25 / dense search. Errors: invalid_argument for an empty query, a query that is
    /// not valid UTF-8 or longer than kMaxQueryBytes. An embedder failure is not an error: the
    /// result says `degraded` and BM25 answers. O(postings of the query terms + N) for BM25,
    /// O(N * dim) for exact dense search, O(log N) for HNSW.
    [[nodiscard]] Result<SearchResult> search(std::string_view query,
                                              const SearchOptions& options = {}) const;
    /// Same, with a query vector the host already computed (dim must match the index).
    [[nodiscard]] Result<SearchResult> search(std::string_view query,
                                              std::span<const float> query_vector,
                                              const SearchOptions& options = {}) const;

    /// The tool an enhanced name (or a server-prefixed name) denotes, if it is indexed.
    [[nodiscard]] std::optional<ToolKey> resolve(std::string_view enhanced_name) const;
    /// Full description of one indexed tool, as a Hit with zero scores.
    [[nodiscard]] std::optional<Hit> find(std::string_view server, std::string_view tool) const;
    /// Every indexed tool allowed by the scope fields of `options` (servers, environment), in
    /// (server, tool) order: the full list a gateway serves when tool search is off.
    [[nodiscard]] std::vector<Hit> list_tools(const SearchOptions& options = {}) const;
    /// The names of the indexed (ACTIVE) servers, in name order. O(servers), unlike
    /// list_tools.
    [[nodiscard]] std::vector<std::string> server_names() const;

    /// Approximate memory held by the pinned snapshot, by part. O(tools).
    [[nodiscard]] MemoryUsage memory_usage() const noexcept;

    [[nodiscard]] std::uint64_t generation() const noexcept;
    /// Number of indexed (searchable) tools.
    [[nodiscard]] std::size_t size() const noexcept;
    /// True when the snapshot has a dense index (an embedder was set and indexing succeeded).
    [[nodiscard]] bool has_dense() const noexcept;

    /// The longest query accepted, in bytes.
    static constexpr std::size_t kMaxQueryBytes = std::size_t{16} * 1024;

private:
    friend class Catalog;
    /// One published generation with the embedder and the statistics its searches use.
    struct Pinned;
    explicit Searcher(std::shared_ptr<const Pinned> pinned);
    /// The shared pinned state of every empty Searcher.
    [[nodiscard]] static std::shared_ptr<const Pinned> empty_pinned();
    /// Both search overloads: the pipeline plus statistics and events.
    [[nodiscard]] Result<SearchResult> timed_search(std::string_view query,
                                                    const std::span<const float>* query_vector,
                                                    const SearchOptions& options) const;

    std::shared_ptr<const Pinned> pinned_;
};

}  // namespace scout

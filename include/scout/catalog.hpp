// catalog.hpp: the writer side. A Catalog holds the desired state of every server and tool,
// stages changes, and publishes them atomically as a new immutable snapshot on commit().
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "scout/embedder.hpp"
#include "scout/events.hpp"
#include "scout/options.hpp"
#include "scout/searcher.hpp"
#include "scout/status.hpp"
#include "scout/types.hpp"

namespace scout {

/// What one commit() did.
struct CommitInfo {
    std::uint64_t generation = 0;
    std::size_t servers = 0;        ///< ACTIVE servers indexed
    std::size_t tools = 0;          ///< tools indexed
    std::size_t embedded = 0;       ///< documents sent to the embedder (cache misses)
    std::size_t rendered = 0;       ///< tool documents rendered and analyzed (cache misses)
    bool dense_reused = false;      ///< every vector was unchanged: the dense index was shared
    bool dense_ready = false;       ///< the new snapshot has a dense index
    std::string dense_error;        ///< why not, when an embedder was set but failed
    double build_ms = 0;
};

/// Thread-safe: writers are serialized internally; searcher() never waits for a commit.
/// Staged changes are invisible until commit() publishes them; a tool that is updated is never
/// missing from any snapshot (the new snapshot is built completely before it replaces the old).
class Catalog {
public:
    /// A catalog with no servers. `embedder` may be null (BM25 only).
    [[nodiscard]] static Result<Catalog> create(CatalogOptions options = {},
                                                std::shared_ptr<Embedder> embedder = nullptr);

    Catalog(Catalog&&) noexcept;
    Catalog& operator=(Catalog&&) noexcept;
    Catalog(const Catalog&) = delete;
    Catalog& operator=(const Catalog&) = delete;
    ~Catalog();

    /// Adds or replaces a server with all of its tools (tools not listed are dropped).
    /// invalid_argument for empty or non-UTF-8 names, duplicate tool names, schemas that are not
    /// JSON objects, oversized fields; the staged state is unchanged on error.
    [[nodiscard]] Status upsert_server(ServerSpec server);
    /// Every server of `spec`, as one all-or-nothing staging step.
    [[nodiscard]] Status upsert_servers(const CatalogSpec& spec);
    [[nodiscard]] Status remove_server(std::string_view server);
    [[nodiscard]] Status set_server_status(std::string_view server, ServerStatus status);
    /// Adds or replaces one tool of an existing server.
    [[nodiscard]] Status upsert_tool(std::string_view server, ToolSpec tool);
    [[nodiscard]] Status remove_tool(std::string_view server, std::string_view tool);

    /// Builds the next snapshot from the staged state (re-embedding only changed documents),
    /// then publishes it. Searchers taken before keep their old snapshot.
    [[nodiscard]] Result<CommitInfo> commit();

    /// A reader pinned to the latest published snapshot. Never blocks on commit().
    [[nodiscard]] Searcher searcher() const;

    [[nodiscard]] const CatalogOptions& options() const noexcept;

    /// Sends tool_search_completed (and tool_search_fallback) events of every search made
    /// through this catalog's Searchers to `sink`; nullptr stops them. Thread-safe.
    void set_event_sink(std::shared_ptr<EventSink> sink, EventOptions options = {});
    /// Search counts, fallback rate and latency percentiles since creation. Thread-safe, lock-free.
    [[nodiscard]] SearchStats stats() const noexcept;

    /// Writes the published snapshot (the whole committed catalog, non-ACTIVE servers included,
    /// and the document vectors) to `path` atomically: a temporary file in the same directory,
    /// fsync, rename, fsync of the directory. A crash leaves either the old file or the new one.
    /// io_error when any step fails. Thread-safe; concurrent commits are not blocked.
    /// The format is specified in docs/FORMAT.md.
    [[nodiscard]] Status save(const std::filesystem::path& path) const;

    /// Opens an index file written by save(): verifies every checksum and invariant, restores the
    /// options and the catalog, and rebuilds the indexes from the stored vectors (nothing is
    /// re-embedded when `embedder` matches). Errors: not_found / io_error, corrupt (truncated or
    /// damaged file), version_unsupported (newer format major), embedder_mismatch (the embedder's
    /// model id or dimension differs from the file's). With a null embedder the catalog is BM25-only.
    [[nodiscard]] static Result<Catalog> open(const std::filesystem::path& path,
                                              std::shared_ptr<Embedder> embedder = nullptr);

private:
    struct Impl;
    explicit Catalog(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

/// Limits on accepted input, so a hostile catalog cannot exhaust memory through one field.
inline constexpr std::size_t kMaxNameBytes = 256;
inline constexpr std::size_t kMaxDescriptionBytes = 64 * 1024;
inline constexpr std::size_t kMaxSchemaBytes = 1024 * 1024;

}  // namespace scout

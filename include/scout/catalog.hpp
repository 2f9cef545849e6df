// catalog.hpp: the writer side. A Catalog holds the desired state of every server and tool,
// stages changes, and publishes them atomically as a new immutable snapshot on commit().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "scout/embedder.hpp"
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

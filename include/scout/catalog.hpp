// catalog.hpp: the writer side. A Catalog holds the desired state of every server and tool,
// stages changes, and publishes them atomically as a new immutable snapshot on commit(); it
// saves and opens index files (docs/FORMAT.md), which inspect_index checks without a catalog.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scout/embedder.hpp"
#include "scout/events.hpp"
#include "scout/export.hpp"
#include "scout/options.hpp"
#include "scout/searcher.hpp"
#include "scout/status.hpp"
#include "scout/types.hpp"

namespace scout {

/// What one commit() did.
struct CommitInfo {
    std::uint64_t generation = 0;
    std::size_t servers = 0;    ///< ACTIVE servers indexed
    std::size_t tools = 0;      ///< tools indexed
    std::size_t embedded = 0;   ///< documents sent to the embedder (cache misses)
    std::size_t rendered = 0;   ///< tool documents rendered and analyzed (cache misses)
    bool dense_reused = false;  ///< every vector was unchanged: the dense index was shared
    /// A few vectors changed: the previous HNSW graph was copied and those points re-linked,
    /// instead of a build of every point.
    bool dense_patched = false;
    bool dense_ready = false;  ///< the new snapshot has a dense index
    std::string dense_error;   ///< why not, when an embedder was set but failed
    double build_ms = 0;
};

/// Where a commit() is, for a progress display. Phases, in order: "documents" (rendering and
/// analyzing tool documents), "embeddings" (done and total count the documents the embedder is
/// asked for, batch by batch), "bm25" (the inverted index) and "dense" (the vector index).
/// A phase that has nothing to do may be skipped.
struct CommitProgress {
    std::string_view phase;
    std::size_t done = 0;
    std::size_t total = 0;
};
/// Called on the committing thread (also when the commit runs on several threads, see
/// CatalogOptions::threads), at the start and end of each phase and as it advances; within a
/// phase `done` never decreases. It
/// must be quick and must not call back into the Catalog; an exception it throws fails the
/// commit (internal).
using ProgressCallback = std::function<void(const CommitProgress&)>;

/// Thread-safe: writers are serialized internally; searcher() never waits for a commit.
/// Staged changes are invisible until commit() publishes them; a tool that is updated is never
/// missing from any snapshot (the new snapshot is built completely before it replaces the old).
class SCOUT_API Catalog {
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
    /// then publishes it. Searchers taken before keep their old snapshot. `progress`, when
    /// set, hears how the build advances (CommitProgress).
    [[nodiscard]] Result<CommitInfo> commit(const ProgressCallback& progress = {});

    /// A reader pinned to the latest published snapshot. Never blocks on commit().
    [[nodiscard]] Searcher searcher() const;

    /// Learning from executions: the host ran `tool` for `query` (after a search) with this
    /// outcome. Kept as a decayed, bounded success prior per tool and per query word, which
    /// searches with SearchOptions::outcome_prior use as a small capped boost; saved in the
    /// index file. Thread-safe and lock-light: searches running meanwhile keep the prior they
    /// started with. invalid_argument for a query search() would reject; not_found for a tool
    /// the published snapshot does not index.
    [[nodiscard]] Status record_outcome(std::string_view query,
                                        const ToolKey& tool,
                                        Outcome outcome);

    /// One outcome as a fleet shares it: the query already analysed into its terms, so every
    /// catalog that replays it changes its prior the same way (scout::registry).
    struct AnalysedOutcome {
        std::vector<std::string> terms;
        ToolKey tool;
        Outcome outcome = Outcome::success;
    };
    /// Checks an outcome as record_outcome does (same errors) and analyses its query, without
    /// recording it.
    [[nodiscard]] Result<AnalysedOutcome> analyse_outcome(std::string_view query,
                                                          const ToolKey& tool,
                                                          Outcome outcome) const;
    /// Records analysed outcomes in order, in one change of the prior. The tools need not be
    /// indexed here: a replay must change every catalog's prior alike, whatever its servers.
    /// invalid_argument (nothing recorded) for an unknown outcome or an empty tool name.
    [[nodiscard]] Status replay_outcomes(std::span<const AnalysedOutcome> outcomes);

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

    /// Opens an index file written by save(): verifies each section's checksum before it is read
    /// and every invariant, restores the options and the catalog, and takes the stored BM25 and
    /// dense indexes as they are (a file of format 1.1 or older, or one opened with word
    /// neighbours on, rebuilds them from the stored vectors). Nothing is re-embedded when
    /// `embedder` matches. Errors: not_found / io_error, corrupt (truncated or damaged file),
    /// version_unsupported (newer format major), embedder_mismatch (the embedder's model id or
    /// dimension differs from the file's). With a null embedder the catalog is BM25-only.
    /// `warnings` (may be null) receives IndexFileInfo::warnings.
    [[nodiscard]] static Result<Catalog> open(const std::filesystem::path& path,
                                              std::shared_ptr<Embedder> embedder = nullptr,
                                              std::vector<std::string>* warnings = nullptr);

private:
    struct Impl;
    explicit Catalog(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

/// The library's version, "major.minor.patch": the SCOUT_VERSION_STRING of the build that made
/// the library (which may differ from the header a program was compiled with).
[[nodiscard]] SCOUT_API std::string_view version() noexcept;

/// The index file format written by this library; independent of the library version. A reader
/// accepts majors kOldestIndexFormatMajor..kIndexFormatMajor (any minor) and skips unknown
/// sections.
/// Major 2: the catalog as a binary section (CATB) read in place, instead of JSON (CATL), so a
/// large index opens without parsing or copying its texts (docs/FORMAT.md). Format 1 (its
/// minors: 1, the `gated` fusion options; 2, `overlap_power`, recorded outcomes and the built
/// indexes; 3, `int8_min_tools`; 4, `hnsw_int8`; 5, `hnsw_ef_base_tools`) is still read.
/// Minor 1 of major 2: the BM25 weighted tfs and document lengths (BMTF), so the first commit
/// after an open patches the postings instead of analyzing every tool again.
inline constexpr std::uint16_t kIndexFormatMajor = 2;
inline constexpr std::uint16_t kIndexFormatMinor = 1;
inline constexpr std::uint16_t kOldestIndexFormatMajor = 1;

/// What an index file holds, from its META section (after full verification).
struct IndexFileInfo {
    std::uint16_t format_major = 0;
    std::uint16_t format_minor = 0;
    std::string library_version;  ///< the library that wrote the file
    std::uint64_t generation = 0;
    std::string model_id;  ///< embedder of the stored vectors; empty when there are none
    std::size_t dim = 0;
    std::size_t servers = 0;        ///< every server, any status
    std::size_t tools = 0;          ///< every tool of every server
    std::size_t indexed_tools = 0;  ///< tools of ACTIVE servers
    std::size_t vectors = 0;
    std::uint64_t file_bytes = 0;
    /// What a reader should tell its user, e.g. option keys of a newer minor version it ignores.
    std::vector<std::string> warnings;
};

/// Verifies a whole index image (checksums, bounds, invariants) and describes it. Never crashes
/// on arbitrary bytes: corrupt or version_unsupported instead. Thread-safe.
[[nodiscard]] SCOUT_API Result<IndexFileInfo> inspect_index(std::span<const std::uint8_t> bytes);
/// Same for a file (not_found / io_error when it cannot be read).
[[nodiscard]] SCOUT_API Result<IndexFileInfo> inspect_index_file(const std::filesystem::path& path);

/// Limits on accepted input, so a hostile catalog cannot exhaust memory through one field.
inline constexpr std::size_t kMaxNameBytes = 256;
inline constexpr std::size_t kMaxDescriptionBytes = std::size_t{64} * 1024;
inline constexpr std::size_t kMaxSchemaBytes = std::size_t{1024} * 1024;

}  // namespace scout

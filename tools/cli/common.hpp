// common.hpp: what the CLI commands share: building a catalog from a file, choosing the
// embedder, reading search options, and reporting errors with exit code 2.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "scout/catalog.hpp"

#include "cli/args.hpp"
#include "cli/progress.hpp"

namespace scout::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

/// A command's arguments, parsed against its table, or the exit code to return: kExitOk after
/// printing --help to stdout, kExitBadInput after an error message on stderr.
struct ParsedCommand {
    std::optional<Args> args;
    int exit_code = kExitOk;
};
/// Options start at argv[first] (after the command's name).
[[nodiscard]] ParsedCommand parse_command(int argc,
                                          char** argv,
                                          const CommandSpec& spec,
                                          int first = 2);

/// "--embedder static[:PATH] | transformer:DIR | http | hashing[:DIM] | none" (default static).
/// nullptr for none, and for a static model or embedding service that cannot be used (after a
/// note on stderr); then `why_unavailable`, when given, receives the cause.
[[nodiscard]] Result<std::shared_ptr<Embedder>> make_embedder(
    const Args& args, std::string* why_unavailable = nullptr);

/// Counts the texts an embedder was asked for and the time it took (thread-safe).
class MeteredEmbedder final : public Embedder {
public:
    explicit MeteredEmbedder(std::shared_ptr<Embedder> inner) : inner_(std::move(inner)) {}
    [[nodiscard]] std::string model_id() const override { return inner_->model_id(); }
    [[nodiscard]] std::size_t dim() const override { return inner_->dim(); }
    [[nodiscard]] Result<std::vector<float>> embed(std::span<const std::string> texts) override;
    void fit(std::span<const std::string> corpus) override { inner_->fit(corpus); }
    [[nodiscard]] std::string fitted_state() const override { return inner_->fitted_state(); }
    bool restore_fitted_state(std::string_view state) override {
        return inner_->restore_fitted_state(state);
    }
    [[nodiscard]] std::shared_ptr<const WordVectors> word_vectors() const override {
        return inner_->word_vectors();
    }
    [[nodiscard]] std::size_t texts() const noexcept { return texts_.load(); }
    [[nodiscard]] double milliseconds() const noexcept {
        return static_cast<double>(nanos_.load()) / 1e6;
    }

private:
    std::shared_ptr<Embedder> inner_;
    std::atomic<std::size_t> texts_{0};
    std::atomic<std::uint64_t> nanos_{0};
};

struct LoadedCatalog {
    std::shared_ptr<MeteredEmbedder> meter;  ///< null without an embedder
    std::unique_ptr<Catalog> catalog;
    Searcher searcher;
    CommitInfo info;
    /// Why the chosen embedder could not be used (a missing model, a failed service probe);
    /// empty when it works or when none was asked for.
    std::string embedder_unavailable;
};

/// `result`, with the embedder's real trouble as its degraded_reason: a search without an
/// embedder only knows that none is configured.
void explain_degraded(const LoadedCatalog& loaded, SearchResult& result);

/// Loads --catalog FILE and indexes it with the chosen embedder, or opens a saved --index FILE
/// (exactly one of the two); with --events FILE, search events are appended there as JSON lines.
/// `progress` (may be null) shows the indexing.
[[nodiscard]] Result<LoadedCatalog> load_catalog(const Args& args, Progress* progress = nullptr);

/// Parses the catalog JSON file at `path` and indexes it with `options` and `meter` (may be
/// null: BM25 only); `progress` (may be null) shows the parsing and indexing.
[[nodiscard]] Result<LoadedCatalog> build_catalog(const std::string& path,
                                                  const CatalogOptions& options,
                                                  std::shared_ptr<MeteredEmbedder> meter,
                                                  Progress* progress);

/// --top-k, --mode, --server (repeatable), --environment, --embed-timeout-ms.
/// With read_mode false, --mode is left to the caller. With `--embedder none` and no --mode, the
/// mode is bm25: nothing is degraded when no dense branch was asked for.
[[nodiscard]] Result<SearchOptions> search_options(const Args& args, bool read_mode = true);

/// Prints "scout: <message>" to stderr and returns kExitBadInput.
int fail(const std::string& message);

}  // namespace scout::cli

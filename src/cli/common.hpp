// common.hpp: what the CLI commands share: building a catalog from a file, choosing the
// embedder, reading search options, and reporting errors with exit code 2.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "cli/args.hpp"
#include "scout/catalog.hpp"

namespace scout::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

/// The options every catalog-reading command accepts.
const std::set<std::string>& catalog_options();

/// "--embedder static[:PATH] | http | hashing[:DIM] | none" (default static). nullptr for none,
/// and for a static model that cannot be loaded (after a note on stderr).
[[nodiscard]] Result<std::shared_ptr<Embedder>> make_embedder(const Args& args);

/// Counts the texts an embedder was asked for and the time it took (thread-safe).
class MeteredEmbedder final : public Embedder {
public:
    explicit MeteredEmbedder(std::shared_ptr<Embedder> inner) : inner_(std::move(inner)) {}
    [[nodiscard]] std::string model_id() const override { return inner_->model_id(); }
    [[nodiscard]] std::size_t dim() const override { return inner_->dim(); }
    [[nodiscard]] Result<std::vector<float>> embed(std::span<const std::string> texts) override;
    void fit(std::span<const std::string> corpus) override { inner_->fit(corpus); }
    [[nodiscard]] std::shared_ptr<const WordVectors> word_vectors() const override { return inner_->word_vectors(); }
    [[nodiscard]] std::size_t texts() const noexcept { return texts_.load(); }
    [[nodiscard]] double milliseconds() const noexcept { return static_cast<double>(nanos_.load()) / 1e6; }

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
};

/// Loads --catalog FILE and indexes it with the chosen embedder, or opens a saved --index FILE
/// (exactly one of the two); with --events FILE, search events are appended there as JSON lines.
[[nodiscard]] Result<LoadedCatalog> load_catalog(const Args& args);

/// --top-k, --mode, --server (repeatable), --environment, --embed-timeout-ms.
/// With read_mode false, --mode is left to the caller.
[[nodiscard]] Result<SearchOptions> search_options(const Args& args, bool read_mode = true);

/// Prints "scout: <message>" to stderr and returns kExitBadInput.
int fail(const std::string& message);

}  // namespace scout::cli

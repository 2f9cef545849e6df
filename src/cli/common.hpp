// common.hpp: what the CLI commands share: building a catalog from a file, choosing the
// embedder, reading search options, and reporting errors with exit code 2.
#pragma once

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

/// "--embedder hashing[:DIM] | none" (default hashing). nullptr for none.
[[nodiscard]] Result<std::shared_ptr<Embedder>> make_embedder(const Args& args);

struct LoadedCatalog {
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

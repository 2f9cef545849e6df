// embedder_choice.hpp: which Embedder the gateway indexes with. Kept in one function so a
// different default (e.g. a real static embedding model) is a one-line change.
#pragma once

#include <memory>
#include <string>

#include "scout/embedder.hpp"

namespace scout::gateway {

/// "static[:PATH]" (the default: the word-vector model of ~/.cache/scout, or BM25 alone when it is
/// missing), "hashing[:DIM]", or "none" (BM25 only); query embeddings are cached.
/// invalid_argument for anything else.
[[nodiscard]] Result<std::shared_ptr<Embedder>> make_embedder(const std::string& spec);

}  // namespace scout::gateway

// embedder_choice.hpp: which Embedder the gateway indexes with. Kept in one function so a
// different default (e.g. a real static embedding model) is a one-line change.
#pragma once

#include <memory>
#include <string>

#include "scout/embedder.hpp"

namespace scout::gateway {

/// "hashing[:DIM]" (the default) or "none" (BM25 only). invalid_argument for anything else.
[[nodiscard]] Result<std::shared_ptr<Embedder>> make_embedder(const std::string& spec);

}  // namespace scout::gateway

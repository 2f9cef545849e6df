// embedder_choice.hpp: which Embedder the gateway indexes with. Kept in one function so a
// different default (e.g. a real static embedding model) is a one-line change.
#pragma once

#include <memory>
#include <string>

#include "scout/embedder.hpp"
#include "scout/types.hpp"

#include "embedder_options.hpp"

namespace scout::gateway {

/// "static[:PATH]" (the default: the word-vector model of ~/.cache/scout, or BM25 alone when it is
/// missing), "transformer:DIR" (a BERT-family model directory; an error if it cannot load),
/// "hashing[:DIM]", "http" (an embedding service, settings.http: BM25 alone, said on stderr,
/// when it cannot be reached at start) or "none" (BM25 only); query embeddings are cached.
/// invalid_argument for anything else, for http settings that are missing or would send a
/// key in cleartext, and for an api_version given with an embedder other than http.
[[nodiscard]] Result<std::shared_ptr<Embedder>> make_embedder(const EmbedderSettings& settings);
/// make_embedder with `spec` and no http settings.
[[nodiscard]] Result<std::shared_ptr<Embedder>> make_embedder(const std::string& spec);

/// What make_embedder would refuse, found without loading a model or contacting a service (for
/// --check-config): an unknown spec, a malformed hashing dimension, a transformer path that is
/// not a directory, http settings that are missing or would send a key in cleartext, an
/// api_version with an embedder other than http.
[[nodiscard]] Status check_embedder_settings(const EmbedderSettings& settings);

/// The search mode that fits `embedder`: BM25 alone without one. Hybrid search without a dense
/// index would fall back to BM25 on every query and report each search as degraded, when
/// running without vectors was the operator's choice.
[[nodiscard]] Mode search_mode(const std::shared_ptr<Embedder>& embedder) noexcept;

/// The start-up log line of the embedder made from `spec` (its kind and path):
/// "embedder: <spec> model <model id>, <dim> dimensions", or "embedder: none: BM25 only (<why>)".
[[nodiscard]] std::string describe_embedder(const std::string& spec,
                                            const std::shared_ptr<Embedder>& embedder);

}  // namespace scout::gateway

// synthetic_docs.hpp: seeded random corpora for the micro-benchmarks: tool-like texts drawn
// from a Zipf-distributed made-up vocabulary, unit vectors, and whole catalogs of N tools.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scout/types.hpp"

namespace scout::bench {

/// `count` texts of about `words` words each (identifier-style names, then prose).
[[nodiscard]] std::vector<std::string> synthetic_texts(std::size_t count,
                                                       std::size_t words,
                                                       std::uint64_t seed);

/// `count` L2-normalized vectors of `dim` floats, row-major.
[[nodiscard]] std::vector<float> synthetic_vectors(std::size_t count,
                                                   std::size_t dim,
                                                   std::uint64_t seed);

/// A catalog of `tools` tools on servers of 10 tools each, with small JSON schemas.
[[nodiscard]] CatalogSpec synthetic_catalog(std::size_t tools, std::uint64_t seed);

}  // namespace scout::bench

// synthetic_catalog.hpp: grows a hand-written catalog to benchmark scale (thousands of tools,
// hundreds of servers) with deterministic, seeded variants of its servers: the same products
// deployed for other teams and regions. Every synthetic server says so in its description.
#pragma once

#include <cstdint>
#include <string>

#include "scout/status.hpp"
#include "scout/types.hpp"

namespace scout::eval {

/// Marks the description of every generated server.
inline constexpr std::string_view kSyntheticMarker = "[synthetic]";

struct SyntheticOptions {
    std::uint64_t seed = 42;
    std::size_t servers = 220;  ///< total servers, base included
    std::size_t tools = 2200;   ///< total tools, base included
};

/// Returns `base` (unchanged, first) plus generated servers until the totals are reached exactly.
/// A generated server copies a base server's category and a seeded subset of its tools (names
/// and schemas kept, descriptions scoped to the new team/region), topped up from servers of the
/// same category when it needs more tools than its model has. Deterministic for a given
/// (base, options) on every platform. invalid_argument if the totals are below the base's, if
/// there are no base servers, or if tools < servers (each server needs a tool).
[[nodiscard]] Result<CatalogSpec> synthesize_catalog(const CatalogSpec& base,
                                                     const SyntheticOptions& options);

/// Serializes a catalog in the catalog JSON format (parse_catalog_json reads it back), with
/// `source` recorded at the top level. Schemas and annotations are embedded as JSON.
[[nodiscard]] std::string catalog_to_json(const CatalogSpec& catalog, const std::string& source);

}  // namespace scout::eval

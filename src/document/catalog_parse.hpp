// catalog_parse.hpp: parse_catalog_json with a byte-progress callback, for the CLI's progress
// display while a large catalog file is parsed (the public API has no callback).
#pragma once

#include <string_view>

#include "scout/catalog_loader.hpp"

#include "util/json_limits.hpp"

namespace scout::detail {

/// parse_catalog_json(text), telling `progress` how many bytes of the JSON have been read.
[[nodiscard]] Result<CatalogSpec> parse_catalog_json(std::string_view text,
                                                     const ParseProgress& progress);

}  // namespace scout::detail

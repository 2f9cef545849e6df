// catalog_json.hpp: the CATL section's JSON text -> a CatalogSpec, read in one streaming pass.
// Opening a large index spends most of its time here, so the text is read straight into the
// servers and tools instead of through a JSON tree that is then copied and destroyed.
#pragma once

#include <string_view>

#include "scout/status.hpp"
#include "scout/types.hpp"

namespace scout::detail {

/// `{"servers": [{"name", "description", "category", "environment", "status", "tools":
/// [{"name", "title", "description", "input_schema", "annotations"}]}]}`: every listed member
/// is required and a string (tools an array), other members are skipped, and a member that
/// appears twice keeps its last value. Nesting deeper than kMaxJsonDepth is refused. Checks the
/// shape only (a known status, but not names, order or schemas). invalid_argument otherwise.
[[nodiscard]] Result<CatalogSpec> read_catalog_json(std::string_view text);

}  // namespace scout::detail

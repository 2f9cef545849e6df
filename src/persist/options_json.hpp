// options_json.hpp: CatalogOptions <-> the "options" object of an index file's META section.
#pragma once

#include <nlohmann/json.hpp>

#include "scout/options.hpp"
#include "scout/status.hpp"

namespace scout::detail {

[[nodiscard]] nlohmann::json options_to_json(const CatalogOptions& options);
/// Strict: every field present with the right type and within sane bounds, else corrupt.
[[nodiscard]] Result<CatalogOptions> options_from_json(const nlohmann::json& j);

}  // namespace scout::detail

// doctor_json.hpp: the catalog doctor from JSON in to JSON out, for the C ABI (scout_doctor)
// and the Python module, so both run it the same way `scout doctor` does.
#pragma once

#include <string>
#include <string_view>

#include "scout/status.hpp"

namespace scout::detail {

/// Indexes `servers_json` (the catalog file format) in a catalog made with the catalog options
/// `options_json` (empty: the defaults), and returns doctor_report_json of diagnose() on it,
/// searched in the catalog's default mode (bm25 without an embedder, as `scout doctor`).
[[nodiscard]] Result<std::string> doctor_json(std::string_view servers_json,
                                              std::string_view options_json);

}  // namespace scout::detail

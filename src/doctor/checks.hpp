// checks.hpp: the doctor's two kinds of checks. Static checks read the catalog's text and
// schemas; self-retrieval checks search the catalog with each tool's own words.
#pragma once

#include <map>
#include <vector>

#include "scout/doctor.hpp"

namespace scout::detail {

/// Description, parameter, schema and name checks of one tool.
void check_tool(const ServerSpec& server,
                const ToolSpec& tool,
                const DoctorOptions& options,
                std::vector<Finding>& out);

/// A server without a description.
void check_server(const ServerSpec& server, std::vector<Finding>& out);

/// Tools whose normalised descriptions are identical, within and across servers.
void check_duplicates(const CatalogSpec& spec, std::vector<Finding>& out);

/// Self-retrieval of every searchable tool: confusable and near-duplicate findings, and which
/// tools ranked first for their own description (keyed by server, then tool).
struct SelfRetrieval {
    std::size_t checked = 0;
    std::map<std::string, std::map<std::string, bool>> first;
};
[[nodiscard]] Result<SelfRetrieval> check_self_retrieval(const Searcher& searcher,
                                                         const DoctorOptions& options,
                                                         std::vector<Finding>& out);

}  // namespace scout::detail

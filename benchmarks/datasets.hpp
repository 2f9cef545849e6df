// datasets.hpp: the labelled datasets the evaluation benchmark runs over: the bundled
// enterprise catalog, its synthetic growth, and every public dataset directory with a
// catalog.json and queries.json.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "scout/types.hpp"

#include "eval/evaluation.hpp"
#include "eval/synthetic_catalog.hpp"

namespace scout::bench {

struct Dataset {
    std::string name;
    CatalogSpec catalog;
    std::vector<eval::LabelledQuery> queries;
};

struct DatasetList {
    std::vector<Dataset> datasets;
    std::vector<std::string> notes;  ///< why a dataset was skipped
};

/// Loads root/data (as "enterprise"), grows it into "enterprise+synthetic" with `synthetic`,
/// then every subdirectory of `shared_dir` in name order. A missing or unreadable dataset is
/// skipped with a note; a broken bundled dataset is an error.
[[nodiscard]] Result<DatasetList> load_datasets(const std::filesystem::path& root,
                                                const std::filesystem::path& shared_dir,
                                                const eval::SyntheticOptions& synthetic);

/// Number of tools in a catalog spec.
[[nodiscard]] std::size_t tool_count(const CatalogSpec& spec);

}  // namespace scout::bench

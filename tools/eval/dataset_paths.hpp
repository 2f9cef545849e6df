// dataset_paths.hpp: where the tools find the project's data/ and the public datasets. The one
// place that resolves them, so the CLI, the benchmarks and the scripts agree.
#pragma once

#include <filesystem>

namespace scout::eval {

/// The checkout the tools were built from: $SCOUT_SOURCE_DIR when set, else the source
/// directory recorded at build time.
[[nodiscard]] std::filesystem::path source_root();

/// The public datasets: $SCOUT_DATASETS when set, else `../shared/datasets` next to the
/// checkout. The folder may be missing; callers skip what they cannot find.
[[nodiscard]] std::filesystem::path datasets_dir();

/// The labelled training sets (bfcl, metatool, seal_tools): $SCOUT_TRAINING when set, else
/// `../shared/training` next to the checkout. Never the evaluation datasets.
[[nodiscard]] std::filesystem::path training_dir();

}  // namespace scout::eval

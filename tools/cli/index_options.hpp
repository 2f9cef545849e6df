// index_options.hpp: index-time settings from the command line (--bm25, --stem, --fusion, ...):
// their option table, with defaults printed from CatalogOptions itself, and their parser.
#pragma once

#include <string>

#include "scout/options.hpp"
#include "scout/status.hpp"

#include "cli/args.hpp"

namespace scout::cli {

/// The options index_options() reads, with their defaults (from CatalogOptions{}) and help.
[[nodiscard]] OptionGroup index_option_group();

/// CatalogOptions from `--bm25 k1=1.2,b=0.75,name=3,server=1,server_description=0.5,
/// description=1,parameters=0.5` (any subset), `--stem on|off|both` and
/// `--fusion rrf|weighted_rrf|score_blend|anchored|gated[,k=60][,bm25=W][,dense=W][,fetch=3]
/// [,confidence=P][,gated_dense=W][,depth=N][,disagree=G][,gated_confidence=P][,overlap=P][,relative=0|1]`;
/// defaults otherwise.
[[nodiscard]] Result<CatalogOptions> index_options(const Args& args);

}  // namespace scout::cli

// index_options.hpp: index-time settings from the command line (--bm25, --stem).
#pragma once

#include <set>
#include <string>

#include "cli/args.hpp"
#include "scout/options.hpp"
#include "scout/status.hpp"

namespace scout::cli {

/// Option names read by index_options().
const std::set<std::string>& index_option_names();

/// CatalogOptions from `--bm25 k1=1.2,b=0.75,name=3,server=1,server_description=0.5,
/// description=1,parameters=0.5` (any subset), `--stem on|off|both` and
/// `--fusion rrf|weighted_rrf|score_blend[,k=60][,bm25=W][,dense=W][,fetch=3]`; defaults otherwise.
[[nodiscard]] Result<CatalogOptions> index_options(const Args& args);

}  // namespace scout::cli

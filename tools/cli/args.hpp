// args.hpp: the `scout` command's names for the shared command-line parser (tools/args): each
// command's options live in one table (command_specs.cpp), which the parser accepts exactly and
// --help prints.
#pragma once

#include "args/args.hpp"

namespace scout::cli {

using args::Args;
using args::CommandSpec;
using args::OptionGroup;
using args::OptionSpec;
using args::register_command;

}  // namespace scout::cli

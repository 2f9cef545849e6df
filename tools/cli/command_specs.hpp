// command_specs.hpp: the option table of every `scout` command. Parsing and `--help` both read
// these tables (cli/args.hpp); defaults are printed from the library's own default values.
#pragma once

#include <vector>

#include "cli/args.hpp"

namespace scout::cli {

[[nodiscard]] const CommandSpec& search_spec();
[[nodiscard]] const CommandSpec& eval_spec();
[[nodiscard]] const CommandSpec& index_spec();
[[nodiscard]] const CommandSpec& calibrate_spec();
[[nodiscard]] const CommandSpec& tokens_spec();
[[nodiscard]] const CommandSpec& options_spec();
[[nodiscard]] const CommandSpec& synth_spec();
[[nodiscard]] const CommandSpec& doctor_spec();
[[nodiscard]] const CommandSpec& registry_spec();

/// The bounds `scout registry` connects with unless told otherwise.
struct RegistryDefaults {
    long long connect_ms = 5000;
    long long statement_ms = 10000;
    unsigned long long keep_changes = 10000;
};

/// Every command, in the order `scout --help` lists them.
[[nodiscard]] const std::vector<const CommandSpec*>& all_specs();

}  // namespace scout::cli

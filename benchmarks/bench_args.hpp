// bench_args.hpp: the benchmarks' command lines on scout_args, the parser the scout command and
// scout-gateway share: each benchmark declares a table of its options (name, value, default,
// help, and what a value sets or why it is refused), and gets `--opt value` and `--opt=value`,
// the nearest option for a typo, values checked before anything runs, and --help from the table.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "scout/embedder.hpp"

#include "args/args.hpp"
#include "args/values.hpp"

namespace scout::bench {

/// Parses argv[1..] against `spec`. nullopt after --help (printed to stdout, `exit_code` 0) or
/// after an error (one line on stderr naming the option, `exit_code` 2).
[[nodiscard]] std::optional<args::Args> parse_args(int argc,
                                                   char** argv,
                                                   const args::CommandSpec& spec,
                                                   int& exit_code);

/// An option's `apply` that reads a whole number in [min, max] into `out`.
template <typename Int>
auto whole_into(Int& out, std::uint64_t min, std::uint64_t max) {
    return [&out, min, max](const std::string& value) {
        return args::read_whole_into(value, min, max, out);
    };
}

/// An option's `apply` that takes "none", "static", "hashing" or "hashing:DIM" (DIM 1..65536)
/// into `out`.
[[nodiscard]] std::function<std::string(const std::string&)> embedder_into(std::string& out);

/// `--embedder none|static|hashing[:DIM]` into `spec` (its current value is the default shown).
[[nodiscard]] args::OptionSpec embedder_option(std::string& spec);

/// `--datasets DIR`, the public datasets (default $SCOUT_DATASETS, else ../shared/datasets),
/// into `dir`.
[[nodiscard]] args::OptionSpec datasets_option(std::filesystem::path& dir,
                                               std::string help = "the public datasets");

/// The embedder an embedder_into() spec names: nullptr for "none", the shipped static model for
/// "static" (an error when it is missing), else a HashingEmbedder (256 dimensions by default).
[[nodiscard]] Result<std::shared_ptr<Embedder>> make_embedder(const std::string& spec);

}  // namespace scout::bench

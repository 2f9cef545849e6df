// tokens_command.cpp: `scout tokens --encoding cl100k_base|o200k_base --file FILE` prints the
// number of BPE tokens of the file's text (rank files from TokenCounter::default_rank_dir()).
#include <iostream>

#include <nlohmann/json.hpp>

#include "scout/catalog_loader.hpp"
#include "scout/token_counter.hpp"

#include "capi/json_bridge.hpp"
#include "cli/command_specs.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "util/file_io.hpp"

namespace scout::cli {
namespace {

/// The text is held whole while it is counted; a larger file is refused, not read.
constexpr std::size_t kMaxTextBytes = std::size_t{256} << 20;

}  // namespace

int run_tokens(int argc, char** argv) {
    ParsedCommand parsed = parse_command(argc, argv, tokens_spec());
    if (!parsed.args) {
        return parsed.exit_code;
    }
    const Args* args = &*parsed.args;
    if (!args->positional().empty()) {
        return fail("tokens takes no positional arguments");
    }
    const auto encoding = parse_token_encoding(args->get("encoding").value_or("cl100k_base"));
    if (!encoding) {
        return fail("--encoding must be cl100k_base or o200k_base");
    }
    auto path = args->get("file");
    if (!path) {
        return fail("--file FILE is required");
    }
    auto text = detail::read_text_file(*path, kMaxTextBytes);
    if (!text) {
        return fail(text.status().message());
    }
    auto counter = TokenCounter::load_default(*encoding);
    if (!counter) {
        return fail(counter.status().message());
    }
    const std::size_t tokens = counter->count(text.value());
    if (args->has("json")) {
        const nlohmann::json out = {{"file", *path},
                                    {"encoding", token_encoding_name(*encoding)},
                                    {"bytes", text->size()},
                                    {"tokens", tokens}};
        std::cout << detail::dump_json(out, 2) << "\n";
    } else {
        std::cout << tokens << "\n";
    }
    return kExitOk;
}

}  // namespace scout::cli

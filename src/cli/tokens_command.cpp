// tokens_command.cpp: `scout tokens --encoding cl100k_base|o200k_base --file FILE` prints the
// number of BPE tokens of the file's text (rank files from TokenCounter::default_rank_dir()).
#include <iostream>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "scout/catalog_loader.hpp"
#include "scout/token_counter.hpp"

namespace scout::cli {

int run_tokens(int argc, char** argv) {
    std::string error;
    auto args = Args::parse(argc, argv, 2, {}, {"encoding", "file"}, error);
    if (!args) {
        return fail(error);
    }
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
    auto text = read_text_file(*path);
    if (!text) {
        return fail(text.status().message());
    }
    auto counter = TokenCounter::load_default(*encoding);
    if (!counter) {
        return fail(counter.status().message());
    }
    std::cout << counter->count(text.value()) << "\n";
    return kExitOk;
}

}  // namespace scout::cli

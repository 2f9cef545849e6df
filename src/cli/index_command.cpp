// index_command.cpp: `scout index --catalog FILE --out INDEX [--embedder E] [index settings]`:
// index a catalog once and save it, so `search --index` and `eval --index` start without
// re-embedding. Index settings (--bm25, --stem, --fusion, --expand) are stored in the file.
#include <cstdio>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/index_options.hpp"
#include "scout/persistence.hpp"

namespace scout::cli {

int run_index(int argc, char** argv) {
    std::string error;
    std::set<std::string> options = index_option_names();
    options.insert({"catalog", "embedder", "out"});
    auto args = Args::parse(argc, argv, 2, {}, options, error);
    if (!args) {
        return fail(error);
    }
    if (!args->positional().empty()) {
        return fail("index takes no positional arguments");
    }
    auto out = args->get("out");
    if (!out || !args->has("catalog")) {
        return fail("index needs --catalog FILE and --out INDEX");
    }
    auto loaded = load_catalog(*args);
    if (!loaded) {
        return fail(loaded.status().message());
    }
    if (Status s = loaded->catalog->save(*out); !s.ok()) {
        return fail(s.message());
    }
    auto info = inspect_index_file(*out);
    if (!info) {
        return fail(info.status().message());
    }
    std::printf("%s: %zu servers, %zu tools (%zu indexed, %zu vectors of dim %zu, model '%s'), %llu bytes "
                "(%.0f bytes per tool), built in %.1f ms\n",
                out->c_str(), info->servers, info->tools, info->indexed_tools, info->vectors, info->dim,
                info->model_id.c_str(), static_cast<unsigned long long>(info->file_bytes),
                info->tools == 0 ? 0.0 : static_cast<double>(info->file_bytes) / static_cast<double>(info->tools),
                loaded->info.build_ms);
    return kExitOk;
}

}  // namespace scout::cli

// index_command.cpp: `scout index --catalog FILE --out INDEX [--embedder E] [index settings]`:
// index a catalog once and save it, so `search --index` and `eval --index` start without
// re-embedding. Index settings (--bm25, --stem, --fusion, --expand) are stored in the file.
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "scout/catalog.hpp"

#include "capi/json_bridge.hpp"
#include "cli/command_specs.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/index_options.hpp"
#include "util/file_io.hpp"

namespace scout::cli {

int run_index(int argc, char** argv) {
    ParsedCommand parsed = parse_command(argc, argv, index_spec());
    if (!parsed.args) {
        return parsed.exit_code;
    }
    const Args* args = &*parsed.args;
    if (!args->positional().empty()) {
        return fail("index takes no positional arguments");
    }
    auto out = args->get("out");
    if (!out || !args->has("catalog")) {
        return fail("index needs --catalog FILE and --out INDEX");
    }
    // Checked before the (possibly long) indexing; save() checks the target again.
    std::error_code ec;
    if (std::filesystem::equivalent(*out, *args->get("catalog"), ec)) {
        return fail("--out " + *out + " is the input catalog; refusing to overwrite it");
    }
    if (Status s = detail::check_replaceable(*out); !s.ok()) {
        return fail(s.message());
    }
    Progress progress(*args);
    auto loaded = load_catalog(*args, &progress);
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
    const double per_tool =
        info->tools == 0 ? 0.0
                         : static_cast<double>(info->file_bytes) / static_cast<double>(info->tools);
    if (args->has("json")) {
        const nlohmann::json out_json = {
            {"out", *out},
            {"servers", info->servers},
            {"tools", info->tools},
            {"indexed_tools", info->indexed_tools},
            {"vectors", info->vectors},
            {"dim", info->dim},
            {"model_id", info->model_id},
            {"file_bytes", info->file_bytes},
            {"bytes_per_tool", per_tool},
            {"build_ms", loaded->info.build_ms},
            {"format", {{"major", info->format_major}, {"minor", info->format_minor}}}};
        std::cout << detail::dump_json(out_json, 2) << "\n";
        return kExitOk;
    }
    std::printf(
        "%s: %zu servers, %zu tools (%zu indexed, %zu vectors of dim %zu, model '%s'), %llu bytes "
        "(%.0f bytes per tool), built in %.1f ms\n",
        out->c_str(),
        info->servers,
        info->tools,
        info->indexed_tools,
        info->vectors,
        info->dim,
        info->model_id.c_str(),
        static_cast<unsigned long long>(info->file_bytes),
        per_tool,
        loaded->info.build_ms);
    return kExitOk;
}

}  // namespace scout::cli

// synth_command.cpp: `scout synth [--catalog FILE] [--seed N] [--servers N] [--tools N] [--out
// FILE]` grows a catalog with seeded synthetic server variants (see eval/synthetic_catalog.hpp) and
// writes it as catalog JSON (stdout without --out).
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "scout/catalog_loader.hpp"

#include "capi/json_bridge.hpp"
#include "cli/command_specs.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "eval/synthetic_catalog.hpp"
#include "util/data_dir.hpp"
#include "util/file_io.hpp"

namespace scout::cli {
namespace {

/// The catalog `scout synth` grows by default: data/enterprise_catalog.json, shipped in
/// share/scout.
constexpr const char* kBundledCatalog = "enterprise_catalog.json";

bool parse_u64(const std::optional<std::string>& text, std::uint64_t& out) {
    if (!text) {
        return true;
    }
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), out);
    return ec == std::errc() && ptr == text->data() + text->size();
}

}  // namespace

int run_synth(int argc, char** argv) {
    ParsedCommand parsed = parse_command(argc, argv, synth_spec());
    if (!parsed.args) {
        return parsed.exit_code;
    }
    const Args* args = &*parsed.args;
    if (!args->positional().empty()) {
        return fail("synth takes no positional arguments");
    }
    eval::SyntheticOptions options;
    std::uint64_t servers = options.servers;
    std::uint64_t tools = options.tools;
    if (!parse_u64(args->get("seed"), options.seed) || !parse_u64(args->get("servers"), servers) ||
        !parse_u64(args->get("tools"), tools)) {
        return fail("--seed, --servers and --tools need whole numbers");
    }
    if (servers > 100000 || tools > 1000000) {
        return fail("--servers is limited to 100000 and --tools to 1000000");
    }
    options.servers = servers;
    options.tools = tools;
    // The default is the bundled catalog, shipped with scout's data (share/scout) and found as
    // the model is, wherever the command runs (never a path relative to the working directory).
    std::string base_path;
    if (auto given = args->get("catalog")) {
        base_path = *given;
    } else {
        std::error_code ec;
        for (const std::filesystem::path& dir : detail::data_dirs()) {
            if (std::filesystem::is_regular_file(dir / kBundledCatalog, ec)) {
                base_path = (dir / kBundledCatalog).string();
                break;
            }
        }
        if (base_path.empty()) {
            return fail(std::string("the bundled catalog ") + kBundledCatalog +
                        " is in none of scout's data folders (see SCOUT_DATA_DIR); give --catalog "
                        "FILE");
        }
    }
    auto base = load_catalog_file(base_path);
    if (!base) {
        return fail(base.status().message());
    }
    auto grown = eval::synthesize_catalog(base.value(), options);
    if (!grown) {
        return fail(grown.status().message());
    }
    const std::string source = "synthetic: " + base_path + " grown by `scout synth --seed " +
                               std::to_string(options.seed) + " --servers " +
                               std::to_string(options.servers) + " --tools " +
                               std::to_string(options.tools) +
                               "`; servers marked [synthetic] are generated variants";
    const std::string text = eval::catalog_to_json(grown.value(), source);
    if (auto out = args->get("out")) {
        auto lock = detail::lock_for_writing_in_place(*out);  // held while writing in place
        if (!lock) {
            return fail(lock.status().message());
        }
        std::ofstream file(*out, std::ios::binary);
        if (!(file << text)) {
            return fail(*out + ": cannot write");
        }
        if (args->has("json")) {
            std::size_t tool_count = 0;
            for (const ServerSpec& server : grown->servers) {
                tool_count += server.tools.size();
            }
            const nlohmann::json summary = {{"out", *out},
                                            {"catalog", base_path},
                                            {"seed", options.seed},
                                            {"servers", grown->servers.size()},
                                            {"tools", tool_count},
                                            {"bytes", text.size()}};
            std::cout << detail::dump_json(summary, 2) << "\n";
        }
    } else {
        std::cout << text;
    }
    return kExitOk;
}

}  // namespace scout::cli

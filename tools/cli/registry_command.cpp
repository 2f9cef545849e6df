// registry_command.cpp: `scout registry init | status | push CATALOG | gc | publish`
// (docs/scale-out.md).
#include <cstdlib>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "scout/catalog_loader.hpp"
#include "scout/registry/registry.hpp"

#include "capi/json_bridge.hpp"
#include "cli/command_specs.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace scout::cli {
namespace {

Result<std::chrono::milliseconds> milliseconds(const Args& args,
                                               const char* key,
                                               long long fallback) {
    const auto text = args.get(key);
    if (!text) {
        return std::chrono::milliseconds(fallback);
    }
    char* end = nullptr;
    const long long v = std::strtoll(text->c_str(), &end, 10);
    if (end == text->c_str() || *end != '\0' || v < 1 || v > 3600000) {
        return Status{Errc::invalid_argument,
                      std::string("--") + key + " must be a number of milliseconds in 1..3600000"};
    }
    return std::chrono::milliseconds(v);
}

Result<registry::ConnectOptions> connect_options(const Args& args) {
    registry::ConnectOptions out;
    const auto url = args.get("registry");
    if (!url) {
        return Status{Errc::invalid_argument, "--registry URL is required"};
    }
    out.url = *url;
    if (Status s = registry::check_url(out.url); !s.ok()) {
        return s;
    }
    out.password_file = args.get("password-file").value_or("");
    const RegistryDefaults d;
    auto connect = milliseconds(args, "connect-timeout-ms", d.connect_ms);
    auto statement = milliseconds(args, "statement-timeout-ms", d.statement_ms);
    if (!connect.ok()) {
        return connect.status();
    }
    if (!statement.ok()) {
        return statement.status();
    }
    out.connect_timeout = *connect;
    out.statement_timeout = *statement;
    return out;
}

int print_status(const registry::ConnectOptions& connect, bool json) {
    auto status = registry::status(connect);
    if (!status.ok()) {
        std::cerr << "scout: " << status.status().message() << "\n";
        return kExitFailure;
    }
    if (json) {
        const nlohmann::json out = {{"schema_version", status->schema_version},
                                    {"head_seq", status->head_seq},
                                    {"servers", status->servers},
                                    {"tools", status->tools},
                                    {"changes", status->changes},
                                    {"embeddings", status->embeddings},
                                    {"model_id", status->model_id}};
        std::cout << detail::dump_json(out, 2) << "\n";
    } else {
        std::cout << "schema version " << status->schema_version << ", head " << status->head_seq
                  << "\n"
                  << status->servers << " servers, " << status->tools << " tools, "
                  << status->changes << " changes in the log\n"
                  << status->embeddings << " document vectors"
                  << (status->model_id.empty() ? std::string()
                                               : ", latest model " + status->model_id)
                  << "\n";
    }
    return kExitOk;
}

int push_catalog(const registry::ConnectOptions& connect, const Args& args) {
    if (args.positional().size() != 2) {
        return fail("registry push takes one catalog file: scout registry push CATALOG");
    }
    auto spec = load_catalog_file(args.positional()[1]);
    if (!spec.ok()) {
        return fail(spec.status().message());
    }
    auto embedder = make_embedder(args);
    if (!embedder.ok()) {
        return fail(embedder.status().message());
    }
    registry::PushOptions options;
    options.remove_missing = args.has("remove-missing");
    auto pushed = registry::push(connect, *spec, *embedder, options);
    if (!pushed.ok()) {
        std::cerr << "scout: " << pushed.status().message() << "\n";
        return kExitFailure;
    }
    if (args.has("json")) {
        const nlohmann::json out = {{"head_seq", pushed->head_seq},
                                    {"changed", pushed->changed},
                                    {"unchanged", pushed->unchanged},
                                    {"removed", pushed->removed},
                                    {"vectors_added", pushed->vectors_added},
                                    {"vectors_reused", pushed->vectors_reused},
                                    {"model_id", pushed->model_id}};
        std::cout << detail::dump_json(out, 2) << "\n";
    } else {
        std::cout << "pushed: " << pushed->changed << " servers changed, " << pushed->unchanged
                  << " unchanged, " << pushed->removed << " removed; " << pushed->vectors_added
                  << " documents embedded, " << pushed->vectors_reused << " vectors reused; head "
                  << pushed->head_seq << "\n";
    }
    return kExitOk;
}

int collect_garbage(const registry::ConnectOptions& connect, const Args& args) {
    registry::GcOptions options;
    if (const auto keep = args.get("keep-changes")) {
        char* end = nullptr;
        options.keep_changes = std::strtoull(keep->c_str(), &end, 10);
        if (end == keep->c_str() || *end != '\0' || (*keep)[0] == '-') {
            return fail("--keep-changes must be a whole number");
        }
    }
    if (const auto keep = args.get("keep-bases")) {
        char* end = nullptr;
        options.keep_bases = std::strtoull(keep->c_str(), &end, 10);
        if (end == keep->c_str() || *end != '\0' || (*keep)[0] == '-') {
            return fail("--keep-bases must be a whole number");
        }
    }
    options.base_directory = args.get("base-dir").value_or("");
    if (args.has("keep-bases") && options.base_directory.empty()) {
        return fail("--keep-bases needs --base-dir DIR, the directory bases are published in");
    }
    auto done = registry::gc(connect, options);
    if (!done.ok()) {
        std::cerr << "scout: " << done.status().message() << "\n";
        return kExitFailure;
    }
    if (args.has("json")) {
        const nlohmann::json out = {{"changes_removed", done->changes_removed},
                                    {"vectors_removed", done->vectors_removed},
                                    {"models_removed", done->models_removed},
                                    {"bases_removed", done->bases_removed}};
        std::cout << detail::dump_json(out, 2) << "\n";
    } else {
        std::cout << "removed " << done->changes_removed << " changes, " << done->vectors_removed
                  << " vectors of " << done->models_removed << " older models, "
                  << done->bases_removed << " superseded bases\n";
    }
    return kExitOk;
}

int publish_base(const registry::ConnectOptions& connect, const Args& args) {
    const auto dir = args.get("base-dir");
    if (!dir || dir->empty()) {
        return fail(
            "registry publish needs --base-dir DIR, the directory replicas read bases from");
    }
    auto embedder = make_embedder(args);
    if (!embedder.ok()) {
        return fail(embedder.status().message());
    }
    registry::BuilderOptions options;
    options.replica.connect = connect;
    options.directory = *dir;
    auto builder = registry::BaseBuilder::start(options, *embedder);
    if (!builder.ok()) {
        std::cerr << "scout: " << builder.status().message() << "\n";
        return kExitFailure;
    }
    auto base = (*builder)->publish();
    if (!base.ok()) {
        std::cerr << "scout: " << base.status().message() << "\n";
        return kExitFailure;
    }
    if (args.has("json")) {
        const nlohmann::json out = {{"generation", base->generation},
                                    {"seq", base->seq},
                                    {"digest", base->digest},
                                    {"file", base->file_name},
                                    {"model_id", base->model_id},
                                    {"epoch", base->epoch},
                                    {"tools", base->tools}};
        std::cout << detail::dump_json(out, 2) << "\n";
    } else {
        std::cout << "published base " << base->generation << " at sequence " << base->seq << ": "
                  << base->file_name << " (" << base->tools << " tools, builder epoch "
                  << base->epoch << ")\n";
    }
    return kExitOk;
}

}  // namespace

int run_registry(int argc, char** argv) {
    ParsedCommand parsed = parse_command(argc, argv, registry_spec());
    if (!parsed.args) {
        return parsed.exit_code;
    }
    const Args& args = *parsed.args;
    if (args.positional().empty()) {
        return fail("registry needs an action: init, status, push CATALOG, gc or publish");
    }
    const std::string& action = args.positional()[0];
    if (action != "init" && action != "status" && action != "push" && action != "gc" &&
        action != "publish") {
        return fail("unknown registry action '" + action +
                    "' (init, status, push CATALOG, gc or publish)");
    }
    if (action != "push" && args.positional().size() != 1) {
        return fail("registry " + action + " takes no other argument");
    }
    auto connect = connect_options(args);
    if (!connect.ok()) {
        return fail(connect.status().message());
    }
    if (action == "init") {
        if (Status s = registry::init(*connect); !s.ok()) {
            std::cerr << "scout: " << s.message() << "\n";
            return kExitFailure;
        }
        return print_status(*connect, args.has("json"));
    }
    if (action == "status") {
        return print_status(*connect, args.has("json"));
    }
    if (action == "gc") {
        return collect_garbage(*connect, args);
    }
    if (action == "publish") {
        return publish_base(*connect, args);
    }
    return push_catalog(*connect, args);
}

}  // namespace scout::cli

// bench_args.cpp: see bench_args.hpp.
#include "bench_args.hpp"

#include <iostream>
#include <utility>

namespace scout::bench {

std::optional<args::Args> parse_args(int argc,
                                     char** argv,
                                     const args::CommandSpec& spec,
                                     int& exit_code) {
    std::string error;
    auto parsed = args::Args::parse(argc, argv, 1, spec, error);
    if (!parsed) {
        std::cerr << spec.name << ": " << error << " (see " << spec.name << " --help)\n";
        exit_code = 2;
        return std::nullopt;
    }
    if (parsed->help()) {
        spec.print_help(std::cout);
        exit_code = 0;
        return std::nullopt;
    }
    exit_code = 0;
    return parsed;
}

std::function<std::string(const std::string&)> embedder_into(std::string& out) {
    return [&out](const std::string& value) -> std::string {
        if (value == "none" || value == "static" || value == "hashing") {
            out = value;
            return "";
        }
        std::size_t dim = 0;
        if (value.rfind("hashing:", 0) == 0 &&
            args::read_whole_into(value.substr(8), 1, 65536, dim).empty()) {
            out = value;
            return "";
        }
        return "must be none, static, hashing or hashing:DIM (DIM 1..65536)";
    };
}

args::OptionSpec embedder_option(std::string& spec) {
    return {
        "embedder", "none|static|hashing[:DIM]", spec, "the embedder", false, embedder_into(spec)};
}

args::OptionSpec datasets_option(std::filesystem::path& dir, std::string help) {
    return {"datasets",
            "DIR",
            "$SCOUT_DATASETS, else ../shared/datasets",
            std::move(help),
            false,
            [&dir](const std::string& value) { return (dir = value, std::string()); }};
}

Result<std::shared_ptr<Embedder>> make_embedder(const std::string& spec) {
    if (spec == "none") {
        return std::shared_ptr<Embedder>();
    }
    if (spec == "static") {  // the shipped model, as the CLI's default
        auto model = StaticEmbedder::load_default();
        if (!model) {
            return model.status();
        }
        return std::shared_ptr<Embedder>(model.value());
    }
    std::size_t dim = 256;
    if (const auto colon = spec.find(':'); colon != std::string::npos) {
        if (std::string why = args::read_whole_into(spec.substr(colon + 1), 1, 65536, dim);
            !why.empty()) {
            return Status{Errc::invalid_argument, "embedder " + spec + ": " + why};
        }
    }
    return std::shared_ptr<Embedder>(std::make_shared<HashingEmbedder>(dim));
}

}  // namespace scout::bench

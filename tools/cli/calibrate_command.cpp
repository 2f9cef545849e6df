// calibrate_command.cpp: `scout calibrate --embedder SPEC [--training DIR] [--out FILE]
// [--queries-per-source N] [--seed N]`: fits the fusion settings to the embedder on the labelled
// training sets, reports leave-one-source-out validation, and writes a calibration file.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>

#include "scout/embedder.hpp"

#include "args/values.hpp"
#include "cli/command_specs.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/progress.hpp"
#include "eval/calibration_fit.hpp"
#include "util/file_io.hpp"

namespace scout::cli {
namespace {

namespace fs = std::filesystem;

/// Every sub-folder of `dir` with a catalog.json and a queries.json, by name.
// An installed program must not know the tree it was built in, so the default is found from the
// working directory (a checkout's root), not from a path recorded at build time.
std::string default_training_dir() {
    const char* env = std::getenv("SCOUT_TRAINING");
    return env != nullptr && *env != '\0' ? std::string(env) : std::string("../shared/training");
}

std::vector<fs::path> training_sources(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (entry.is_directory(ec) && fs::is_regular_file(entry.path() / "catalog.json", ec) &&
            fs::is_regular_file(entry.path() / "queries.json", ec)) {
            out.push_back(entry.path());
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// At most `cap` labelled queries (0 = all), a seeded sample kept in file order.
std::vector<eval::LabelledQuery> sample_queries(std::vector<eval::LabelledQuery> queries,
                                                std::size_t cap,
                                                std::uint64_t seed) {
    std::erase_if(queries, [](const eval::LabelledQuery& q) { return q.relevant.empty(); });
    if (cap == 0 || queries.size() <= cap) {
        return queries;
    }
    std::vector<std::size_t> order(queries.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::mt19937_64 rng(seed);
    std::shuffle(order.begin(), order.end(), rng);
    order.resize(cap);
    std::sort(order.begin(), order.end());
    std::vector<eval::LabelledQuery> out;
    out.reserve(cap);
    for (std::size_t i : order) {
        out.push_back(std::move(queries[i]));
    }
    return out;
}

std::string score_text(const eval::SourceScore& s) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.3f %.3f %.3f", s.hit_at_1, s.hit_at_5, s.mrr);
    return buffer;
}

/// The fit's report: per source on every source's fit, then leave-one-source-out.
std::string report_text(const eval::FitResult& fit,
                        const std::vector<eval::CalibrationSource>& sources) {
    std::ostringstream out;
    out << "fitted: " << eval::describe_fusion(fit.fusion) << " (" << fit.settings_tried
        << " settings tried)\n";
    out << "fit on every source (H@1 H@5 MRR):   bm25 | default hybrid | calibrated hybrid\n";
    for (std::size_t i = 0; i < sources.size(); ++i) {
        out << "  " << sources[i].name << " (" << sources[i].queries.size()
            << " queries): " << score_text(fit.bm25[i]) << " | " << score_text(fit.defaults[i])
            << " | " << score_text(fit.fitted[i]) << "\n";
    }
    if (!fit.held_out.empty()) {
        out << "leave-one-source-out (H@1 H@5 MRR): bm25 | default hybrid | calibrated hybrid\n";
        for (const eval::HeldOutRow& row : fit.held_out) {
            out << "  " << row.source << ": " << score_text(row.bm25) << " | "
                << score_text(row.default_) << " | " << score_text(row.calibrated) << "   ("
                << eval::describe_fusion(row.fitted) << ")\n";
        }
    }
    return out.str();
}

}  // namespace

int run_calibrate(int argc, char** argv) {
    ParsedCommand parsed = parse_command(argc, argv, calibrate_spec());
    if (!parsed.args) {
        return parsed.exit_code;
    }
    const Args& args = *parsed.args;
    if (!args.positional().empty()) {
        return fail("calibrate takes no positional arguments");
    }
    std::size_t cap = 500;
    std::uint64_t seed = 42;
    if (auto text = args.get("queries-per-source")) {
        if (std::string e = args::read_whole_into(*text, 0, 1000000, cap); !e.empty()) {
            return fail("--queries-per-source " + e);
        }
    }
    if (auto text = args.get("seed")) {
        if (std::string e = args::read_whole(*text, 0, UINT64_MAX, seed); !e.empty()) {
            return fail("--seed " + e);
        }
    }
    const fs::path dir = args.get("training").value_or(default_training_dir());
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        return fail("training folder " + dir.string() +
                    " not found (give --training DIR or set SCOUT_TRAINING)");
    }
    const std::vector<fs::path> folders = training_sources(dir);
    if (folders.empty()) {
        return fail("training folder " + dir.string() +
                    " has no sub-folder with catalog.json and queries.json");
    }
    if (auto out = args.get("out")) {
        if (Status s = detail::check_replaceable(*out); !s.ok()) {
            return fail(s.message());
        }
    }
    std::string why;
    auto first = make_embedder(args, &why);
    if (!first) {
        return fail(first.status().message());
    }
    if (!first.value()) {
        return fail("calibrate needs an embedder" + (why.empty() ? std::string() : ": " + why));
    }
    // The model as created: fit() on a catalog may change the id, the calibration names the model.
    const std::string model_id = first.value()->model_id();
    const bool quiet = args.has("quiet");
    Progress progress(args);
    std::vector<eval::CalibrationSource> sources;
    for (const fs::path& folder : folders) {
        // A fresh embedder per source: corpus-fitted models must not carry one catalog's fit over.
        auto embedder = sources.empty() ? first : make_embedder(args);
        if (!embedder || !embedder.value()) {
            return fail("the embedder could not be made again for " + folder.string());
        }
        auto queries = eval::load_queries(folder / "queries.json");
        if (!queries) {
            return fail(queries.status().message());
        }
        auto meter = std::make_shared<MeteredEmbedder>(
            std::make_shared<CachingEmbedder>(embedder.value(), 4096));
        auto loaded = build_catalog(
            (folder / "catalog.json").string(), CatalogOptions{}, std::move(meter), &progress);
        progress.finish();
        if (!loaded) {
            return fail(loaded.status().message());
        }
        if (!loaded->info.dense_ready) {
            return fail("the embedder failed on " + folder.string() + ": " +
                        loaded->info.dense_error);
        }
        eval::CalibrationSource source{folder.filename().string(),
                                       loaded->searcher,
                                       sample_queries(std::move(queries.value()), cap, seed)};
        if (source.queries.empty()) {
            return fail(folder.string() + " has no labelled queries");
        }
        sources.push_back(std::move(source));
        if (!quiet) {
            std::cerr << "scout: indexed " << folder.filename().string() << " ("
                      << loaded->info.tools << " tools, " << sources.back().queries.size()
                      << " queries)\n";
        }
        // The searcher keeps the catalog's snapshot alive; the catalog itself can go.
    }
    eval::FitOptions fit_options;
    if (!quiet) {
        fit_options.progress = [](const std::string& line) {
            std::cerr << "scout: " << line << "\n";
        };
    }
    const eval::FitResult fit = eval::fit_fusion(sources, fit_options);
    const std::string report = report_text(fit, sources);
    Calibration calibration{model_id, fit.fusion, report};
    const std::string text = format_calibration(calibration);
    if (auto out = args.get("out")) {
        if (Status s = detail::write_file_atomically(*out, text); !s.ok()) {
            return fail(s.message());
        }
        std::cout << report << "wrote " << *out << "\n";
    } else {
        std::cerr << report;
        std::cout << text;
    }
    return kExitOk;
}

}  // namespace scout::cli

// calibration_standin.cpp: scout-bench-calibrate. Shows that the fusion calibration lets a strong
// embedder through. The embedder is the label-aware stand-in (tests/support/
// label_aware_embedder.hpp: each query placed near its gold tool for a seeded 90% of queries),
// built on each training source from that source's labels and calibrated there with
// fit_fusion, exactly as `scout calibrate` does for a real model. Then, per evaluation dataset
// (the public ones and data/queries-49.json), a stand-in built from that dataset's own labels
// is searched with BM25 alone, dense alone, the default gated hybrid and the calibrated hybrid.
// The calibration never sees an evaluation dataset. Prints markdown tables.
// Usage: scout-bench-calibrate [--keep SHARE] [--queries-per-source N] [--out FILE]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "scout/catalog.hpp"
#include "scout/catalog_loader.hpp"

#include "eval/calibration_fit.hpp"
#include "eval/dataset_paths.hpp"
#include "eval/evaluation.hpp"
#include "support/label_aware_embedder.hpp"
#include "util/hash.hpp"

namespace {

namespace fs = std::filesystem;
using namespace scout;

struct Loaded {
    std::string name;
    CatalogSpec catalog;
    std::vector<eval::LabelledQuery> queries;  ///< labelled ones only
};

std::optional<Loaded> load(const std::string& name, const fs::path& catalog, const fs::path& q) {
    auto spec = load_catalog_file(catalog);
    auto queries = eval::load_queries(q);
    if (!spec || !queries) {
        std::fprintf(stderr, "skipping %s: unreadable\n", name.c_str());
        return std::nullopt;
    }
    Loaded out{name, std::move(spec.value()), {}};
    for (eval::LabelledQuery& query : queries.value()) {
        if (!query.relevant.empty()) {
            out.queries.push_back(std::move(query));
        }
    }
    return out;
}

/// The first `cap` labelled queries in a fixed pseudo-random order (by a hash of the id).
void cap_queries(std::vector<eval::LabelledQuery>& queries, std::size_t cap) {
    if (cap == 0 || queries.size() <= cap) {
        return;
    }
    std::vector<std::pair<std::uint64_t, std::size_t>> order;
    for (std::size_t i = 0; i < queries.size(); ++i) {
        order.emplace_back(detail::fnv1a(queries[i].id), i);
    }
    std::sort(order.begin(), order.end());
    order.resize(cap);
    std::sort(order.begin(), order.end(), [](auto a, auto b) { return a.second < b.second; });
    std::vector<eval::LabelledQuery> kept;
    for (const auto& [h, i] : order) {
        kept.push_back(std::move(queries[i]));
    }
    queries = std::move(kept);
}

std::optional<Searcher> index_with_standin(const Loaded& d, double keep, std::uint64_t seed) {
    auto embedder = std::make_shared<testing::LabelAwareEmbedder>(d.catalog, d.queries, keep, seed);
    auto catalog = Catalog::create({}, embedder);
    if (!catalog || !catalog->upsert_servers(d.catalog).ok() || !catalog->commit()) {
        std::fprintf(stderr, "skipping %s: indexing failed\n", d.name.c_str());
        return std::nullopt;
    }
    return catalog->searcher();
}

eval::Report run(const Searcher& s,
                 const std::vector<eval::LabelledQuery>& q,
                 Mode mode,
                 const FusionOptions& fusion) {
    eval::Options eo;
    eo.search.mode = mode;
    eo.search.fusion = fusion;
    eo.fetch_factor = fusion.fetch_factor;
    return eval::evaluate(s, q, eo);
}

std::string cell(const eval::Report& r) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.3f / %.3f / %.3f", r.hit_at_1, r.hit_at_5, r.mrr);
    return buffer;
}

std::string score_cell(const eval::SourceScore& s) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.3f / %.3f / %.3f", s.hit_at_1, s.hit_at_5, s.mrr);
    return buffer;
}

}  // namespace

int main(int argc, char** argv) {
    double keep = 0.9;
    std::size_t cap = 500;
    std::string out_path;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--keep") {
            keep = std::atof(argv[i + 1]);
        } else if (flag == "--queries-per-source") {
            cap = static_cast<std::size_t>(std::atol(argv[i + 1]));
        } else if (flag == "--out") {
            out_path = argv[i + 1];
        } else {
            std::fprintf(stderr,
                         "usage: scout-bench-calibrate [--keep SHARE] "
                         "[--queries-per-source N] [--out FILE]\n");
            return 2;
        }
    }
    if (!(keep > 0 && keep <= 1)) {
        std::fprintf(stderr, "--keep must be in (0, 1]\n");
        return 2;
    }
    // 1. Calibrate on the training sources, each with a stand-in built from its own labels.
    std::vector<eval::CalibrationSource> sources;
    std::vector<fs::path> folders;
    for (const auto& entry : fs::directory_iterator(eval::training_dir())) {
        folders.push_back(entry.path());
    }
    std::sort(folders.begin(), folders.end());
    for (const fs::path& folder : folders) {
        if (!fs::is_regular_file(folder / "catalog.json")) {
            continue;
        }
        auto d = load(folder.filename().string(), folder / "catalog.json", folder / "queries.json");
        if (!d) {
            continue;
        }
        cap_queries(d->queries, cap);
        auto searcher = index_with_standin(*d, keep, 1);
        if (searcher) {
            sources.push_back({d->name, *searcher, d->queries});
        }
    }
    if (sources.empty()) {
        std::fprintf(stderr, "no training sources in %s\n", eval::training_dir().c_str());
        return 1;
    }
    const eval::FitResult fit = eval::fit_fusion(sources);
    std::printf("calibrated on the training sets: %s\n\n",
                eval::describe_fusion(fit.fusion).c_str());
    std::printf(
        "| held-out source | BM25 | gated default | calibrated (fit on the other two) | "
        "setting |\n|---|---|---|---|---|\n");
    for (const eval::HeldOutRow& row : fit.held_out) {
        std::printf("| %s | %s | %s | %s | %s |\n",
                    row.source.c_str(),
                    score_cell(row.bm25).c_str(),
                    score_cell(row.default_).c_str(),
                    score_cell(row.calibrated).c_str(),
                    eval::describe_fusion(row.fitted).c_str());
    }
    if (!out_path.empty()) {
        const std::string model = testing::LabelAwareEmbedder({}, {}, keep, 1).model_id();
        std::ofstream(out_path) << format_calibration({model, fit.fusion, ""});
    }
    // 2. Evaluate on every evaluation dataset with a stand-in built from its own labels.
    std::vector<Loaded> datasets;
    for (const char* name : {"azure_mcp", "livemcpbench", "mcptoolbench_pp", "mcpzero", "merged"}) {
        const fs::path dir = eval::datasets_dir() / name;
        if (auto d = load(name, dir / "catalog.json", dir / "queries.json")) {
            datasets.push_back(std::move(*d));
        }
    }
    const fs::path data = eval::source_root() / "data";
    if (auto d = load("queries-49", data / "enterprise_catalog.json", data / "queries-49.json")) {
        datasets.push_back(std::move(*d));
    }
    std::printf(
        "\n| dataset | BM25 | stand-in dense | gated default hybrid | calibrated hybrid "
        "|\n|---|---|---|---|---|\n");
    for (const Loaded& d : datasets) {
        auto searcher = index_with_standin(d, keep, 2);
        if (!searcher) {
            continue;
        }
        const FusionOptions defaults;
        std::printf("| %s | %s | %s | %s | %s |\n",
                    d.name.c_str(),
                    cell(run(*searcher, d.queries, Mode::bm25, defaults)).c_str(),
                    cell(run(*searcher, d.queries, Mode::dense, defaults)).c_str(),
                    cell(run(*searcher, d.queries, Mode::hybrid, defaults)).c_str(),
                    cell(run(*searcher, d.queries, Mode::hybrid, fit.fusion)).c_str());
        std::fflush(stdout);
    }
    return 0;
}

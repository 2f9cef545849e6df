// main.cpp: scout-bench-scale. Builds scout and its peers on the same corpus at several sizes
// and prints one table (or --json): build time, index bytes, p50/p95/p99, QPS and the ratio of
// scout's p50 to the best peer's. Single thread, top-10. Then the reopen rows and every
// performance target as a ratio of this run's figures.
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>

#include "bench_args.hpp"
#include "bench_common.hpp"
#include "eval/dataset_paths.hpp"
#include "simd/kernels.hpp"

namespace {

/// Comma-separated sizes into `out`: "" when each is a whole number 1..100,000,000, else why not.
std::string parse_sizes(const std::string& text, std::vector<std::size_t>& out) {
    out.clear();
    std::stringstream ss(text);
    std::string part;
    while (std::getline(ss, part, ',')) {
        std::size_t n = 0;
        if (std::string why = scout::args::read_whole_into(part, 1, 100000000, n); !why.empty()) {
            return "each size " + why;
        }
        out.push_back(n);
    }
    return out.empty() ? "wants at least one size" : "";
}

}  // namespace

int main(int argc, char** argv) {
    using namespace scout::bench;
    Config cfg;
    const auto sizes_into = [](std::vector<std::size_t>& out) {
        return [&out](const std::string& v) { return parse_sizes(v, out); };
    };
    const auto set_flag = [](bool& flag, bool value) {
        return [&flag, value](const std::string&) { return (flag = value, std::string()); };
    };
    const scout::args::CommandSpec command{
        "scout-bench-scale",
        "",
        "scout beside Xapian, SQLite FTS5, hnswlib, FAISS and plain loops on the same corpus at "
        "several sizes: build time, index bytes, p50/p95/p99, QPS, scout's p50 over the best "
        "peer's; then the reopen rows and every performance target.",
        {{"options",
          {{"sizes",
            "N,...",
            "2000,20000,200000",
            "synthetic corpus sizes",
            false,
            sizes_into(cfg.sizes)},
           {"full",
            "",
            "",
            "also run 1,000,000 tools (needs ~16 GB RAM and tens of minutes)",
            false,
            [&](const std::string&) { return (cfg.sizes.push_back(1000000), std::string()); }},
           {"sections",
            "LIST",
            "bm25,dense,hybrid,path,reopen",
            "path: the whole Searcher::search from query text; reopen: index, reopen and "
            "one-tool commit (scout-bench-reopen)",
            false,
            [&](const std::string& v) {
                std::stringstream list(v);
                std::string name;
                cfg.sparse = cfg.dense = cfg.hybrid = cfg.path = cfg.reopen = false;
                while (std::getline(list, name, ',')) {
                    bool* section = name == "bm25"     ? &cfg.sparse
                                    : name == "dense"  ? &cfg.dense
                                    : name == "hybrid" ? &cfg.hybrid
                                    : name == "path"   ? &cfg.path
                                    : name == "reopen" ? &cfg.reopen
                                                       : nullptr;
                    if (section == nullptr) {
                        return "unknown section '" + name + "' (bm25, dense, hybrid, path, reopen)";
                    }
                    *section = true;
                }
                return std::string();
            }},
           {"reopen-sizes",
            "N,...",
            "2000,3574,20000,100000",
            "synthetic catalog sizes of the reopen rows",
            false,
            sizes_into(cfg.reopen_sizes)},
           {"real",
            "DIR",
            "$SCOUT_DATASETS/merged, else ../shared/datasets/merged",
            "real catalog dir with catalog.json + queries.json; \"none\" to skip",
            false,
            [&](const std::string& v) { return (cfg.real_catalog = v, std::string()); }},
           {"queries",
            "N",
            std::to_string(cfg.queries),
            "distinct queries per corpus",
            false,
            whole_into(cfg.queries, 1, 10000000)},
           {"samples",
            "N",
            std::to_string(cfg.min_samples),
            "timed searches per engine, time budget permitting",
            false,
            whole_into(cfg.min_samples, 1, 100000000)},
           {"budget",
            "S",
            "1.5",
            "seconds per engine and size",
            false,
            [&](const std::string& v) {
                char* end = nullptr;
                const double s = std::strtod(v.c_str(), &end);
                if (v.empty() || *end != '\0' || !(s > 0 && s <= 86400)) {
                    return std::string("must be seconds in (0, 86400]");
                }
                cfg.budget_s = s;
                return std::string();
            }},
           {"dim",
            "N",
            std::to_string(cfg.dim),
            "vector dimension (1536 for hosted models' size)",
            false,
            whole_into(cfg.dim, 1, 4096)},
           {"hnsw-max",
            "N",
            std::to_string(cfg.hnsw_max),
            "largest N that builds HNSW graphs",
            false,
            whole_into(cfg.hnsw_max, 0, 100000000)},
           {"scout-only",
            "",
            "",
            "skip the peers (quick profiling runs)",
            false,
            set_flag(cfg.peers, false)},
           {"json", "", "", "machine-readable output", false, set_flag(cfg.json, true)}}}}};
    int exit_code = 0;
    if (!parse_args(argc, argv, command, exit_code)) {
        return exit_code;
    }
    if (!cfg.json) {
        std::printf(
            "scout-bench-scale: single thread, top-%zu, dim %zu, SIMD %s; build = thread CPU "
            "seconds\n\n",
            cfg.k,
            cfg.dim,
            scout::detail::simd::active().isa);
    }
    std::vector<Row> rows;
    const auto run = [&](const Corpus& c) {
        std::fprintf(
            stderr, "[%s N=%zu, %zu queries]\n", c.name.c_str(), c.size(), c.queries.size());
        if (cfg.sparse) {
            auto r = run_sparse(cfg, c);
            rows.insert(rows.end(), r.begin(), r.end());
        }
        if (cfg.dense) {
            auto r = run_dense(cfg, c);
            rows.insert(rows.end(), r.begin(), r.end());
        }
        if (cfg.hybrid) {
            auto r = run_hybrid(cfg, c);
            rows.insert(rows.end(), r.begin(), r.end());
        }
        if (cfg.path) {
            auto r = run_search_path(cfg, c);
            rows.insert(rows.end(), r.begin(), r.end());
        }
    };
    if (cfg.real_catalog.empty()) {
        cfg.real_catalog = (scout::eval::datasets_dir() / "merged").string();
    }
    if (cfg.real_catalog != "none") {
        const Corpus real = load_real(cfg.real_catalog, cfg.dim);
        if (real.size() > 0 && !real.queries.empty()) {
            run(real);
        }
    }
    for (std::size_t n : cfg.sizes) {
        const Corpus c = make_synthetic(n, cfg.queries, cfg.dim, 20260101 + n);
        run(c);
    }
    const std::vector<ReopenRow> reopen = cfg.reopen ? run_reopen(cfg) : std::vector<ReopenRow>{};
    const std::vector<Target> targets = targets_of(rows, reopen);
    if (cfg.json) {
        print_json(rows, reopen, targets);
    } else {
        print_table(rows);
        if (!reopen.empty()) {
            print_reopen(reopen);
        }
        print_targets(targets);
    }
    return 0;
}

// main.cpp: scout-bench-scale. Builds scout and its peers on the same corpus at several sizes
// and prints one table (or --json): build time, index bytes, p50/p95/p99, QPS and the ratio of
// scout's p50 to the best peer's. Single thread, top-10. Then the reopen rows and every
// performance target as a ratio of this run's figures.
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>

#include "bench_common.hpp"
#include "eval/dataset_paths.hpp"
#include "simd/kernels.hpp"

namespace {

constexpr const char* kUsage = R"(usage: scout-bench-scale [options]
  --sizes 2000,20000,200000   synthetic corpus sizes (default; --full adds 1000000)
  --full                      also run 1,000,000 tools (needs ~16 GB RAM and tens of minutes)
  --sections bm25,dense,hybrid,path,reopen
                              path: the whole Searcher::search from query text;
                              reopen: index, reopen and one-tool commit (scout-bench-reopen)
  --reopen-sizes 2000,3574,20000,100000
                              synthetic catalog sizes of the reopen rows (default)
  --real DIR                  real catalog dir with catalog.json + queries.json
                              (default $SCOUT_DATASETS/merged, else ../shared/datasets/merged
                              next to the checkout; "none" to skip)
  --queries N                 distinct queries per corpus (default 300)
  --samples N                 timed searches per engine (default 1000, time budget permitting)
  --budget S                  seconds per engine and size (default 1.5)
  --dim N                     vector dimension (default 384; 1536 for hosted models' size)
  --hnsw-max N                largest N that builds HNSW graphs (default 20000)
  --scout-only                skip the peers (quick profiling runs)
  --json                      machine-readable output
)";

std::vector<std::size_t> parse_sizes(const std::string& text) {
    std::vector<std::size_t> out;
    std::stringstream ss(text);
    std::string part;
    while (std::getline(ss, part, ',')) {
        out.push_back(std::stoul(part));
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace scout::bench;
    Config cfg;
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string_view arg = argv[i];
            const auto value = [&]() -> std::string {
                if (i + 1 >= argc) {
                    throw std::invalid_argument(std::string(arg) + " needs a value");
                }
                return argv[++i];
            };
            if (arg == "--sizes") {
                cfg.sizes = parse_sizes(value());
            } else if (arg == "--full") {
                cfg.sizes.push_back(1000000);
            } else if (arg == "--sections") {
                const std::string s = value();
                cfg.sparse = s.find("bm25") != std::string::npos;
                cfg.dense = s.find("dense") != std::string::npos;
                cfg.hybrid = s.find("hybrid") != std::string::npos;
                cfg.path = s.find("path") != std::string::npos;
                cfg.reopen = s.find("reopen") != std::string::npos;
            } else if (arg == "--reopen-sizes") {
                cfg.reopen_sizes = parse_sizes(value());
            } else if (arg == "--real") {
                cfg.real_catalog = value();
            } else if (arg == "--queries") {
                cfg.queries = std::stoul(value());
            } else if (arg == "--samples") {
                cfg.min_samples = std::stoul(value());
            } else if (arg == "--budget") {
                cfg.budget_s = std::stod(value());
            } else if (arg == "--dim") {
                cfg.dim = std::stoul(value());
                if (cfg.dim == 0 || cfg.dim > 4096) {
                    std::fputs("scout-bench-scale: --dim must be 1..4096\n", stderr);
                    return 2;
                }
            } else if (arg == "--hnsw-max") {
                cfg.hnsw_max = std::stoul(value());
            } else if (arg == "--scout-only") {
                cfg.peers = false;
            } else if (arg == "--json") {
                cfg.json = true;
            } else {
                std::fputs(kUsage, arg == "--help" ? stdout : stderr);
                return arg == "--help" ? 0 : 2;
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "scout-bench-scale: %s\n%s", e.what(), kUsage);
        return 2;
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

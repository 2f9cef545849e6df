// commit_throughput.cpp: a whole first commit (every document rendered, analyzed and, with an
// embedder, embedded; the BM25 and dense indexes built) of a catalog file, on a fresh Catalog per
// round, at a given CatalogOptions::threads. Prints medians of wall and process CPU time, tools
// per second, and the wall time of each commit phase (from the progress callback).
//   commit_throughput CATALOG.json [--embedder none|static|hashing[:DIM]] [--threads N]
//                     [--rounds N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include "scout/catalog.hpp"
#include "scout/scout.hpp"

#include "bench_args.hpp"

namespace {

using Clock = std::chrono::steady_clock;

/// CPU time of every thread of the process, pool workers included.
double process_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

double median(std::vector<double> v) {
    if (v.empty()) {
        return 0;
    }
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    std::string embedder_spec = "none";
    int rounds = 5;
    scout::CatalogOptions options;
    const scout::args::CommandSpec command{
        "commit_throughput",
        "CATALOG.json",
        "Whole-commit throughput (tools/s) at a thread count, with the time of each phase.",
        {{"options",
          {scout::bench::embedder_option(embedder_spec),
           {"threads",
            "N",
            "0",
            "threads a commit uses (0 = every core)",
            false,
            scout::bench::whole_into(options.threads, 0, 1024)},
           {"rounds",
            "N",
            std::to_string(rounds),
            "runs; medians are reported",
            false,
            scout::bench::whole_into(rounds, 1, 100000)}}}}};
    int exit_code = 0;
    const auto parsed = scout::bench::parse_args(argc, argv, command, exit_code);
    if (!parsed) {
        return exit_code;
    }
    if (parsed->positional().size() != 1) {
        std::fprintf(stderr, "commit_throughput: give one CATALOG.json (see --help)\n");
        return 2;
    }
    const std::string catalog_path = parsed->positional()[0];
    auto made = scout::bench::make_embedder(embedder_spec);
    if (!made) {
        std::fprintf(stderr, "%s\n", made.status().to_string().c_str());
        return 2;
    }
    const std::shared_ptr<scout::Embedder> embedder = made.value();
    auto spec = scout::load_catalog_file(catalog_path);
    if (!spec) {
        std::fprintf(stderr, "%s\n", spec.status().to_string().c_str());
        return 2;
    }
    std::vector<double> wall_ms;
    std::vector<double> cpu_ms;
    std::map<std::string, std::vector<double>> phase_ms;
    std::size_t tools = 0;
    std::string dense = "none";
    for (int round = 0; round < rounds; ++round) {
        auto catalog = scout::Catalog::create(options, embedder);
        if (!catalog || !catalog->upsert_servers(spec.value()).ok()) {
            std::fprintf(stderr, "cannot stage the catalog\n");
            return 2;
        }
        std::map<std::string, std::pair<Clock::time_point, Clock::time_point>> phases;
        const auto hear = [&](const scout::CommitProgress& p) {
            auto [it, fresh] = phases.try_emplace(std::string(p.phase));
            if (fresh) {
                it->second.first = Clock::now();
            }
            it->second.second = Clock::now();
        };
        const double cpu0 = process_cpu_ms();
        const auto start = Clock::now();
        auto info = catalog->commit(hear);
        wall_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        cpu_ms.push_back(process_cpu_ms() - cpu0);
        if (!info) {
            std::fprintf(stderr, "%s\n", info.status().to_string().c_str());
            return 1;
        }
        tools = info->tools;
        dense = info->dense_ready ? "built" : "none";
        for (const auto& [name, span] : phases) {
            phase_ms[name].push_back(
                std::chrono::duration<double, std::milli>(span.second - span.first).count());
        }
    }
    const double wall = median(wall_ms);
    std::printf("%s: %zu tools, embedder %s, threads %zu, dense %s, medians of %d\n",
                catalog_path.c_str(),
                tools,
                embedder_spec.c_str(),
                options.threads,
                dense.c_str(),
                rounds);
    std::printf("  whole commit  %9.1f ms wall, %9.1f ms CPU, %8.0f tools/s\n",
                wall,
                median(cpu_ms),
                static_cast<double>(tools) / (wall / 1e3));
    for (const char* name : {"documents", "bm25", "embeddings", "dense"}) {
        if (auto it = phase_ms.find(name); it != phase_ms.end()) {
            std::printf("  %-12s  %9.1f ms wall\n", name, median(it->second));
        }
    }
    return 0;
}

// commit_latency.cpp: how long an update takes to become visible. For a catalog file, measures
// the initial build, then repeatedly changes one tool and reports commit() duration and the time
// until a concurrently polling reader (fresh Searcher per query) first finds the change; also a
// commit without changes, save/open times and the index file size. Medians of --rounds runs.
//   commit_latency CATALOG.json [--embedder none|static|hashing[:DIM]] [--rounds N] [--out FILE]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "scout/catalog.hpp"
#include "scout/scout.hpp"

#include "bench_args.hpp"

namespace {

using Clock = std::chrono::steady_clock;

/// CPU time of the calling thread: on a loaded machine this is closer to what a commit costs
/// than wall time, which includes waiting for a core.
double thread_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

double ms_since(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
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
    std::string embedder_spec = "hashing";
    int rounds = 21;
    std::filesystem::path out =
        std::filesystem::temp_directory_path() / "scout-commit-latency.scoutidx";
    const scout::args::CommandSpec command{
        "commit_latency",
        "CATALOG.json",
        "Commit-to-visible latency of a one-tool change, save and open times, index file size.",
        {{"options",
          {scout::bench::embedder_option(embedder_spec),
           {"rounds",
            "N",
            std::to_string(rounds),
            "runs; medians are reported",
            false,
            scout::bench::whole_into(rounds, 1, 100000)},
           {"out",
            "FILE",
            out.string(),
            "where the index file is saved",
            false,
            [&](const std::string& v) { return (out = v, std::string()); }}}}}};
    int exit_code = 0;
    const auto parsed = scout::bench::parse_args(argc, argv, command, exit_code);
    if (!parsed) {
        return exit_code;
    }
    if (parsed->positional().size() != 1) {
        std::fprintf(stderr, "commit_latency: give one CATALOG.json (see --help)\n");
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
    auto catalog = scout::Catalog::create({}, embedder);
    if (!catalog || !catalog->upsert_servers(spec.value()).ok()) {
        std::fprintf(stderr, "cannot stage the catalog\n");
        return 2;
    }
    auto t = Clock::now();
    auto first = catalog->commit();
    const double initial_ms = ms_since(t);
    if (!first) {
        std::fprintf(stderr, "%s\n", first.status().to_string().c_str());
        return 1;
    }

    // A reader polls for the token of the current round with a fresh Searcher per query.
    std::atomic<int> target{-1};
    std::atomic<int> seen{-1};
    std::atomic<bool> stop{false};
    std::thread reader([&] {
        scout::SearchOptions opt;
        opt.mode = scout::Mode::bm25;
        opt.top_k = 1;
        while (!stop.load()) {
            const int want = target.load();
            if (want < 0 || seen.load() == want) {
                std::this_thread::yield();
                continue;
            }
            auto r = catalog->searcher().search("zqvisible" + std::to_string(want), opt);
            if (r && !r->hits.empty()) {
                seen.store(want);
            }
        }
    });
    const scout::ServerSpec& server = spec->servers[spec->servers.size() / 2];
    scout::ToolSpec tool = server.tools.front();
    std::vector<double> commit_ms;
    std::vector<double> visible_ms;
    std::vector<double> noop_ms;
    std::vector<double> commit_cpu_ms;
    std::size_t embedded = 0;
    for (int i = 0; i < rounds; ++i) {
        tool.description = server.tools.front().description + " zqvisible" + std::to_string(i);
        if (!catalog->upsert_tool(server.name, tool).ok()) {
            return 1;
        }
        const auto start = Clock::now();
        target.store(i);
        const double cpu0 = thread_cpu_ms();
        auto info = catalog->commit();
        commit_ms.push_back(ms_since(start));
        commit_cpu_ms.push_back(thread_cpu_ms() - cpu0);
        embedded += info ? info->embedded : 0;
        while (seen.load() != i) {
            std::this_thread::yield();
        }
        visible_ms.push_back(ms_since(start));
        t = Clock::now();
        (void)catalog->commit();
        noop_ms.push_back(ms_since(t));
    }
    stop.store(true);
    reader.join();

    std::vector<double> save_ms;
    std::vector<double> open_ms;
    for (int i = 0; i < std::min(rounds, 7); ++i) {
        t = Clock::now();
        if (scout::Status s = catalog->save(out); !s.ok()) {
            std::fprintf(stderr, "%s\n", s.to_string().c_str());
            return 1;
        }
        save_ms.push_back(ms_since(t));
        t = Clock::now();
        auto opened = scout::Catalog::open(out, embedder);
        open_ms.push_back(ms_since(t));
        if (!opened) {
            std::fprintf(stderr, "%s\n", opened.status().to_string().c_str());
            return 1;
        }
    }
    const auto bytes = std::filesystem::file_size(out);
    std::printf("catalog %s: %zu tools, embedder %s\n",
                catalog_path.c_str(),
                first->tools,
                embedder_spec.c_str());
    std::printf("  initial commit        %8.1f ms\n", initial_ms);
    std::printf(
        "  commit, 1 tool change %8.2f ms (median of %d; %zu documents embedded in total)\n",
        median(commit_ms),
        rounds,
        embedded);
    std::printf("  commit CPU time       %8.2f ms (the committing thread's own CPU time)\n",
                median(commit_cpu_ms));
    std::printf("  change visible after  %8.2f ms (commit start -> a new searcher finds it)\n",
                median(visible_ms));
    std::printf("  commit, no change     %8.2f ms\n", median(noop_ms));
    std::printf(
        "  save                  %8.2f ms, open %.2f ms\n", median(save_ms), median(open_ms));
    std::printf("  index file            %8llu bytes, %.0f bytes per tool\n",
                static_cast<unsigned long long>(bytes),
                static_cast<double>(bytes) / static_cast<double>(first->tools));
    std::filesystem::remove(out);
    return 0;
}

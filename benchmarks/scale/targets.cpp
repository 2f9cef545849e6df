// targets.cpp: the reopen rows (scout-bench-reopen, run as a child: each build and each open
// needs a fresh process) and the performance targets, each printed as a ratio of this run's
// figures to its limit (under 1: met).
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>

#include "bench_common.hpp"

namespace scout::bench {
namespace {

/// scout-bench-reopen beside this binary, or empty.
std::filesystem::path reopen_binary() {
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) {
        return {};
    }
    const auto sibling = self.parent_path() / "scout-bench-reopen";
    return std::filesystem::exists(sibling) ? sibling : std::filesystem::path();
}

const Row* find_row(const std::vector<Row>& rows,
                    const std::string& section,
                    const std::string& corpus,
                    std::size_t n,
                    const std::string& engine_prefix) {
    for (const Row& r : rows) {
        if (r.section == section && r.corpus == corpus && r.n == n && r.samples > 0 &&
            r.engine.rfind(engine_prefix, 0) == 0) {
            return &r;
        }
    }
    return nullptr;
}

}  // namespace

std::vector<ReopenRow> run_reopen(const Config& cfg) {
    std::vector<ReopenRow> out;
    const std::filesystem::path binary = reopen_binary();
    if (binary.empty()) {
        std::fprintf(stderr, "scout-bench-scale: scout-bench-reopen not found; reopen skipped\n");
        return out;
    }
    std::ostringstream sizes;
    for (std::size_t i = 0; i < cfg.reopen_sizes.size(); ++i) {
        sizes << (i ? "," : "") << cfg.reopen_sizes[i];
    }
    // Appended piece by piece: GCC 12 reports a bogus -Wrestrict for chained operator+ here.
    std::string command = "'";
    command.append(binary.string()).append("' --sizes ").append(sizes.str());
    std::fprintf(stderr, "[reopen: %s]\n", command.c_str());
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) {
        return out;
    }
    std::array<char, 512> line{};
    while (std::fgets(line.data(), line.size(), pipe) != nullptr) {
        std::istringstream in(line.data());
        ReopenRow r;
        if (in >> r.tools >> r.index_cpu_ms >> r.index_mib >> r.file_mib >> r.open_ms >>
            r.open_cpu_ms >> r.first_search_ms >> r.rss_mib >> r.peak_mib >> r.commit_ms) {
            out.push_back(r);
        }
    }
    if (::pclose(pipe) != 0) {
        std::fprintf(stderr, "scout-bench-scale: scout-bench-reopen failed\n");
    }
    return out;
}

void print_reopen(const std::vector<ReopenRow>& rows) {
    std::printf(
        "\nreopen (synthetic catalogs, the shipped static model; each build and open in a fresh "
        "process; open and commit are wall times, medians)\n\n");
    std::printf(
        "| tools | index CPU ms | index peak MiB | file MiB | open ms | open CPU ms | first search "
        "ms | RSS after open MiB | RSS / file | one-tool commit ms |\n");
    std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const ReopenRow& r : rows) {
        std::printf("| %zu | %.0f | %.1f | %.1f | %.1f | %.1f | %.2f | %.1f | %.2f | %.2f |\n",
                    r.tools,
                    r.index_cpu_ms,
                    r.index_mib,
                    r.file_mib,
                    r.open_ms,
                    r.open_cpu_ms,
                    r.first_search_ms,
                    r.rss_mib,
                    r.file_mib > 0 ? r.rss_mib / r.file_mib : 0.0,
                    r.commit_ms);
    }
}

std::vector<Target> targets_of(const std::vector<Row>& rows, const std::vector<ReopenRow>& reopen) {
    std::vector<Target> out;
    const auto add = [&](std::string what, double value, double limit, std::string unit) {
        out.push_back({std::move(what), value, limit, std::move(unit)});
    };
    for (const Row& r : rows) {
        const std::string where = r.corpus + " " + std::to_string(r.n);
        if (r.section == "bm25" && r.samples > 0 &&
            r.engine == "scout Searcher::search, BM25 mode, default signals") {
            if (const Row* naive = find_row(rows, "bm25", r.corpus, r.n, "naive in-memory BM25")) {
                add("BM25-mode search, default signals, p50 over the naive BM25's, " + where,
                    r.p50_us / naive->p50_us,
                    0.75,
                    "x");
            }
        }
        if (r.section == "path" && r.samples > 0 && r.corpus == "mcpzero" &&
            r.engine.find("default dense index") != std::string::npos) {
            add("hybrid on mcpzero, query embedding excluded, p50", r.p50_us, 40, "us");
            add("hybrid on mcpzero, query embedding excluded, p99", r.p99_us, 100, "us");
        }
        if (r.section == "hybrid" && r.samples > 0 &&
            r.engine.find("(default:") != std::string::npos) {
            if (const Row* peer = find_row(rows, "hybrid", r.corpus, r.n, "Xapian")) {
                add("default hybrid p50 over Xapian + hnswlib/FAISS + RRF, " + where,
                    r.p50_us / peer->p50_us,
                    0.5,
                    "x");
            }
            if (r.n >= 1000000) {
                add("hybrid p50 at " + where, r.p50_us, 5000, "us");
            }
        }
    }
    for (const ReopenRow& r : reopen) {
        const std::string at = std::to_string(r.tools) + " tools";
        if (r.tools == 100000) {
            add("open + first search at " + at, r.open_ms + r.first_search_ms, 300, "ms");
            add("one-tool commit, static embedder, at " + at, r.commit_ms, 50, "ms");
        } else if (r.tools <= 4000) {
            add("one-tool commit, static embedder, at " + at, r.commit_ms, 10, "ms");
        }
    }
    return out;
}

void print_targets(const std::vector<Target>& targets) {
    if (targets.empty()) {
        return;
    }
    std::printf("\n");
    for (const Target& t : targets) {
        std::printf("target: %s: %.2f %s / %.2f %s = %.2f (%s)\n",
                    t.what.c_str(),
                    t.value,
                    t.unit.c_str(),
                    t.limit,
                    t.unit.c_str(),
                    t.value / t.limit,
                    t.value <= t.limit ? "met" : "not met");
    }
}

}  // namespace scout::bench

// measure.cpp: latency percentiles, recall overlap and the output (table or JSON).
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "bench_common.hpp"

namespace scout::bench {

double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void measure(const Config& cfg,
             std::size_t queries,
             const std::function<void(std::size_t)>& search,
             Row& row) {
    if (queries == 0) {
        return;
    }
    const auto begin = std::chrono::steady_clock::now();
    for (std::size_t i = 0;
         i < std::min<std::size_t>(queries, 50) && seconds_since(begin) < cfg.budget_s / 4;
         ++i) {
        search(i);
    }
    std::vector<double> us;
    us.reserve(cfg.min_samples);
    const auto timed = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < cfg.min_samples; ++i) {
        if (i >= 5 && seconds_since(timed) > cfg.budget_s) {
            break;
        }
        const auto t0 = std::chrono::steady_clock::now();
        search(i % queries);
        us.push_back(
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                .count());
    }
    double total = 0;
    for (double u : us) {
        total += u;
    }
    std::sort(us.begin(), us.end());
    const auto pct = [&](double p) {
        return us[std::min(
            us.size() - 1,
            static_cast<std::size_t>(std::llround(p * static_cast<double>(us.size() - 1))))];
    };
    row.p50_us = pct(0.50);
    row.p95_us = pct(0.95);
    row.p99_us = pct(0.99);
    row.qps = total > 0 ? 1e6 * static_cast<double>(us.size()) / total : 0;
    row.samples = us.size();
}

double overlap(const std::vector<std::uint32_t>& got, const std::vector<std::uint32_t>& truth) {
    if (truth.empty()) {
        return got.empty() ? 1.0 : 0.0;
    }
    const std::set<std::uint32_t> t(truth.begin(), truth.end());
    std::size_t hit = 0;
    for (std::uint32_t g : got) {
        hit += t.count(g);
    }
    return static_cast<double>(hit) / static_cast<double>(truth.size());
}

namespace {

using Group = std::tuple<std::string, std::string, std::size_t>;

std::map<Group, double> best_peer(const std::vector<Row>& rows) {
    std::map<Group, double> best;
    for (const Row& r : rows) {
        if (r.scout || r.samples == 0) {
            continue;
        }
        const Group g{r.section, r.corpus, r.n};
        auto it = best.find(g);
        if (it == best.end() || r.p50_us < it->second) {
            best[g] = r.p50_us;
        }
    }
    return best;
}

}  // namespace

void print_table(const std::vector<Row>& rows) {
    const auto best = best_peer(rows);
    std::printf(
        "| section | corpus | N | engine | build s | index MB | B/tool | p50 us | p95 us | p99 us "
        "| QPS | "
        "scout/best peer p50 | quality | note |\n");
    std::printf("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
    for (const Row& r : rows) {
        std::string ratio = "";
        if (r.scout) {
            auto it = best.find({r.section, r.corpus, r.n});
            if (it != best.end() && it->second > 0) {
                char buf[32];
                std::snprintf(buf, sizeof buf, "%.2f", r.p50_us / it->second);
                ratio = buf;
            }
        }
        std::printf(
            "| %s | %s | %zu | %s | %.2f | %.1f | %.0f | %.1f | %.1f | %.1f | %.0f | %s | %s | %s "
            "|\n",
            r.section.c_str(),
            r.corpus.c_str(),
            r.n,
            r.engine.c_str(),
            r.build_s,
            static_cast<double>(r.bytes) / 1e6,
            r.n == 0 ? 0.0 : static_cast<double>(r.bytes) / static_cast<double>(r.n),
            r.p50_us,
            r.p95_us,
            r.p99_us,
            r.qps,
            ratio.c_str(),
            r.quality.c_str(),
            r.note.c_str());
    }
    std::fflush(stdout);
}

void print_json(const std::vector<Row>& rows,
                const std::vector<ReopenRow>& reopen,
                const std::vector<Target>& targets) {
    const auto best = best_peer(rows);
    nlohmann::json out = nlohmann::json::array();
    for (const Row& r : rows) {
        nlohmann::json j{{"section", r.section},
                         {"corpus", r.corpus},
                         {"n", r.n},
                         {"engine", r.engine},
                         {"scout", r.scout},
                         {"build_s", r.build_s},
                         {"index_bytes", r.bytes},
                         {"p50_us", r.p50_us},
                         {"p95_us", r.p95_us},
                         {"p99_us", r.p99_us},
                         {"qps", r.qps},
                         {"samples", r.samples},
                         {"quality", r.quality},
                         {"note", r.note}};
        if (auto it = best.find({r.section, r.corpus, r.n});
            r.scout && it != best.end() && it->second > 0) {
            j["ratio_to_best_peer_p50"] = r.p50_us / it->second;
        }
        out.push_back(std::move(j));
    }
    for (const ReopenRow& r : reopen) {
        out.push_back({{"section", "reopen"},
                       {"tools", r.tools},
                       {"index_cpu_ms", r.index_cpu_ms},
                       {"index_peak_mib", r.index_mib},
                       {"file_mib", r.file_mib},
                       {"open_ms", r.open_ms},
                       {"open_cpu_ms", r.open_cpu_ms},
                       {"first_search_ms", r.first_search_ms},
                       {"rss_after_open_mib", r.rss_mib},
                       {"peak_after_open_mib", r.peak_mib},
                       {"one_tool_commit_ms", r.commit_ms}});
    }
    for (const Target& t : targets) {
        out.push_back({{"section", "target"},
                       {"what", t.what},
                       {"value", t.value},
                       {"limit", t.limit},
                       {"unit", t.unit},
                       {"ratio", t.value / t.limit},
                       {"met", t.value <= t.limit}});
    }
    std::printf("%s\n", out.dump(1).c_str());
}

}  // namespace scout::bench

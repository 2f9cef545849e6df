// concurrency_test.cpp: zero-downtime updates under load. Reader threads search continuously
// while a writer applies thousands of upserts and removals across many commits; every result set
// must come from exactly one generation, and a tool that is being updated must never vanish.
// Built into test_concurrency, which CI also runs under ThreadSanitizer.
#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/scout.hpp"

namespace {

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SCOUT_TEST_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define SCOUT_TEST_TSAN 1
#endif

#ifdef SCOUT_TEST_TSAN
constexpr int kCommits = 40;  // TSan slows everything ~10x; the interleavings are what matter
#else
constexpr int kCommits = 120;
#endif
constexpr int kChurnServers = 16;
constexpr int kOpsPerCommit = 80;  // churn upserts + removals, plus the marker upserts
constexpr int kMarkerTools = 8;
constexpr int kReaders = 4;

const char* const kWords[] = {"invoice",
                              "ticket",
                              "deploy",
                              "query",
                              "report",
                              "user",
                              "alert",
                              "metric",
                              "bucket",
                              "pipeline",
                              "schema",
                              "refund",
                              "backup",
                              "cluster"};

scout::ToolSpec marker_tool(int i, std::uint64_t generation) {
    // The generation is written into the description: a reader can tell which snapshot
    // produced every marker hit.
    return {"marker_" + std::to_string(i),
            "",
            "beacon marker generation g" + std::to_string(generation),
            "",
            ""};
}

std::uint64_t generation_of(const std::string& description) {
    const auto pos = description.rfind(" g");
    return pos == std::string::npos ? 0 : std::stoull(description.substr(pos + 2));
}

scout::ToolSpec churn_tool(std::mt19937& rng, int id) {
    std::uniform_int_distribution<std::size_t> w(0, std::size(kWords) - 1);
    std::string desc = std::string(kWords[w(rng)]) + " " + kWords[w(rng)] + " " + kWords[w(rng)] +
                       " revision " + std::to_string(rng() % 1000);
    return {"tool_" + std::to_string(id),
            "",
            desc,
            R"({"type":"object","properties":{"id":{"type":"string","description":"the )" +
                std::string(kWords[w(rng)]) + R"("}}})",
            ""};
}

class CountingSink final : public scout::EventSink {
public:
    void emit(const scout::Event& event) override {
        if (event.name == "tool_search_completed") {
            completed.fetch_add(1, std::memory_order_relaxed);
        }
    }
    std::atomic<std::uint64_t> completed{0};
};

}  // namespace

TEST_CASE("readers see one whole generation while a writer churns the catalog", "[concurrency]") {
    auto catalog_or = scout::Catalog::create({}, std::make_shared<scout::HashingEmbedder>(64));
    REQUIRE(catalog_or.ok());
    scout::Catalog& catalog = catalog_or.value();
    auto sink = std::make_shared<CountingSink>();
    catalog.set_event_sink(sink);

    std::mt19937 rng(7);
    std::vector<std::vector<int>> live(kChurnServers);  // tool ids present per churn server
    int next_id = 0;
    scout::ServerSpec marker{"marker", "beacon server", "", "", scout::ServerStatus::active, {}};
    for (int i = 0; i < kMarkerTools; ++i) {
        marker.tools.push_back(marker_tool(i, 1));
    }
    REQUIRE(catalog.upsert_server(marker).ok());
    REQUIRE(catalog
                .upsert_server({"stable",
                                "never changes",
                                "",
                                "",
                                scout::ServerStatus::active,
                                {{"zephyr_quasar_lookup", "", "find the zephyr quasar", "", ""}}})
                .ok());
    for (int s = 0; s < kChurnServers; ++s) {
        scout::ServerSpec server{"churn_" + std::to_string(s),
                                 "churning server",
                                 "",
                                 "",
                                 scout::ServerStatus::active,
                                 {}};
        for (int t = 0; t < 25; ++t) {
            live[static_cast<std::size_t>(s)].push_back(next_id);
            server.tools.push_back(churn_tool(rng, next_id++));
        }
        REQUIRE(catalog.upsert_server(server).ok());
    }
    auto first = catalog.commit();
    REQUIRE(first.ok());
    REQUIRE(first->generation == 1);

    std::atomic<bool> done{false};
    std::atomic<std::uint64_t> searches{0};
    std::atomic<std::uint64_t> failures{0};
    std::atomic<std::uint64_t> inconsistent{0};
    std::atomic<std::uint64_t> missing_marker{0};
    std::atomic<std::uint64_t> missing_stable{0};
    std::vector<std::thread> readers;
    for (int r = 0; r < kReaders; ++r) {
        readers.emplace_back([&, r] {
            std::mt19937 local(static_cast<unsigned>(100 + r));
            const scout::Mode modes[] = {
                scout::Mode::hybrid, scout::Mode::bm25, scout::Mode::dense};
            std::uint64_t n = 0;
            while (!done.load(std::memory_order_acquire) || n < 20) {
                const scout::Searcher searcher = catalog.searcher();  // one snapshot per request
                scout::SearchOptions opt;
                opt.mode = modes[n % 3];
                const int kind = static_cast<int>(n % 3);
                std::string query;
                if (kind == 0) {
                    query = "beacon marker generation";
                    opt.servers = std::vector<std::string>{"marker"};
                    opt.top_k = kMarkerTools;
                } else if (kind == 1) {
                    query = "zephyr quasar lookup";
                    opt.top_k = 3;
                } else {
                    query = std::string(kWords[local() % std::size(kWords)]) + " " +
                            kWords[local() % std::size(kWords)];
                    opt.top_k = 20;
                }
                auto result = searcher.search(query, opt);
                ++n;
                if (!result.ok()) {
                    failures.fetch_add(1);
                    continue;
                }
                for (const scout::Hit& hit : result->hits) {
                    if (hit.server == "marker" &&
                        generation_of(hit.description) != result->generation) {
                        inconsistent.fetch_add(1);
                    }
                }
                if (kind == 0 && result->hits.size() != static_cast<std::size_t>(kMarkerTools)) {
                    missing_marker.fetch_add(1);
                }
                if (kind == 1 && opt.mode != scout::Mode::dense &&
                    (result->hits.empty() || result->hits[0].tool != "zephyr_quasar_lookup")) {
                    missing_stable.fetch_add(1);
                }
                if (kind == 1 && !searcher.find("stable", "zephyr_quasar_lookup")) {
                    missing_stable.fetch_add(1);
                }
            }
            searches.fetch_add(n);
        });
    }
    std::thread stats_reader([&] {
        while (!done.load(std::memory_order_acquire)) {
            const scout::SearchStats s = catalog.stats();
            if (s.searches > 0 && (s.p50_ms > s.p99_ms || s.fallback_rate != 0.0)) {
                inconsistent.fetch_add(1);
            }
            std::this_thread::yield();
        }
    });

    // The writer: every commit re-upserts all marker tools (an update of existing tools) with the
    // generation it will publish, and churns the other servers with upserts and removals.
    std::size_t operations = 0;
    std::uint64_t generation = first->generation;
    for (int c = 0; c < kCommits; ++c) {
        for (int i = 0; i < kMarkerTools; ++i) {
            REQUIRE(catalog.upsert_tool("marker", marker_tool(i, generation + 1)).ok());
            ++operations;
        }
        for (int op = 0; op < kOpsPerCommit; ++op) {
            const auto s = static_cast<std::size_t>(rng() % kChurnServers);
            const std::string server = "churn_" + std::to_string(s);
            if (rng() % 2 == 0 && !live[s].empty()) {
                const std::size_t at = rng() % live[s].size();
                REQUIRE(catalog.remove_tool(server, "tool_" + std::to_string(live[s][at])).ok());
                live[s].erase(live[s].begin() + static_cast<std::ptrdiff_t>(at));
            } else if (rng() % 2 == 0 && !live[s].empty()) {
                REQUIRE(
                    catalog.upsert_tool(server, churn_tool(rng, live[s][rng() % live[s].size()]))
                        .ok());
            } else {
                live[static_cast<std::size_t>(s)].push_back(next_id);
                REQUIRE(catalog.upsert_tool(server, churn_tool(rng, next_id++)).ok());
            }
            ++operations;
        }
        auto info = catalog.commit();
        REQUIRE(info.ok());
        REQUIRE(info->generation == generation + 1);
        REQUIRE(info->dense_ready);
        generation = info->generation;
    }
    done.store(true, std::memory_order_release);
    for (std::thread& t : readers) {
        t.join();
    }
    stats_reader.join();

#ifndef SCOUT_TEST_TSAN
    CHECK(operations >= 10000);
    CHECK(kCommits >= 100);
#endif
    CHECK(failures.load() == 0);
    CHECK(inconsistent.load() == 0);
    CHECK(missing_marker.load() == 0);
    CHECK(missing_stable.load() == 0);
    CHECK(searches.load() >= kReaders * 20U);
    const scout::SearchStats stats = catalog.stats();
    CHECK(stats.searches == searches.load());
    CHECK(sink->completed.load() == searches.load());
    CHECK(stats.failures == 0);
    CHECK(stats.p50_ms > 0.0);
    CHECK(stats.p50_ms <= stats.p95_ms);
    CHECK(stats.p95_ms <= stats.p99_ms);
    CHECK(catalog.searcher().generation() == generation);
}

TEST_CASE("retired snapshots stay usable by the searchers that pinned them", "[concurrency]") {
    auto catalog = scout::Catalog::create();
    REQUIRE(catalog.ok());
    REQUIRE(catalog
                ->upsert_server({"a",
                                 "",
                                 "",
                                 "",
                                 scout::ServerStatus::active,
                                 {{"alpha_tool", "", "alpha", "", ""}}})
                .ok());
    REQUIRE(catalog->commit().ok());
    const scout::Searcher old = catalog->searcher();
    std::thread writer([&] {
        for (int i = 0; i < 30; ++i) {
            (void)catalog->remove_server("a");
            (void)catalog->upsert_server({"a",
                                          "",
                                          "",
                                          "",
                                          scout::ServerStatus::active,
                                          {{"beta_" + std::to_string(i), "", "beta", "", ""}}});
            (void)catalog->commit();
        }
    });
    for (int i = 0; i < 200; ++i) {
        auto r = old.search("alpha");
        REQUIRE(r.ok());
        REQUIRE(r->hits.size() == 1);
        REQUIRE(r->hits[0].tool == "alpha_tool");
        REQUIRE(r->generation == 1);
    }
    writer.join();
    auto fresh = catalog->searcher().search("alpha");
    REQUIRE(fresh.ok());
    CHECK(fresh->hits.empty());
}

// parallel_commit_test.cpp: a commit on several threads indexes exactly what a commit on one
// does: every query's BM25, exact dense and hybrid hits and scores are bit-identical, the first
// build and incremental ones alike, and progress counts stay monotonic.
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/scout.hpp"

#include "support/parallel_catalogs.hpp"
#include "support/sanitized.hpp"
#include "support/test_catalogs.hpp"

namespace {

using scout::testing::build;
using scout::testing::catalog;

std::vector<scout::Hit> search(const scout::Catalog& catalog,
                               const std::string& query,
                               scout::Mode mode) {
    scout::SearchOptions opt;
    opt.mode = mode;
    opt.top_k = scout::SearchOptions::kMaxTopK;
    auto r = catalog.searcher().search(query, opt);
    REQUIRE(r.ok());
    return r->hits;
}

void require_same(const scout::Catalog& got,
                  const scout::Catalog& want,
                  const std::vector<std::string>& queries) {
    REQUIRE(got.searcher().size() == want.searcher().size());
    for (const std::string& q : queries) {
        for (scout::Mode mode : {scout::Mode::bm25, scout::Mode::dense, scout::Mode::hybrid}) {
            const auto a = search(got, q, mode);
            const auto b = search(want, q, mode);
            INFO("query '" << q << "', mode " << static_cast<int>(mode));
            REQUIRE(a.size() == b.size());
            for (std::size_t i = 0; i < a.size(); ++i) {
                INFO("rank " << i << ": " << a[i].name << " vs " << b[i].name);
                REQUIRE(a[i].id == b[i].id);
                REQUIRE(a[i].name == b[i].name);
                REQUIRE(a[i].score == b[i].score);
                REQUIRE(a[i].bm25_score == b[i].bm25_score);
                REQUIRE(a[i].dense_score == b[i].dense_score);
                REQUIRE(a[i].bm25_rank == b[i].bm25_rank);
                REQUIRE(a[i].dense_rank == b[i].dense_rank);
            }
        }
    }
}

/// Random queries, the name of every 50th tool, and one-tool words of every 37th tool.
std::vector<std::string> queries(const scout::CatalogSpec& spec, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::string> out;
    for (int i = 0; i < 20; ++i) {
        out.push_back(scout::testing::random_query(rng));
    }
    std::size_t n = 0;
    for (const scout::ServerSpec& s : spec.servers) {
        for (const scout::ToolSpec& t : s.tools) {
            if (n % 50 == 0) {
                out.push_back(t.name);
            }
            if (n % 37 == 0) {
                out.push_back("w" + std::to_string(n) + " " + t.name.substr(0, t.name.find('_')));
            }
            ++n;
        }
    }
    return out;
}

}  // namespace

TEST_CASE("a parallel commit indexes exactly what a sequential one does",
          "[concurrency][catalog][parallel]") {
    const scout::CatalogSpec spec = catalog(120, 12, 7);  // 1,440 tools
    const auto qs = queries(spec, 11);
    const scout::Catalog one = build(spec, 1, scout::DenseIndexKind::flat);
    for (std::size_t threads : {2U, 4U}) {
        INFO("threads " << threads);
        require_same(build(spec, threads, scout::DenseIndexKind::flat), one, qs);
    }
}

TEST_CASE("incremental parallel commits stay identical to sequential ones",
          "[concurrency][catalog][parallel]") {
    scout::CatalogSpec spec = catalog(60, 10, 3);
    const auto qs = queries(spec, 5);
    scout::CatalogOptions o1;
    o1.threads = 1;
    o1.dense.kind = scout::DenseIndexKind::flat;
    scout::CatalogOptions o2 = o1;
    o2.threads = 2;
    auto a = scout::Catalog::create(o1, std::make_shared<scout::HashingEmbedder>(32));
    auto b = scout::Catalog::create(o2, std::make_shared<scout::HashingEmbedder>(32));
    REQUIRE((a.ok() && b.ok()));
    REQUIRE(a->upsert_servers(spec).ok());
    REQUIRE(b->upsert_servers(spec).ok());
    REQUIRE(a->commit().ok());
    REQUIRE(b->commit().ok());
    std::mt19937 rng(9);
    for (int step = 0; step < 5; ++step) {
        // Replace a few servers wholesale with new tools (new documents, new terms).
        for (int k = 0; k < 8; ++k) {
            scout::ServerSpec s =
                catalog(1, 10, 100U + static_cast<std::uint32_t>(step * 8 + k)).servers.front();
            s.name = "srv" + std::to_string(rng() % 60);
            REQUIRE(a->upsert_server(s).ok());
            REQUIRE(b->upsert_server(s).ok());
        }
        REQUIRE(a->commit().ok());
        REQUIRE(b->commit().ok());
        require_same(*b, *a, qs);
    }
}

TEST_CASE("a large commit lays out BM25 beside the dense index and stays identical",
          "[concurrency][catalog][parallel]") {
    // 8,400 tools: from 8,192 a commit with an embedder lays out the postings on a thread of its
    // own while the vectors are embedded and indexed; a reader searches throughout.
    scout::CatalogSpec spec = catalog(700, 12, 21);
    // 415 queries, each searched in three modes on both catalogs twice; a sanitizer build compares
    // every fourth (half this case's time under TSan went to these searches).
    std::vector<std::string> qs = queries(spec, 23);
    if (scout::test::kSanitized) {
        std::vector<std::string> fourth;
        for (std::size_t i = 0; i < qs.size(); i += 4) {
            fourth.push_back(qs[i]);
        }
        qs = std::move(fourth);
    }
    scout::CatalogOptions o1;
    o1.threads = 1;
    o1.dense.kind = scout::DenseIndexKind::flat;
    scout::CatalogOptions o2 = o1;
    o2.threads = 2;
    auto a = scout::Catalog::create(o1, std::make_shared<scout::HashingEmbedder>(16));
    auto b = scout::Catalog::create(o2, std::make_shared<scout::HashingEmbedder>(16));
    REQUIRE((a.ok() && b.ok()));
    REQUIRE(a->upsert_servers(spec).ok());
    REQUIRE(b->upsert_servers(spec).ok());
    REQUIRE(a->commit().ok());
    REQUIRE(b->commit().ok());
    require_same(*b, *a, qs);
    std::atomic<bool> stop{false};
    std::atomic<int> failed{0};
    std::thread reader([&] {  // Catch's assertions are not thread-safe: count instead
        while (!stop.load()) {
            if (!b->searcher().search(qs.front()).ok()) {
                ++failed;
            }
        }
    });
    for (int step = 0; step < 3; ++step) {  // one tool edited: the postings are patched
        scout::ToolSpec tool = spec.servers[static_cast<std::size_t>(step) * 100].tools.front();
        tool.description += " edited" + std::to_string(step);
        REQUIRE(a->upsert_tool(spec.servers[static_cast<std::size_t>(step) * 100].name, tool).ok());
        REQUIRE(b->upsert_tool(spec.servers[static_cast<std::size_t>(step) * 100].name, tool).ok());
        REQUIRE(a->commit().ok());
        REQUIRE(b->commit().ok());
    }
    stop = true;
    reader.join();
    CHECK(failed.load() == 0);
    require_same(*b, *a, qs);
}

TEST_CASE("progress of a parallel commit counts upwards within each phase",
          "[concurrency][catalog][parallel]") {
    const scout::CatalogSpec spec = catalog(200, 15, 13);  // 3,000 tools
    std::vector<scout::CommitProgress> heard;
    (void)build(spec, 4, scout::DenseIndexKind::flat, &heard);
    std::map<std::string_view, std::vector<scout::CommitProgress>> by_phase;
    std::vector<std::string_view> order;
    for (const auto& p : heard) {
        if (order.empty() || order.back() != p.phase) {
            order.push_back(p.phase);
        }
        by_phase[p.phase].push_back(p);
    }
    // Phases in order, each heard in one stretch.
    CHECK(order == std::vector<std::string_view>{"documents", "bm25", "embeddings", "dense"});
    for (const auto& [phase, reports] : by_phase) {
        INFO("phase " << phase);
        REQUIRE_FALSE(reports.empty());
        CHECK(reports.front().done == 0);
        CHECK(reports.back().done == reports.back().total);
        for (std::size_t i = 1; i < reports.size(); ++i) {
            CHECK(reports[i].total == reports[0].total);
            CHECK(reports[i].done >= reports[i - 1].done);
            CHECK(reports[i].done <= reports[i].total);
        }
    }
    CHECK(by_phase["documents"].back().total == 3000);
    CHECK(by_phase["documents"].size() > 2);  // it advanced between start and end
}

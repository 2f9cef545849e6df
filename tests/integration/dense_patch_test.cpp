// dense_patch_test.cpp: a commit that changes a few tools' vectors patches the previous HNSW
// graph (copies it, re-links the changed points) instead of building it again. The patched
// graph must find the changed tools by their new text, keep its recall against exact search over
// many rounds, leave the previous snapshot's graph intact for the searches running on it, and
// give way to a full build when too much changed.
#include <algorithm>
#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/scout.hpp"

#include "support/parallel_catalogs.hpp"
#include "support/sanitized.hpp"
#include "support/temp_dir.hpp"
#include "support/test_catalogs.hpp"

// Linked with parallel_hnsw_test.cpp, whose TSan defaults (no lock-order check, for hnswlib's
// nested point locks) cover this file too.

namespace {

using scout::testing::build;
using scout::testing::catalog;

scout::SearchOptions dense_top(std::size_t k) {
    scout::SearchOptions opt;
    opt.mode = scout::Mode::dense;
    opt.top_k = k;
    return opt;
}

double recall(const scout::Catalog& graph, const scout::Catalog& exact) {
    return scout::testing::dense_recall(graph, exact, 23, 31);
}

}  // namespace

TEST_CASE("a few changed vectors patch the HNSW graph, which keeps finding what exact search finds",
          "[concurrency][catalog][dense]") {
    // 3,000 tools; 2,000 under a sanitizer, where the time goes to the four graph builds below
    // (this one, the fresh one, and the two a patch gives way to). The batches scale along.
    const std::size_t servers = scout::test::kSanitized ? 100 : 150;
    const std::size_t tools = servers * 20;
    const std::size_t batch_size = tools * 3 / 100;  // 90 of 3,000: under a thirty-second
    scout::CatalogSpec spec = catalog(servers, 20, 29);
    scout::Catalog graph = build(spec, 1, scout::DenseIndexKind::hnsw);
    std::atomic<bool> stop{false};
    std::atomic<int> failures{0};
    // Searches on whatever snapshot is current while commits patch copies of its graph.
    std::thread reader([&] {
        std::mt19937 rng(5);
        while (!stop.load()) {
            auto r = graph.searcher().search(scout::testing::random_query(rng), dense_top(5));
            failures += (r.ok() && r->hits.size() == 5) ? 0 : 1;
        }
    });
    // The same edits on an exact index: what the patched graph must find.
    scout::Catalog exact = build(spec, 1, scout::DenseIndexKind::flat);
    std::mt19937 rng(11);
    std::size_t checked = 0;
    for (int round = 0; round < 12; ++round) {
        std::vector<std::string> queries;
        for (int e = 0; e < 3; ++e) {
            scout::ServerSpec& server = spec.servers[rng() % spec.servers.size()];
            scout::ToolSpec& tool = server.tools[rng() % server.tools.size()];
            tool.description = "zq" + std::to_string(round) + "x" + std::to_string(e) +
                               " patched words " + scout::testing::random_query(rng);
            REQUIRE(graph.upsert_tool(server.name, tool).ok());
            REQUIRE(exact.upsert_tool(server.name, tool).ok());
            queries.push_back(tool.name + " " + tool.description);
        }
        auto info = graph.commit();
        REQUIRE(info.ok());
        CHECK(info->dense_patched);
        CHECK_FALSE(info->dense_reused);
        REQUIRE(exact.commit().ok());
        // Exact search's best tool for each edited tool's new text is among the graph's best
        // three: the re-linked points are reachable at their new places.
        for (const std::string& q : queries) {
            auto want = exact.searcher().search(q, dense_top(1));
            auto got = graph.searcher().search(q, dense_top(3));
            REQUIRE((want.ok() && got.ok() && !want->hits.empty()));
            INFO("round " << round << ", query " << q);
            CHECK(std::any_of(got->hits.begin(), got->hits.end(), [&](const scout::Hit& h) {
                return h.id == want->hits.front().id ||
                       h.dense_score == want->hits.front().dense_score;
            }));
            ++checked;
        }
    }
    CHECK(checked == 36);
    stop = true;
    reader.join();
    CHECK(failures.load() == 0);

    const scout::Catalog fresh = build(spec, 1, scout::DenseIndexKind::hnsw);
    const double patched = recall(graph, exact);
    const double rebuilt = recall(fresh, exact);
    INFO("recall@10: patched " << patched << ", rebuilt " << rebuilt);
    CHECK(patched >= 0.9);
    CHECK(patched >= rebuilt - 0.03);

    // Patches re-link at most an eighth of the points between full builds: commits of `batch_size`
    // changed vectors (under a thirty-second each) patch until that adds up, then one builds.
    std::vector<bool> patched_rounds;
    for (int round = 0; round < 6; ++round) {
        for (std::size_t i = 0; i < batch_size; ++i) {
            scout::ServerSpec& server = spec.servers[i];
            server.tools[1].description += " r" + std::to_string(round);
            REQUIRE(graph.upsert_tool(server.name, server.tools[1]).ok());
        }
        auto batch = graph.commit();
        REQUIRE(batch.ok());
        patched_rounds.push_back(batch->dense_patched);
    }
    // 36 re-linked above; 36 + 3 * 90 = 306 <= 375 (3,000 / 8), the fourth batch would pass it
    // (2,000 tools: 36 + 3 * 60 = 216 <= 250, 276 with the fourth).
    static_assert(36 + 3 * (150 * 20 * 3 / 100) <= 150 * 20 / 8 &&
                  36 + 4 * (150 * 20 * 3 / 100) > 150 * 20 / 8);
    static_assert(36 + 3 * (100 * 20 * 3 / 100) <= 100 * 20 / 8 &&
                  36 + 4 * (100 * 20 * 3 / 100) > 100 * 20 / 8);
    CHECK(patched_rounds == std::vector<bool>{true, true, true, false, true, true});

    // Past a thirty-second of the vectors, the graph is built afresh.
    for (scout::ServerSpec& server : spec.servers) {  // one vector in 20
        server.tools.front().description += " broad change";
        REQUIRE(graph.upsert_tool(server.name, server.tools.front()).ok());
    }
    auto info = graph.commit();
    REQUIRE(info.ok());
    CHECK_FALSE(info->dense_patched);
    CHECK(info->dense_ready);
}

TEST_CASE("a graph read from an index file is patched like a built one",
          "[concurrency][catalog][dense]") {
    scout::CatalogSpec spec = catalog(150, 20, 31);  // 3,000 tools
    const scout::Catalog built = build(spec, 1, scout::DenseIndexKind::hnsw);
    scout::test::TempDir dir;
    const auto file = dir.file("hnsw.scoutidx");
    REQUIRE(built.save(file).ok());
    // The file keeps the catalog's options (HNSW) and the graph, read without a build.
    auto opened = scout::Catalog::open(file, std::make_shared<scout::HashingEmbedder>(32));
    REQUIRE(opened.ok());
    scout::ServerSpec& server = spec.servers[7];
    scout::ToolSpec& tool = server.tools[3];
    tool.description = "zqopened patched words " + tool.description;
    REQUIRE(opened->upsert_tool(server.name, tool).ok());
    auto info = opened->commit();
    REQUIRE(info.ok());
    CHECK(info->dense_patched);
    auto r = opened->searcher().search(tool.name + " " + tool.description, dense_top(3));
    REQUIRE(r.ok());
    CHECK(std::any_of(r->hits.begin(), r->hits.end(), [&](const scout::Hit& h) {
        return h.server == server.name && h.tool == tool.name;
    }));
}

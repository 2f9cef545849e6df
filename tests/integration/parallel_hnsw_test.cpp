// parallel_hnsw_test.cpp: an HNSW graph built on several threads links points in the order
// insertions finish, so it is held to recall against exact search rather than to identity.
#include <algorithm>
#include <random>
#include <string>

#include <catch2/catch.hpp>

#include "scout/scout.hpp"

#include "support/parallel_catalogs.hpp"
#include "support/sanitized.hpp"
#include "support/test_catalogs.hpp"

// hnswlib holds a point's lock while it takes its neighbours' locks, which ThreadSanitizer's
// lock-order check reports (past its limit of tracked locks with no stack to suppress by)
// although the cycle cannot close: a point is reachable on a level only once it links itself
// there, and then it searches lower levels only. Under TSan this program skips that check;
// data races are still reported. TSAN_OPTIONS is read after these defaults.
extern "C" const char* __tsan_default_options() {
    return "detect_deadlocks=0";
}

namespace {

using scout::testing::build;
using scout::testing::catalog;

double parallel_graph_recall(const scout::Catalog& graph, const scout::Catalog& exact) {
    return scout::testing::dense_recall(graph, exact, 17, 29);
}

}  // namespace

TEST_CASE("an HNSW graph built in parallel finds what exact search finds",
          "[concurrency][catalog][parallel]") {
    // 3,000 tools; 2,000 under a sanitizer, whose instrumented graph builds run several times
    // slower (the parallel build's races show at either size).
    const scout::CatalogSpec spec = catalog(scout::test::kSanitized ? 100 : 150, 20, 21);
    const scout::Catalog exact = build(spec, 1, scout::DenseIndexKind::flat);
    const double sequential =
        parallel_graph_recall(build(spec, 1, scout::DenseIndexKind::hnsw), exact);
    const double parallel =
        parallel_graph_recall(build(spec, 4, scout::DenseIndexKind::hnsw), exact);
    INFO("recall@10: sequential " << sequential << ", parallel " << parallel);
    CHECK(parallel >= 0.9);
    CHECK(parallel >= sequential - 0.02);
}

// micro_main.cpp: scout-bench-micro: Google Benchmark micro-benchmarks of the hot paths
// (analyzer, BM25 query, flat and HNSW dense query, RRF, whole Searcher::search) over seeded
// synthetic corpora of 2k, 20k and 200k tools. The 200k HNSW and hybrid-search cases build
// large graphs; they only run with SCOUT_BENCH_LARGE=1 so the default run stays short.
// Filter with --benchmark_filter=REGEX.
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "scout/catalog.hpp"
#include "scout/embedder.hpp"

#include "analysis/analyzer.hpp"
#include "dense/dense_index.hpp"
#include "fusion/fusion.hpp"
#include "outcomes/outcome_prior.hpp"
#include "sparse/bm25_index.hpp"
#include "synthetic_docs.hpp"

namespace {

using namespace scout;
using namespace scout::detail;

constexpr std::size_t kDim = 128;
constexpr std::size_t kFetch = 15;  // top_k 5 x fetch factor 3
constexpr std::size_t kQueries = 64;

std::vector<std::vector<std::string>> analyzed_queries() {
    static const auto queries = [] {
        const Analyzer analyzer;
        std::vector<std::vector<std::string>> out;
        for (const std::string& q : bench::synthetic_texts(kQueries, 4, 991)) {
            out.push_back(analyzer.analyze(q));
        }
        return out;
    }();
    return queries;
}

const Bm25Index& bm25_index(std::size_t n) {
    static std::map<std::size_t, std::unique_ptr<Bm25Index>> cache;
    auto& slot = cache[n];
    if (!slot) {
        const Analyzer analyzer;
        Bm25Index::Builder builder;
        std::vector<std::string> terms;
        for (const std::string& text : bench::synthetic_texts(n, 24, 17)) {
            builder.begin_document();
            terms.clear();
            analyzer.analyze(text, terms);
            for (const std::string& t : terms) {
                builder.add(t, 1.0f);
            }
        }
        slot = std::make_unique<Bm25Index>(std::move(builder).build({}));
    }
    return *slot;
}

std::shared_ptr<const VectorStore> vectors(std::size_t n) {
    static std::map<std::size_t, std::shared_ptr<const VectorStore>> cache;
    auto& slot = cache[n];
    if (!slot) {
        const std::vector<float> rows = bench::synthetic_vectors(n, kDim, 23);
        slot = std::make_shared<VectorStore>(
            kDim, scout::detail::PodVector<float>(rows.begin(), rows.end()));
    }
    return slot;
}

const DenseIndex& dense_index(std::size_t n, bool hnsw) {
    static std::map<std::pair<std::size_t, bool>, std::unique_ptr<DenseIndex>> cache;
    auto& slot = cache[{n, hnsw}];
    if (!slot) {
        slot = hnsw ? make_hnsw_index(vectors(n), DenseOptions{}) : make_flat_index(vectors(n));
    }
    return *slot;
}

const Searcher& searcher(std::size_t n, bool with_embedder) {
    static std::map<std::pair<std::size_t, bool>, std::unique_ptr<Catalog>> cache;
    auto& slot = cache[{n, with_embedder}];
    if (!slot) {
        auto catalog =
            Catalog::create({}, with_embedder ? std::make_shared<HashingEmbedder>(256) : nullptr);
        if (!catalog || !catalog->upsert_servers(bench::synthetic_catalog(n, 5)).ok() ||
            !catalog->commit()) {
            std::abort();
        }
        slot = std::make_unique<Catalog>(std::move(catalog.value()));
    }
    static std::map<std::pair<std::size_t, bool>, Searcher> searchers;
    return searchers.try_emplace({n, with_embedder}, slot->searcher()).first->second;
}

void bm_analyzer(benchmark::State& state) {
    const Analyzer analyzer;
    const auto texts = bench::synthetic_texts(kQueries, 24, 3);
    std::vector<std::string> out;
    std::size_t i = 0;
    for (auto _ : state) {
        out.clear();
        analyzer.analyze(texts[i++ % texts.size()], out);
        benchmark::DoNotOptimize(out.data());
    }
}

void bm_bm25_query(benchmark::State& state) {
    const Bm25Index& index = bm25_index(static_cast<std::size_t>(state.range(0)));
    const auto queries = analyzed_queries();
    std::vector<ScoredDoc> out;
    std::size_t i = 0;
    for (auto _ : state) {
        index.search(queries[i++ % queries.size()], kFetch, nullptr, out);
        benchmark::DoNotOptimize(out.data());
    }
}

void dense_query(benchmark::State& state, bool hnsw) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const DenseIndex& index = dense_index(n, hnsw);
    const std::vector<float> queries = bench::synthetic_vectors(kQueries, kDim, 29);
    std::vector<ScoredDoc> out;
    std::size_t i = 0;
    for (auto _ : state) {
        index.search(queries.data() + (i++ % kQueries) * kDim, kFetch, nullptr, out);
        benchmark::DoNotOptimize(out.data());
    }
}

void bm_flat_query(benchmark::State& state) {
    dense_query(state, false);
}
void bm_hnsw_query(benchmark::State& state) {
    dense_query(state, true);
}

void bm_rrf(benchmark::State& state) {
    std::vector<std::vector<ScoredDoc>> lists(2);
    for (std::size_t r = 0; r < kFetch; ++r) {
        lists[0].push_back({static_cast<ToolId>(r * 7), 10.0f - static_cast<float>(r)});
        lists[1].push_back({static_cast<ToolId>(r * 5), 1.0f - 0.01f * static_cast<float>(r)});
    }
    for (auto _ : state) {
        auto fused = rrf_fuse(lists, 60.0, 5);
        benchmark::DoNotOptimize(fused.data());
    }
}

void search(benchmark::State& state, Mode mode) {
    const Searcher& s = searcher(static_cast<std::size_t>(state.range(0)), mode != Mode::bm25);
    const auto texts = bench::synthetic_texts(kQueries, 4, 991);
    SearchOptions options;
    options.mode = mode;
    std::size_t i = 0;
    for (auto _ : state) {
        auto result = s.search(texts[i++ % texts.size()], options);
        benchmark::DoNotOptimize(result.ok());
    }
}

void bm_search_bm25(benchmark::State& state) {
    search(state, Mode::bm25);
}
void bm_search_hybrid(benchmark::State& state) {
    search(state, Mode::hybrid);
}

/// A query word made of letters only, distinct for each `n`, so the analyzer keeps it whole.
std::string letters_word(std::size_t n) {
    std::string w = "zq";
    do {
        w.push_back(static_cast<char>('a' + n % 26));
        n /= 26;
    } while (n != 0);
    return w;
}

/// A catalog of more tools than the prior keeps, with `fill` percent of the prior's caps on
/// tools and terms already recorded (two distinct words per outcome).
struct OutcomeFixture {
    std::unique_ptr<Catalog> catalog;
    std::vector<ToolKey> tools;
    std::size_t next_word = 0;
};

OutcomeFixture& outcome_fixture(std::size_t fill) {
    static std::map<std::size_t, OutcomeFixture> cache;
    auto [it, fresh] = cache.try_emplace(fill);
    OutcomeFixture& f = it->second;
    if (!fresh) {
        return f;
    }
    const CatalogSpec spec = bench::synthetic_catalog(4500, 5);
    auto catalog = Catalog::create({}, nullptr);
    if (!catalog || !catalog->upsert_servers(spec).ok() || !catalog->commit()) {
        std::abort();
    }
    f.catalog = std::make_unique<Catalog>(std::move(catalog.value()));
    for (const ServerSpec& server : spec.servers) {
        for (const ToolSpec& tool : server.tools) {
            f.tools.push_back({server.name, tool.name});
        }
    }
    const OutcomeLimits& lim = OutcomePrior::limits();
    const std::size_t records = lim.max_terms * fill / 200;  // two new terms each
    for (std::size_t i = 0; i < records; ++i) {
        const std::string query = letters_word(f.next_word) + " " + letters_word(f.next_word + 1);
        f.next_word += 2;
        if (!f.catalog->record_outcome(query, f.tools[i % f.tools.size()], Outcome::success).ok()) {
            std::abort();
        }
    }
    return f;
}

/// One more outcome of a query and tool the prior already holds.
void bm_outcome_repeat(benchmark::State& state) {
    OutcomeFixture& f = outcome_fixture(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) {
        if (!f.catalog->record_outcome("zqa zqb", f.tools.front(), Outcome::success).ok()) {
            std::abort();
        }
    }
}

/// An outcome under two words never seen before: at the caps, each one forces evictions.
void bm_outcome_new_words(benchmark::State& state) {
    OutcomeFixture& f = outcome_fixture(static_cast<std::size_t>(state.range(0)));
    std::size_t i = 0;
    for (auto _ : state) {
        const std::string query = letters_word(f.next_word) + " " + letters_word(f.next_word + 1);
        f.next_word += 2;
        if (!f.catalog->record_outcome(query, f.tools[i++ % f.tools.size()], Outcome::success)
                 .ok()) {
            std::abort();
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    const char* large_env = std::getenv("SCOUT_BENCH_LARGE");
    const bool large = large_env != nullptr && std::string(large_env) == "1";
    const std::vector<std::int64_t> sizes{2000, 20000, 200000};
    const std::vector<std::int64_t> small{2000, 20000};
    benchmark::RegisterBenchmark("analyzer/tool_text", bm_analyzer);
    benchmark::RegisterBenchmark("rrf/2x15", bm_rrf);
    for (std::int64_t n : sizes) {
        benchmark::RegisterBenchmark("bm25_query", bm_bm25_query)->Arg(n);
        benchmark::RegisterBenchmark("flat_query", bm_flat_query)->Arg(n);
        benchmark::RegisterBenchmark("search_bm25", bm_search_bm25)->Arg(n);
    }
    for (std::int64_t n : large ? sizes : small) {
        benchmark::RegisterBenchmark("hnsw_query", bm_hnsw_query)->Arg(n);
        benchmark::RegisterBenchmark("search_hybrid", bm_search_hybrid)->Arg(n);
    }
    for (std::int64_t fill : {0, 50, 100}) {
        benchmark::RegisterBenchmark("outcome_repeat", bm_outcome_repeat)
            ->Arg(fill)
            ->Unit(benchmark::kMicrosecond);
    }
    benchmark::RegisterBenchmark("outcome_new_words", bm_outcome_new_words)
        ->Arg(100)
        ->Unit(benchmark::kMicrosecond);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
        return 1;
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

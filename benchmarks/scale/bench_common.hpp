// bench_common.hpp: shared pieces of scout-bench-scale: the corpus (term lists, texts, vectors,
// queries), the latency recorder and the result rows every engine reports.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "scout/types.hpp"

#include "dense/dense_index.hpp"

namespace scout::bench {

// The benchmarks measure the library's internals (indexes, kernels) directly.
using namespace scout::detail;  // NOLINT(google-build-using-namespace)

/// One document collection with its queries, in the form every engine can ingest: word ids
/// into `vocab` (for BM25 engines; CSR so 1M documents stay compact), and unit vectors shared
/// with scout's dense index (no copy).
struct Corpus {
    std::string name;  ///< "synthetic" or the real catalog's name
    std::vector<std::string> vocab;
    std::vector<std::uint64_t> doc_offsets{
        0};  ///< doc i's words are [doc_offsets[i], doc_offsets[i + 1])
    std::vector<std::uint32_t> doc_words;
    std::vector<std::vector<std::uint32_t>> queries;  ///< word ids per query
    std::vector<std::string> query_texts;
    /// The real catalog as loaded (names, descriptions, schemas); null for synthetic corpora.
    std::shared_ptr<const CatalogSpec> spec;
    std::shared_ptr<VectorStore> vectors;  ///< one unit row per document
    std::vector<float> query_vectors;      ///< queries.size() x dim, unit length
    [[nodiscard]] std::size_t size() const noexcept { return doc_offsets.size() - 1; }
    [[nodiscard]] std::size_t dim() const noexcept { return vectors ? vectors->dim() : 0; }
    [[nodiscard]] std::span<const std::uint32_t> doc(std::size_t i) const noexcept {
        return {doc_words.data() + doc_offsets[i], doc_words.data() + doc_offsets[i + 1]};
    }
    /// The document's words joined by spaces.
    [[nodiscard]] std::string text(std::size_t i) const;
    [[nodiscard]] const float* query_vector(std::size_t q) const noexcept {
        return query_vectors.data() + q * dim();
    }
};

struct Config {
    std::vector<std::size_t> sizes{2000, 20000, 200000};
    std::size_t queries = 300;  ///< distinct queries per corpus
    std::size_t min_samples =
        1000;               ///< timed searches per engine (queries cycle), budget permitting
    double budget_s = 1.5;  ///< wall-clock cap per engine and size
    std::size_t dim = 384;
    std::size_t hnsw_max = 20000;  ///< largest N that builds HNSW graphs (slow to build)
    std::size_t k = 10;
    bool sparse = true;
    bool dense = true;
    bool hybrid = true;
    bool path = true;    ///< the whole Searcher::search rows (run_search_path)
    bool reopen = true;  ///< index, reopen and one-tool commit rows (run_reopen)
    std::vector<std::size_t> reopen_sizes{2000, 3574, 20000, 100000};
    bool json = false;
    bool peers = true;         ///< false: scout engines only (quick profiling runs)
    std::string real_catalog;  ///< empty: eval::datasets_dir() / "merged"; "none" skips it
};

/// One line of the output table.
struct Row {
    std::string section;  ///< bm25, dense, hybrid
    std::string corpus;
    std::size_t n = 0;
    std::string engine;
    bool scout = false;  ///< a scout engine (compared against the best peer)
    double build_s = 0;
    std::size_t bytes = 0;
    double p50_us = 0, p95_us = 0, p99_us = 0, qps = 0;
    std::size_t samples = 0;
    std::string quality;  ///< e.g. "recall@10 0.998" against the exact answer
    std::string note;
};

/// Times `search(i)` for query indices cycling over [0, queries): one warm-up pass over up to
/// 50 queries, then up to cfg.min_samples timed calls or cfg.budget_s seconds (at least 5).
void measure(const Config& cfg,
             std::size_t queries,
             const std::function<void(std::size_t)>& search,
             Row& row);

/// CPU seconds this thread has used: build times are taken in CPU time, which other processes
/// on a shared machine cannot inflate.
[[nodiscard]] double thread_cpu_seconds();

/// Seconds since `start`.
[[nodiscard]] inline double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The synthetic corpus: Zipf(1.0) over a 50k-word vocabulary, 40-120 tokens per document
/// (mean 80), queries of 2-4 distinct words drawn from the same law with the 100 most frequent
/// (stop-word-like) ranks left out; vectors uniform on the unit sphere. Deterministic in `seed`.
[[nodiscard]] Corpus make_synthetic(std::size_t n,
                                    std::size_t queries,
                                    std::size_t dim,
                                    std::uint64_t seed);

/// A real catalog (catalog.json + queries.json in `dir`), analyzed with scout's analyzer;
/// vectors from the feature-hashing embedder. Empty corpus (and a message on stderr) on error.
[[nodiscard]] Corpus load_real(const std::string& dir, std::size_t dim);

/// Top-k ids of an exact brute-force BM25 / inner-product pass (the ground truth rows compare
/// against); computed once per corpus by the sparse and dense sections.
[[nodiscard]] std::vector<std::uint32_t> ids_of(const std::vector<ScoredDoc>& docs);

/// recall@k of `got` against `truth` (ids), averaged by the caller.
[[nodiscard]] double overlap(const std::vector<std::uint32_t>& got,
                             const std::vector<std::uint32_t>& truth);

/// Writes the corpus as a Xapian glass database at `dir` (replacing any). Throws Xapian::Error.
void build_xapian_index(const Corpus& corpus, const std::filesystem::path& dir);

std::vector<Row> run_sparse(const Config& cfg, const Corpus& corpus);
std::vector<Row> run_dense(const Config& cfg, const Corpus& corpus);
std::vector<Row> run_hybrid(const Config& cfg, const Corpus& corpus);
/// The whole Searcher::search a caller runs (query analysis, signals, hits), next to the BM25
/// rows: BM25 mode with the default signals and with them off, and for a real catalog the
/// default hybrid with the shipped static model (query embedding excluded).
std::vector<Row> run_search_path(const Config& cfg, const Corpus& corpus);

/// The tools scout's Searcher rows index: the real catalog itself, or for a synthetic corpus 50
/// tools per server named after their index and described by the corpus words.
[[nodiscard]] CatalogSpec catalog_spec(const Corpus& corpus);

/// One size of scout-bench-reopen's table: the index build, the file, the open and the first
/// search in a fresh process, and a one-tool commit (static embedder).
struct ReopenRow {
    std::size_t tools = 0;
    double index_cpu_ms = 0, index_mib = 0, file_mib = 0;
    double open_ms = 0, open_cpu_ms = 0, first_search_ms = 0, rss_mib = 0, peak_mib = 0;
    double commit_ms = 0;
};
/// A performance target and this run's figure for it.
struct Target {
    std::string what;
    double value = 0;
    double limit = 0;
    std::string unit;
};

/// Runs scout-bench-reopen (beside this binary) over cfg.reopen_sizes; empty if it cannot.
std::vector<ReopenRow> run_reopen(const Config& cfg);
/// Every target this run's rows measure.
std::vector<Target> targets_of(const std::vector<Row>& rows, const std::vector<ReopenRow>& reopen);

void print_table(const std::vector<Row>& rows);
void print_reopen(const std::vector<ReopenRow>& rows);
void print_targets(const std::vector<Target>& targets);
/// The rows, then the reopen rows (section "reopen") and the targets (section "target").
void print_json(const std::vector<Row>& rows,
                const std::vector<ReopenRow>& reopen,
                const std::vector<Target>& targets);

}  // namespace scout::bench

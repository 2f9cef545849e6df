// dense_engines.cpp: top-k inner product side by side on the same unit vectors: scout flat
// fp32, scout int8 (+ exact re-scoring), scout HNSW, hnswlib directly, a plain loop, and
// FAISS IndexFlatIP (Debian's build, one thread).
#include <omp.h>

#include <algorithm>
#include <cstdio>

#include <faiss/IndexFlat.h>

#include "bench_common.hpp"
#include "hnsw_peer.hpp"

namespace scout::bench {
namespace {

using Clock = std::chrono::steady_clock;
using FaissIdx = faiss::Index::idx_t;  // FAISS 1.7.3 spelling

Row base_row(const Corpus& c, const char* engine, bool scout) {
    Row r;
    r.section = "dense";
    r.corpus = c.name;
    r.n = c.size();
    r.engine = engine;
    r.scout = scout;
    return r;
}

/// The textbook loop: one score per row, then a partial sort of all N scores.
std::vector<ScoredDoc> plain_loop(const VectorStore& v, const float* q, std::size_t k) {
    std::vector<ScoredDoc> all(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        float s = 0;
        const float* row = v.row(i);
        for (std::size_t d = 0; d < v.dim(); ++d) {
            s += q[d] * row[d];
        }
        all[i] = {static_cast<ToolId>(i), s};
    }
    const auto top = std::min(k, all.size());
    std::partial_sort(
        all.begin(), all.begin() + static_cast<std::ptrdiff_t>(top), all.end(), ranks_before);
    all.resize(top);
    return all;
}

void set_recall(Row& row,
                const std::vector<std::vector<std::uint32_t>>& got,
                const std::vector<std::vector<std::uint32_t>>& truth) {
    double sum = 0;
    std::size_t same = 0;
    for (std::size_t q = 0; q < got.size(); ++q) {
        sum += overlap(got[q], truth[q]);
        same += got[q] == truth[q] ? 1U : 0U;
    }
    char buf[96];
    std::snprintf(buf,
                  sizeof buf,
                  "recall@10 %.3f, identical lists %.0f%%",
                  sum / static_cast<double>(got.size()),
                  100.0 * static_cast<double>(same) / static_cast<double>(got.size()));
    row.quality = buf;
}

/// Measures a scout DenseIndex and checks its answers against `truth`.
Row scout_row(const Config& cfg,
              const Corpus& c,
              const char* engine,
              const DenseOptions& opts,
              bool hnsw,
              const std::vector<std::vector<std::uint32_t>>& truth) {
    Row row = base_row(c, engine, true);
    const double t0 = thread_cpu_seconds();
    auto index = hnsw ? make_hnsw_index(c.vectors, opts) : make_flat_index(c.vectors, opts);
    row.build_s = thread_cpu_seconds() - t0;
    row.bytes = index->memory_bytes();
    std::vector<ScoredDoc> out;
    std::vector<std::vector<std::uint32_t>> got(c.queries.size());
    for (std::size_t q = 0; q < got.size(); ++q) {
        index->search(c.query_vector(q), cfg.k, nullptr, out);
        got[q] = ids_of(out);
    }
    set_recall(row, got, truth);
    measure(
        cfg,
        c.queries.size(),
        [&](std::size_t q) { index->search(c.query_vector(q), cfg.k, nullptr, out); },
        row);
    return row;
}

}  // namespace

std::vector<Row> run_dense(const Config& cfg, const Corpus& c) {
    std::vector<Row> rows;
    const std::size_t nq = c.queries.size();
    const std::size_t dim = c.dim();
    std::vector<std::vector<std::uint32_t>> truth(nq);
    {
        Row row = base_row(c, "plain loop fp32", false);
        for (std::size_t q = 0; q < nq; ++q) {
            truth[q] = ids_of(plain_loop(*c.vectors, c.query_vector(q), cfg.k));
        }
        row.bytes = c.vectors->bytes();
        row.quality = "exact reference";
        measure(
            cfg,
            nq,
            [&](std::size_t q) { (void)plain_loop(*c.vectors, c.query_vector(q), cfg.k); },
            row);
        rows.push_back(row);
    }
    DenseOptions fp32;
    rows.push_back(scout_row(cfg, c, "scout flat fp32", fp32, false, truth));
    DenseOptions int8;
    int8.int8_scan = true;
    rows.push_back(scout_row(cfg, c, "scout flat int8+rescore", int8, false, truth));

    if (cfg.peers && c.size() <= 200000) {
        Row row = base_row(c, "FAISS IndexFlatIP", false);
        omp_set_num_threads(1);
        const double t0 = thread_cpu_seconds();
        faiss::IndexFlatIP index(static_cast<FaissIdx>(dim));
        c.vectors->for_each_run([&](std::span<const float> run) {
            index.add(static_cast<FaissIdx>(run.size() / dim), run.data());
        });
        row.build_s = thread_cpu_seconds() - t0;
        row.bytes = c.vectors->bytes();
        std::vector<float> dist(cfg.k);
        std::vector<FaissIdx> ids(cfg.k);
        const auto k = static_cast<FaissIdx>(cfg.k);
        std::vector<std::vector<std::uint32_t>> got(nq);
        for (std::size_t q = 0; q < nq; ++q) {
            index.search(1, c.query_vector(q), k, dist.data(), ids.data());
            for (FaissIdx id : ids) {
                if (id >= 0) {
                    got[q].push_back(static_cast<std::uint32_t>(id));
                }
            }
        }
        set_recall(row, got, truth);
        measure(
            cfg,
            nq,
            [&](std::size_t q) { index.search(1, c.query_vector(q), k, dist.data(), ids.data()); },
            row);
        rows.push_back(row);
    }
    if (c.size() <= cfg.hnsw_max) {
        DenseOptions hnsw;
        rows.push_back(scout_row(cfg, c, "scout HNSW (hnswlib, M16 ef64)", hnsw, true, truth));

        if (!cfg.peers) {
            return rows;
        }
        Row row = base_row(c, "hnswlib 0.6 direct (M16 ef64)", false);
        const double t0 = thread_cpu_seconds();
        const HnswPeer graph(*c.vectors, 16, 64);
        row.build_s = thread_cpu_seconds() - t0;
        row.bytes = graph.memory_bytes();
        std::vector<ScoredDoc> out;
        std::vector<std::vector<std::uint32_t>> got(nq);
        for (std::size_t q = 0; q < nq; ++q) {
            graph.search(c.query_vector(q), cfg.k, out);
            got[q] = ids_of(out);
        }
        set_recall(row, got, truth);
        measure(
            cfg, nq, [&](std::size_t q) { graph.search(c.query_vector(q), cfg.k, out); }, row);
        rows.push_back(row);
    }
    return rows;
}

}  // namespace scout::bench

// hybrid_engines.cpp: the whole search, query embedding excluded (query vectors are passed in).
// scout: Catalog + Searcher::search(query, query_vector) on synthetic tool documents. Peer:
// Xapian BM25 + hnswlib (or FAISS flat when the graph is too big to build) fused with RRF.
#include <omp.h>
#include <unistd.h>
#include <xapian.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <random>
#include <unordered_map>

#include <faiss/IndexFlat.h>

#include "scout/catalog.hpp"
#include "scout/searcher.hpp"

#include "bench_common.hpp"
#include "fusion/fusion.hpp"
#include "hnsw_peer.hpp"

namespace scout::bench {
namespace {

using Clock = std::chrono::steady_clock;
using FaissIdx = faiss::Index::idx_t;  // FAISS 1.7.3 spelling

/// Stands in for a model: a random unit vector seeded by the text's hash, so documents get
/// sphere-uniform vectors like the dense section's. Records the time spent, which commit
/// timings exclude.
class RandomEmbedder final : public Embedder {
public:
    explicit RandomEmbedder(std::size_t dim) : dim_(dim) {}
    std::string model_id() const override { return "bench-random-" + std::to_string(dim_); }
    std::size_t dim() const override { return dim_; }
    Result<std::vector<float>> embed(std::span<const std::string> texts) override {
        const double t0 = thread_cpu_seconds();
        std::vector<float> out(texts.size() * dim_);
        for (std::size_t i = 0; i < texts.size(); ++i) {
            std::mt19937_64 rng(std::hash<std::string>{}(texts[i]));
            std::normal_distribution<float> g(0.0f, 1.0f);
            for (std::size_t d = 0; d < dim_; ++d) {
                out[i * dim_ + d] = g(rng);
            }
        }
        spent_ns_ += static_cast<std::uint64_t>((thread_cpu_seconds() - t0) * 1e9);
        return out;
    }
    double spent_s() const { return static_cast<double>(spent_ns_.load()) * 1e-9; }

private:
    std::size_t dim_;
    std::atomic<std::uint64_t> spent_ns_{0};
};

Row base_row(const Corpus& c, const std::string& engine, bool scout) {
    Row r;
    r.section = "hybrid";
    r.corpus = c.name;
    r.n = c.size();
    r.engine = engine;
    r.scout = scout;
    return r;
}

Row scout_hybrid(const Config& cfg,
                 const Corpus& c,
                 const CatalogSpec& spec,
                 const std::string& label,
                 const DenseOptions& dense) {
    Row row = base_row(c, "scout Searcher " + label, true);
    CatalogOptions opts;
    opts.dense = dense;
    auto embedder = std::make_shared<RandomEmbedder>(c.dim());
    auto catalog = Catalog::create(opts, embedder);
    if (!catalog || !catalog->upsert_servers(spec).ok()) {
        row.note = "catalog setup failed";
        return row;
    }
    const double t0 = thread_cpu_seconds();
    auto info = catalog->commit();
    const double total = thread_cpu_seconds() - t0;  // commit runs on this thread
    if (!info || !info->dense_ready) {
        row.note = "commit failed";
        return row;
    }
    row.build_s = total - embedder->spent_s();
    const Searcher searcher = catalog->searcher();
    const MemoryUsage mem = searcher.memory_usage();
    row.bytes = mem.total();
    const double n = static_cast<double>(c.size());
    char buf[200];
    std::snprintf(
        buf,
        sizeof buf,
        "%.0f tools/s build excl. embedding; B/tool: docs %.0f, names %.0f, bm25 %.0f, dense %.0f",
        n / row.build_s,
        static_cast<double>(mem.documents) / n,
        static_cast<double>(mem.names) / n,
        static_cast<double>(mem.bm25) / n,
        static_cast<double>(mem.dense) / n);
    row.note = buf;
    SearchOptions so;
    so.top_k = cfg.k;
    const std::size_t dim = c.dim();
    measure(
        cfg,
        c.queries.size(),
        [&](std::size_t q) {
            auto r = searcher.search(
                c.query_texts[q], std::span<const float>(c.query_vector(q), dim), so);
            if (!r) {
                std::fprintf(stderr, "search failed: %s\n", r.status().to_string().c_str());
            }
        },
        row);
    return row;
}

/// Xapian BM25 + hnswlib (or FAISS flat above hnsw_max), fused with scout's RRF (k = 60), each
/// branch fetching k * 3 as scout does.
Row peer_hybrid(const Config& cfg, const Corpus& c) {
    const bool graph = c.size() <= cfg.hnsw_max;
    Row row = base_row(c, graph ? "Xapian + hnswlib + RRF" : "Xapian + FAISS flat + RRF", false);
    const auto dir = std::filesystem::temp_directory_path() /
                     ("scout-bench-xapian-h-" + std::to_string(getpid()));
    const std::size_t fetch = cfg.k * 3;
    const std::size_t dim = c.dim();
    try {
        const double t0 = thread_cpu_seconds();
        build_xapian_index(c, dir);
        std::unique_ptr<HnswPeer> hnsw;
        std::unique_ptr<faiss::IndexFlatIP> flat;
        if (graph) {
            hnsw = std::make_unique<HnswPeer>(*c.vectors, 16, 64);
        } else {
            omp_set_num_threads(1);
            flat = std::make_unique<faiss::IndexFlatIP>(static_cast<FaissIdx>(dim));
            c.vectors->for_each_run([&](std::span<const float> run) {
                flat->add(static_cast<FaissIdx>(run.size() / dim), run.data());
            });
        }
        row.build_s = thread_cpu_seconds() - t0;
        Xapian::Database db(dir.string());
        Xapian::Enquire enquire(db);
        enquire.set_weighting_scheme(Xapian::BM25Weight(1.2, 0, 1, 0.75, 0.5));
        std::vector<Xapian::Query> queries;
        queries.reserve(c.queries.size());
        for (const auto& words : c.queries) {
            std::vector<std::string> terms;
            terms.reserve(words.size());
            for (std::uint32_t w : words) {
                terms.push_back(c.vocab[w]);
            }
            queries.emplace_back(Xapian::Query::OP_OR, terms.begin(), terms.end());
        }
        std::vector<float> dist(fetch);
        std::vector<FaissIdx> ids(fetch);
        measure(
            cfg,
            c.queries.size(),
            [&](std::size_t q) {
                std::vector<ScoredDoc> lists[2];
                enquire.set_query(queries[q]);
                const Xapian::MSet mset = enquire.get_mset(0, static_cast<Xapian::doccount>(fetch));
                for (auto it = mset.begin(); it != mset.end(); ++it) {
                    lists[0].push_back({*it - 1, static_cast<float>(it.get_weight())});
                }
                if (hnsw) {
                    hnsw->search(c.query_vector(q), fetch, lists[1]);
                } else {
                    flat->search(1,
                                 c.query_vector(q),
                                 static_cast<FaissIdx>(fetch),
                                 dist.data(),
                                 ids.data());
                    for (std::size_t i = 0; i < fetch; ++i) {
                        lists[1].push_back({static_cast<ToolId>(ids[i]), dist[i]});
                    }
                }
                (void)rrf_fuse(lists, 60.0, cfg.k);
            },
            row);
    } catch (const Xapian::Error& e) {
        row.note = "failed: " + e.get_msg();
    }
    std::filesystem::remove_all(dir);
    return row;
}

}  // namespace

std::vector<Row> run_hybrid(const Config& cfg, const Corpus& c) {
    std::vector<Row> rows;
    const CatalogSpec spec = catalog_spec(c);
    // The default first (the index DenseIndexKind::automatic picks at this size), then each
    // exact index named explicitly.
    const DenseOptions defaults;
    DenseOptions fp32;
    fp32.kind = DenseIndexKind::flat;
    DenseOptions int8 = fp32;
    int8.int8_scan = true;
    if (c.size() < defaults.hnsw_min_tools) {
        const bool int8_default = c.size() >= defaults.int8_min_tools;
        rows.push_back(
            scout_hybrid(cfg,
                         c,
                         spec,
                         int8_default ? "(default: flat int8+rescore)" : "(default: flat fp32)",
                         defaults));
        rows.push_back(scout_hybrid(cfg, c, spec, "(flat fp32)", fp32));
    } else if (c.size() <= cfg.hnsw_max) {
        rows.push_back(scout_hybrid(cfg, c, spec, "(default: HNSW)", defaults));
    }
    rows.push_back(scout_hybrid(cfg, c, spec, "(flat int8+rescore)", int8));
    if (cfg.peers) {
        rows.push_back(peer_hybrid(cfg, c));
    }
    return rows;
}

}  // namespace scout::bench

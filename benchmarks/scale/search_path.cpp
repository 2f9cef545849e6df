// search_path.cpp: the whole search a caller runs, from query text to returned hits (analysis,
// expansion signals, scope, fusion, hit materialization), next to the BM25 cores that get
// pre-analyzed word lists. The gap between the two rows is what surrounds the index.
#include <cstdio>

#include "scout/catalog.hpp"
#include "scout/embedder.hpp"
#include "scout/searcher.hpp"

#include "bench_common.hpp"

namespace scout::bench {
namespace {

Row path_row(const Corpus& c, const std::string& section, const std::string& engine) {
    Row r;
    r.section = section;
    r.corpus = c.name;
    r.n = c.size();
    r.engine = engine;
    r.scout = true;
    return r;
}

/// Every lexical signal of ExpansionOptions switched off: plain analyzed query words.
ExpansionOptions signals_off() {
    ExpansionOptions e;
    e.lexicon = false;
    e.weight = 0.0f;
    e.neighbours = 0;
    e.action_weight = 0.0f;
    e.action_boost = 0.0f;
    e.compound_weight = 0.0f;
    e.pair_weight = 0.0f;
    return e;
}

/// Searcher::search(query text) in BM25 mode on a catalog of `spec` built with `options`.
Row bm25_path(const Config& cfg,
              const Corpus& c,
              const CatalogSpec& spec,
              const CatalogOptions& options,
              const std::string& label) {
    Row row = path_row(c, "bm25", "scout Searcher::search, BM25 mode, " + label);
    auto catalog = Catalog::create(options);
    const double t0 = thread_cpu_seconds();
    if (!catalog || !catalog->upsert_servers(spec).ok() || !catalog->commit()) {
        row.note = "catalog setup failed";
        return row;
    }
    row.build_s = thread_cpu_seconds() - t0;
    const Searcher searcher = catalog->searcher();
    row.bytes = searcher.memory_usage().total();
    SearchOptions so;
    so.top_k = cfg.k;
    so.mode = Mode::bm25;
    std::size_t failed = 0;
    measure(
        cfg,
        c.query_texts.size(),
        [&](std::size_t q) {
            if (!searcher.search(c.query_texts[q], so)) {
                ++failed;
            }
        },
        row);
    row.note = "from query text to hits";
    if (failed != 0) {
        row.note += "; " + std::to_string(failed) + " searches failed";
    }
    return row;
}

/// The default hybrid with the shipped static model, the query vectors embedded beforehand:
/// what a gateway's search costs beyond its query embedding.
Row static_hybrid_path(const Config& cfg,
                       const Corpus& c,
                       const CatalogSpec& spec,
                       const DenseOptions& dense,
                       const std::string& label) {
    Row row = path_row(c, "path", "scout Searcher::search, hybrid, shipped static model, " + label);
    auto embedder = StaticEmbedder::load_default();
    if (!embedder) {
        row.note = "no static model: " + embedder.status().to_string();
        return row;
    }
    CatalogOptions options;
    options.dense = dense;
    auto catalog = Catalog::create(options, *embedder);
    const double t0 = thread_cpu_seconds();
    if (!catalog || !catalog->upsert_servers(spec).ok() || !catalog->commit()) {
        row.note = "catalog setup failed";
        return row;
    }
    row.build_s = thread_cpu_seconds() - t0;
    const Searcher searcher = catalog->searcher();
    row.bytes = searcher.memory_usage().total();
    const std::size_t dim = (*embedder)->dim();
    std::vector<float> vectors;
    for (const std::string& text : c.query_texts) {
        auto v = (*embedder)->embed(std::span<const std::string>(&text, 1));
        if (!v || v->size() != dim) {
            row.note = "query embedding failed";
            return row;
        }
        vectors.insert(vectors.end(), v->begin(), v->end());
    }
    SearchOptions so;
    so.top_k = cfg.k;
    std::size_t failed = 0;
    measure(
        cfg,
        c.query_texts.size(),
        [&](std::size_t q) {
            const std::span<const float> v(vectors.data() + q * dim, dim);
            if (!searcher.search(c.query_texts[q], v, so)) {
                ++failed;
            }
        },
        row);
    row.note = std::to_string(dim) + "-d static model; query embedding excluded";
    if (failed != 0) {
        row.note += "; " + std::to_string(failed) + " searches failed";
    }
    return row;
}

}  // namespace

std::vector<Row> run_search_path(const Config& cfg, const Corpus& c) {
    const CatalogSpec spec = catalog_spec(c);
    CatalogOptions plain;
    plain.expansion = signals_off();
    std::vector<Row> rows{bm25_path(cfg, c, spec, CatalogOptions{}, "default signals"),
                          bm25_path(cfg, c, spec, plain, "signals off")};
    if (c.spec) {
        DenseOptions fp32;
        fp32.int8_scan = false;
        DenseOptions int8;
        int8.int8_scan = true;
        rows.push_back(static_hybrid_path(cfg, c, spec, DenseOptions{}, "default dense index"));
        rows.push_back(static_hybrid_path(cfg, c, spec, fp32, "flat fp32"));
        rows.push_back(static_hybrid_path(cfg, c, spec, int8, "int8 + rescore"));
    }
    return rows;
}

}  // namespace scout::bench

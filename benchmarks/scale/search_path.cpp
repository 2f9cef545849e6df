// search_path.cpp: the whole search a caller runs, from query text to returned hits (analysis,
// expansion signals, scope, fusion, hit materialization), next to the BM25 cores that get
// pre-analyzed word lists. The gap between the two rows is what surrounds the index.
#include <cstdio>
#include <functional>
#include <optional>

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

/// Builds a catalog of `spec` and returns its searcher, with the build's CPU time and the
/// snapshot's bytes in `row`; nullopt (and a note) when the catalog cannot be built.
std::optional<Searcher> build_searcher(const CatalogSpec& spec,
                                       const CatalogOptions& options,
                                       std::shared_ptr<Embedder> embedder,
                                       Row& row) {
    auto catalog = Catalog::create(options, std::move(embedder));
    const double t0 = thread_cpu_seconds();
    if (!catalog || !catalog->upsert_servers(spec).ok() || !catalog->commit()) {
        row.note = "catalog setup failed";
        return std::nullopt;
    }
    row.build_s = thread_cpu_seconds() - t0;
    Searcher searcher = catalog->searcher();  // pins the snapshot: outlives the catalog
    row.bytes = searcher.memory_usage().total();
    return searcher;
}

/// Times `search(q)` over the corpus's query texts; the note counts failed searches.
void time_searches(const Config& cfg,
                   const Corpus& c,
                   const std::function<bool(std::size_t)>& search,
                   const std::string& note,
                   Row& row) {
    std::size_t failed = 0;
    measure(
        cfg,
        c.query_texts.size(),
        [&](std::size_t q) {
            if (!search(q)) {
                ++failed;
            }
        },
        row);
    row.note = note;
    if (failed != 0) {
        row.note += "; " + std::to_string(failed) + " searches failed";
    }
}

/// Searcher::search(query text) in BM25 mode on a catalog of `spec` built with `options`.
Row bm25_path(const Config& cfg,
              const Corpus& c,
              const CatalogSpec& spec,
              const CatalogOptions& options,
              const std::string& label) {
    Row row = path_row(c, "bm25", "scout Searcher::search, BM25 mode, " + label);
    const std::optional<Searcher> searcher = build_searcher(spec, options, nullptr, row);
    if (!searcher) {
        return row;
    }
    SearchOptions so;
    so.top_k = cfg.k;
    so.mode = Mode::bm25;
    time_searches(
        cfg,
        c,
        [&](std::size_t q) { return searcher->search(c.query_texts[q], so).ok(); },
        "from query text to hits",
        row);
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
    const std::optional<Searcher> searcher = build_searcher(spec, options, *embedder, row);
    if (!searcher) {
        return row;
    }
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
    time_searches(
        cfg,
        c,
        [&](std::size_t q) {
            const std::span<const float> v(vectors.data() + q * dim, dim);
            return searcher->search(c.query_texts[q], v, so).ok();
        },
        std::to_string(dim) + "-d static model; query embedding excluded",
        row);
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
        fp32.kind = DenseIndexKind::flat;
        DenseOptions int8 = fp32;
        int8.int8_scan = true;
        rows.push_back(static_hybrid_path(cfg, c, spec, DenseOptions{}, "default dense index"));
        rows.push_back(static_hybrid_path(cfg, c, spec, fp32, "flat fp32"));
        rows.push_back(static_hybrid_path(cfg, c, spec, int8, "int8 + rescore"));
    }
    return rows;
}

}  // namespace scout::bench

// parallel_catalogs.hpp: catalogs for comparing commits at different thread counts.
#pragma once

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/scout.hpp"

#include "support/test_catalogs.hpp"

namespace scout::testing {

/// A random catalog whose descriptions also carry words used by one tool only, so the
/// vocabulary is large and term ids depend on the order documents are interned.
inline scout::CatalogSpec catalog(std::size_t servers, std::size_t tools, std::uint32_t seed) {
    scout::CatalogSpec spec = scout::testing::random_catalog(servers, tools, seed);
    std::size_t unique = 0;
    for (scout::ServerSpec& s : spec.servers) {
        for (scout::ToolSpec& t : s.tools) {
            t.description += " w" + std::to_string(unique) + " w" + std::to_string(unique / 3);
            ++unique;
        }
    }
    return spec;
}

inline scout::Catalog build(const scout::CatalogSpec& spec,
                            std::size_t threads,
                            scout::DenseIndexKind kind,
                            std::vector<scout::CommitProgress>* progress = nullptr) {
    scout::CatalogOptions options;
    options.threads = threads;
    options.dense.kind = kind;
    options.embed_batch = 4;  // many batches, so they spread over the threads
    auto c = scout::Catalog::create(options, std::make_shared<scout::HashingEmbedder>(32));
    REQUIRE(c.ok());
    REQUIRE(c->upsert_servers(spec).ok());
    scout::ProgressCallback hear;
    if (progress != nullptr) {
        hear = [progress](const scout::CommitProgress& p) {
            progress->push_back({p.phase, p.done, p.total});
        };
    }
    auto info = c->commit(hear);
    REQUIRE(info.ok());
    REQUIRE(info->dense_ready);
    return std::move(*c);
}

/// Share of the exact top 10 (by id, or by an equal score: ties may rank either way) that
/// `graph` returns in dense mode, over 100 random queries from `seed` (each with the word
/// "w<i * stride>" of catalog(), so they reach the one-tool words too).
inline double dense_recall(const scout::Catalog& graph,
                           const scout::Catalog& exact,
                           std::uint32_t seed,
                           int stride) {
    std::mt19937 rng(seed);
    std::size_t found = 0;
    std::size_t wanted = 0;
    scout::SearchOptions opt;
    opt.mode = scout::Mode::dense;
    opt.top_k = 10;
    for (int i = 0; i < 100; ++i) {
        const std::string q = scout::testing::random_query(rng) + " w" + std::to_string(i * stride);
        auto want = exact.searcher().search(q, opt);
        auto got = graph.searcher().search(q, opt);
        REQUIRE((want.ok() && got.ok()));
        for (const scout::Hit& h : want->hits) {
            ++wanted;
            found += std::any_of(got->hits.begin(), got->hits.end(), [&](const scout::Hit& g) {
                return g.id == h.id || g.dense_score == h.dense_score;
            });
        }
    }
    return static_cast<double>(found) / static_cast<double>(wanted);
}

}  // namespace scout::testing

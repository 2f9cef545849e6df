// pipeline.cpp: see pipeline.hpp.
#include "search/pipeline.hpp"

#include <algorithm>

#include "scout/searcher.hpp"

#include "fusion/fusion.hpp"
#include "search/bm25_query.hpp"
#include "search/dense_branch.hpp"
#include "search/finish_hits.hpp"
#include "search/hits.hpp"
#include "search/rerank.hpp"
#include "search/scope.hpp"
#include "util/utf8.hpp"

namespace scout::detail {
namespace {

Status check_query(std::string_view query) {
    if (query.empty()) {
        return {Errc::invalid_argument, "query is empty"};
    }
    if (query.size() > Searcher::kMaxQueryBytes) {
        return {Errc::invalid_argument,
                "query is " + std::to_string(query.size()) + " bytes, over the limit of " +
                    std::to_string(Searcher::kMaxQueryBytes)};
    }
    if (!is_valid_utf8(query)) {
        return {Errc::invalid_argument, "query is not valid UTF-8"};
    }
    return {};
}

/// How many results a search ranks and how deep each branch fetches.
struct Depths {
    std::size_t user_k = 0;      ///< the caller's top_k, clamped
    std::size_t k = 0;           ///< results ranked (kMaxTopK with auto_k, cut afterwards)
    std::size_t fetch = 0;       ///< candidates per branch when both feed fusion
    std::size_t solo_fetch = 0;  ///< candidates of a branch that answers alone
};

Depths depths_of(const Snapshot& snap, const SearchOptions& options) {
    Depths d;
    d.user_k = std::clamp<std::size_t>(options.top_k, 1, SearchOptions::kMaxTopK);
    d.k = options.auto_k ? SearchOptions::kMaxTopK : d.user_k;
    const std::size_t factor =
        options.fusion ? options.fusion->fetch_factor : snap.options.fusion.fetch_factor;
    d.fetch = options.fetch_k != 0 ? options.fetch_k : d.user_k * std::max<std::size_t>(factor, 1);
    d.solo_fetch = std::max(d.k, d.fetch);
    return d;
}

SearchResult empty_catalog_result(const Snapshot& snap, const SearchOptions& options) {
    SearchResult empty;
    empty.mode = options.mode;
    empty.catalog_empty = true;
    empty.generation = snap.generation;
    return empty;
}

Result<SearchResult> search_unguarded(const Snapshot& snap,
                                      const std::shared_ptr<Embedder>& embedder,
                                      std::string_view query,
                                      const std::span<const float>* given_vector,
                                      const SearchOptions& options) {
    if (Status s = check_query(query); !s.ok()) {
        return s;
    }
    if (snap.tools.empty()) {
        return empty_catalog_result(snap, options);
    }
    const Depths d = depths_of(snap, options);
    const std::optional<Bitset> allowed = scope_filter(snap, options);
    const Bitset* filter = allowed ? &*allowed : nullptr;

    BranchLists lists;
    DenseOutcome dense;
    if (options.mode != Mode::bm25) {
        const DenseQuery dq{query, given_vector, options.embed_timeout};
        auto outcome = run_dense_branch(snap,
                                        embedder,
                                        dq,
                                        options.mode == Mode::dense ? d.solo_fetch : d.fetch,
                                        filter,
                                        lists.dense);
        if (!outcome) {
            return outcome.status();
        }
        dense = std::move(outcome.value());
        lists.ran_dense = dense.ran();
    }
    if (options.mode != Mode::dense || !lists.ran_dense) {
        run_bm25_branch(snap, query, lists.ran_dense ? d.fetch : d.solo_fetch, filter, lists.bm25);
        lists.ran_bm25 = true;
    }
    SearchResult result;
    result.generation = snap.generation;
    result.mode = lists.ran_bm25 && lists.ran_dense ? Mode::hybrid
                                                    : (lists.ran_dense ? Mode::dense : Mode::bm25);
    const bool rerank = options.reranker != nullptr || options.rerank_candidates;
    const std::size_t model_depth = options.reranker != nullptr ? options.reranker->depth : 0;
    std::size_t ranked = d.k;
    if (rerank) {
        // Re-ranking reads the fused candidates a model of that depth re-orders (0: every one;
        // each branch fetched at most solo_fetch), not only the first k.
        const std::size_t every = std::max(d.k, 2 * d.solo_fetch);
        const auto reach = [every](std::size_t depth) {
            return depth == 0 ? every : std::min(depth, every);
        };
        std::size_t need = 0;
        if (options.rerank_candidates) {
            need = reach(options.rerank_candidates_depth);
        }
        if (options.reranker != nullptr) {
            need = std::max(need, reach(model_depth));
        }
        ranked = std::max(d.k, need);
    }
    result.hits = ranked_hits(snap, lists, ranked, options.fusion.value_or(snap.options.fusion));
    if (rerank) {
        // Late interaction looks up every candidate word's vector: only when it is asked for.
        const auto weighs = [&options](RerankFeature f) {
            return options.reranker != nullptr &&
                   options.reranker->weights[static_cast<std::size_t>(f)] != 0.0;
        };
        const bool late = options.rerank_candidates || weighs(RerankFeature::maxsim) ||
                          weighs(RerankFeature::maxsim_relative);
        const std::shared_ptr<const WordVectors> word_vectors =
            late && embedder != nullptr ? embedder->word_vectors() : nullptr;
        // Features are relative to the candidates they are computed over: a model of depth N
        // reads them over the first N, as its training rows were written.
        const auto features_over = [&](std::size_t depth) {
            const std::size_t n =
                depth == 0 ? result.hits.size() : std::min(depth, result.hits.size());
            return rerank_features(
                snap, query, std::span<const Hit>(result.hits).first(n), word_vectors.get());
        };
        if (options.rerank_candidates) {
            const std::vector<RerankFeatures> rows = features_over(options.rerank_candidates_depth);
            result.candidates =
                rerank_candidates(std::span<const Hit>(result.hits).first(rows.size()), rows);
        }
        if (options.reranker != nullptr) {
            rerank_hits(*options.reranker, features_over(model_depth), result.hits);
        }
        result.hits.resize(std::min(result.hits.size(), d.k));
    }
    finish_hits(snap, query, options, d.k, filter, result.hits);
    result.degraded = !dense.degraded_reason.empty();
    result.degraded_reason = std::move(dense.degraded_reason);
    result.notice = std::move(dense.notice);
    if (result.hits.empty() && bm25_query(snap, query, ToolAction::none).empty()) {
        result.notice = "the query holds no searchable words";
    }
    return result;
}

}  // namespace

Result<SearchResult> run_search(const Snapshot& snap,
                                const std::shared_ptr<Embedder>& embedder,
                                std::string_view query,
                                const std::span<const float>* given_vector,
                                const SearchOptions& options) noexcept {
    try {
        return search_unguarded(snap, embedder, query, given_vector, options);
    } catch (const std::bad_alloc&) {
        return Status{Errc::internal, "out of memory during search"};
    } catch (const std::exception& e) {
        return Status{Errc::internal, std::string("search failed: ") + e.what()};
    } catch (...) {
        return Status{Errc::internal, "search failed with a non-standard exception"};
    }
}

}  // namespace scout::detail

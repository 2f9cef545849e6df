// multi_query.cpp: multi-query search. Each phrasing is searched to the full result depth
// (kMaxTopK) so a tool that one phrasing ranks low can still be lifted by the others; the lists
// are fused by calibrated score (phrasing_fusion.hpp), so one phrasing's strong match is not
// beaten by a tool that several phrasings match weakly, as it would be by ranks alone (RRF).
#include "search/multi_query.hpp"

#include <algorithm>
#include <exception>
#include <map>

#include "fusion/fusion.hpp"
#include "search/finish_hits.hpp"
#include "search/phrasing_fusion.hpp"
#include "search/pipeline.hpp"
#include "search/scope.hpp"

namespace scout::detail {
namespace {

Result<SearchResult> fuse_variants(const Snapshot& snap,
                                   const std::shared_ptr<Embedder>& embedder,
                                   std::string_view query,
                                   const std::span<const float>* given_vector,
                                   const SearchOptions& options) {
    if (options.alternatives.size() > SearchOptions::kMaxAlternatives) {
        return Status{Errc::invalid_argument,
                      "at most " + std::to_string(SearchOptions::kMaxAlternatives) +
                          " alternatives are accepted"};
    }
    SearchOptions each = options;
    each.alternatives.clear();
    each.top_k = SearchOptions::kMaxTopK;
    each.auto_k = false;
    each.exact_name_first = false;  // applied once, to the fused list, for the query itself

    std::vector<SearchResult> results;
    results.reserve(options.alternatives.size() + 1);
    for (std::size_t i = 0; i <= options.alternatives.size(); ++i) {
        const bool own = i == 0;
        auto r = run_search(snap,
                            embedder,
                            own ? query : std::string_view(options.alternatives[i - 1]),
                            own ? given_vector : nullptr,
                            each);
        if (!r) {
            if (own) {
                return r.status();
            }
            return Status{r.status().code(),
                          "alternatives[" + std::to_string(i - 1) + "]: " + r.status().message()};
        }
        results.push_back(std::move(r.value()));
    }
    SearchResult out = results.front();
    out.hits.clear();
    if (out.catalog_empty) {
        return out;
    }

    std::vector<std::vector<ScoredDoc>> lists;
    std::vector<std::map<ToolId, const Hit*>> hit_of(results.size());
    for (std::size_t p = 0; p < results.size(); ++p) {
        const SearchResult& r = results[p];
        out.degraded = out.degraded || r.degraded;
        if (out.degraded_reason.empty()) {
            out.degraded_reason = r.degraded_reason;
        }
        std::vector<ScoredDoc> list;
        for (const Hit& h : r.hits) {
            list.push_back(ScoredDoc{h.id, h.score});
            hit_of[p].emplace(h.id, &h);
        }
        lists.push_back(std::move(list));
    }
    for (const PhrasingHit& fused :
         fuse_phrasings(lists, kPhrasingAgreement, SearchOptions::kMaxTopK)) {
        Hit h = *hit_of[fused.best_phrasing].at(fused.id);  // branch ranks of the best phrasing
        h.score = static_cast<float>(fused.score);
        h.best_phrasing = fused.best_phrasing;
        out.hits.push_back(std::move(h));
    }

    const std::size_t user_k = std::clamp<std::size_t>(options.top_k, 1, SearchOptions::kMaxTopK);
    const std::optional<Bitset> filter =
        options.exact_name_first ? scope_filter(snap, options) : std::nullopt;
    finish_hits(snap,
                query,
                options,
                options.auto_k ? SearchOptions::kMaxTopK : user_k,
                filter ? &*filter : nullptr,
                out.hits);
    return out;
}

}  // namespace

Result<SearchResult> run_multi_query(const Snapshot& snap,
                                     const std::shared_ptr<Embedder>& embedder,
                                     std::string_view query,
                                     const std::span<const float>* given_vector,
                                     const SearchOptions& options) noexcept {
    try {
        return fuse_variants(snap, embedder, query, given_vector, options);
    } catch (const std::exception& e) {
        return Status{Errc::internal, std::string("multi-query search failed: ") + e.what()};
    } catch (...) {
        return Status{Errc::internal, "multi-query search failed"};
    }
}

}  // namespace scout::detail

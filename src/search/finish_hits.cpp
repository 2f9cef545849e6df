// finish_hits.cpp: see finish_hits.hpp.
#include "search/finish_hits.hpp"

#include <algorithm>

#include "fusion/fusion.hpp"
#include "search/exact_names.hpp"

namespace scout::detail {

void finish_hits(const Snapshot& snap,
                 std::string_view query,
                 const SearchOptions& options,
                 std::size_t k,
                 const Bitset* filter,
                 std::vector<Hit>& hits) {
    std::size_t exact_count = 0;
    if (options.exact_name_first) {
        const std::vector<ToolId> exact = exact_name_matches(snap, query, filter);
        if (!exact.empty()) {
            put_exact_first(snap, exact, k, hits);
            exact_count = std::min(exact.size(), k);
        }
    }
    std::size_t keep = k;
    if (options.auto_k) {
        keep = exact_count;
        if (keep == 0) {
            std::vector<float> scores;
            scores.reserve(hits.size());
            for (const Hit& h : hits) {
                scores.push_back(h.score);
            }
            keep = auto_k_cut(scores, std::clamp(options.auto_k_ratio, 1e-6, 1.0));
        }
    }
    hits.resize(std::min(keep, hits.size()));
}

}  // namespace scout::detail

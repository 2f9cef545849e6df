// rerank_candidates.cpp: see rerank_candidates.hpp.
#include "cli/rerank_candidates.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "scout/reranker.hpp"

namespace scout::cli {

Status write_rerank_candidates(const std::filesystem::path& path,
                               const Searcher& searcher,
                               const std::vector<eval::LabelledQuery>& queries,
                               SearchOptions options,
                               std::size_t fetch_factor) {
    options.mode = Mode::hybrid;
    options.rerank_candidates = true;
    options.auto_k = false;
    const std::size_t k = std::clamp<std::size_t>(options.top_k, 1, SearchOptions::kMaxTopK);
    options.fetch_k =
        options.fetch_k != 0 ? options.fetch_k : k * std::max<std::size_t>(fetch_factor, 1);
    std::string out = "query relevant";
    for (std::size_t f = 0; f < kRerankFeatureCount; ++f) {
        out += ' ';
        out += rerank_feature_name(static_cast<RerankFeature>(f));
    }
    out += "\n";
    std::size_t index = 0;
    char number[32];
    for (const eval::LabelledQuery& q : queries) {
        if (q.relevant.empty()) {
            continue;
        }
        const std::size_t this_query = index++;
        auto result = searcher.search(q.query, options);
        if (!result) {
            continue;
        }
        for (const RerankCandidate& c : result->candidates) {
            const bool relevant =
                std::find(q.relevant.begin(), q.relevant.end(), c.key) != q.relevant.end();
            std::snprintf(number, sizeof number, "%zu %d", this_query, relevant ? 1 : 0);
            out += number;
            for (const float v : c.features) {
                std::snprintf(number, sizeof number, " %.9g", static_cast<double>(v));
                out += number;
            }
            out += "\n";
        }
    }
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << out;
    file.close();
    if (!file) {
        return {Errc::io_error, "cannot write " + path.string()};
    }
    return {};
}

}  // namespace scout::cli

// hits.cpp: see hits.hpp. Only the k returned candidates are materialized (strings copied).
#include "search/hits.hpp"

#include "fusion/fusion.hpp"
#include "util/thread_scratch.hpp"

namespace scout::detail {

namespace {

/// Copies the tool's record into `hit`, in place in the result: no Hit is moved afterwards.
/// (Each string is built at its size and moved in; assign() costs more instructions.)
void copy_record(const Snapshot& snap, ToolId id, Hit& hit) {
    const ToolRecord& t = snap.tools[id];
    hit.id = id;
    hit.name = std::string(t.enhanced_name);
    hit.server = std::string(t.server);
    hit.tool = std::string(t.tool);
    hit.title = std::string(t.title);
    hit.description = std::string(t.description);
    hit.input_schema = std::string(t.input_schema);
    hit.annotations = std::string(t.annotations);
}

}  // namespace

Hit make_hit(const Snapshot& snap, ToolId id) {
    Hit hit;
    copy_record(snap, id, hit);
    return hit;
}

namespace {

/// The rows of the last fusion on this thread, kept so that fusing allocates nothing.
struct FusedRows {
    std::vector<FusedRow> rows;
};

std::vector<Hit> fused_hits(const Snapshot& snap,
                            BranchLists& b,
                            std::size_t k,
                            const FusionOptions& fusion) {
    const std::vector<ScoredDoc> lists[2] = {std::move(b.bm25), std::move(b.dense)};
    const double weights[2] = {fusion.bm25_weight, fusion.dense_weight};
    std::vector<FusedRow>& rows = thread_scratch<FusedRows>().rows;
    fuse_rows(lists, weights, fusion, k, rows);
    std::vector<Hit> hits;
    hits.reserve(rows.size());
    for (const FusedRow& f : rows) {
        Hit& hit = hits.emplace_back();
        copy_record(snap, f.id, hit);
        hit.score = static_cast<float>(f.score);
        hit.bm25_rank = f.ranks[0];
        hit.dense_rank = f.ranks[1];
        hit.bm25_score = f.scores[0];
        hit.dense_score = f.scores[1];
    }
    return hits;
}

std::vector<Hit> single_branch_hits(const Snapshot& snap, const BranchLists& b, std::size_t k) {
    const std::vector<ScoredDoc>& list = b.ran_bm25 ? b.bm25 : b.dense;
    std::vector<Hit> hits;
    hits.reserve(std::min(k, list.size()));
    for (std::size_t r = 0; r < list.size() && r < k; ++r) {
        Hit& hit = hits.emplace_back();
        copy_record(snap, list[r].id, hit);
        hit.score = list[r].score;
        const auto rank = static_cast<std::uint32_t>(r + 1);
        if (b.ran_bm25) {
            hit.bm25_rank = rank;
            hit.bm25_score = list[r].score;
        } else {
            hit.dense_rank = rank;
            hit.dense_score = list[r].score;
        }
    }
    return hits;
}

}  // namespace

std::vector<Hit> ranked_hits(const Snapshot& snap,
                             BranchLists& lists,
                             std::size_t k,
                             const FusionOptions& fusion) {
    if (lists.ran_bm25 && lists.ran_dense) {
        return fused_hits(snap, lists, k, fusion);
    }
    return single_branch_hits(snap, lists, k);
}

}  // namespace scout::detail

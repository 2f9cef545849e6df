// phrasing_fusion.hpp: fuses the ranked lists of several phrasings of one query by calibrated
// score. Each list is put on its own scale (score / the list's top score), a tool takes its best
// calibrated score over the phrasings plus a small bonus for the others' agreement, and keeps
// which phrasing gave that best score.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "util/topk.hpp"

namespace scout::detail {

/// Weight of the other phrasings' mean calibrated score added to a tool's best one. Small, so
/// agreement breaks ties between phrasings' top tools and reorders close calls, but weak matches
/// in every phrasing never outweigh one phrasing's top tool: a tool at x of the top in every
/// phrasing scores x * (1 + kPhrasingAgreement), which is under 1 while x < 0.83.
inline constexpr double kPhrasingAgreement = 0.2;

/// One fused tool: its fused score and the phrasing (index into the lists) of its best score.
struct PhrasingHit {
    ToolId id = 0;
    double score = 0;
    std::uint32_t best_phrasing = 0;
    std::uint32_t best_rank = 0;  ///< 1-based rank in that phrasing's list
};

/// lists[p] is phrasing p's ranked list (best first). A list whose top score is not
/// positive and finite gives its tools calibrated score 0. Returns at most `top_k` tools by
/// score desc, then best rank asc, then best phrasing asc, then id asc (deterministic).
[[nodiscard]] std::vector<PhrasingHit> fuse_phrasings(std::span<const std::vector<ScoredDoc>> lists,
                                                      double agreement,
                                                      std::size_t top_k);

}  // namespace scout::detail

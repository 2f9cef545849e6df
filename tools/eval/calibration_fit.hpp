// calibration_fit.hpp: fits the fusion settings to one embedder on labelled training sets, and
// reports leave-one-source-out validation of the fit.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "scout/options.hpp"
#include "scout/searcher.hpp"

#include "eval/evaluation.hpp"

namespace scout::eval {

/// One labelled training source: a catalog indexed with the embedder being calibrated, and its
/// queries (already capped).
struct CalibrationSource {
    std::string name;
    Searcher searcher;
    std::vector<LabelledQuery> queries;
};

/// Quality of one fusion setting on one source.
struct SourceScore {
    double hit_at_1 = 0;
    double hit_at_5 = 0;
    double mrr = 0;
};

/// A held-out source: fitted on the others, scored on it.
struct HeldOutRow {
    std::string source;
    SourceScore bm25;        ///< BM25 alone
    SourceScore default_;    ///< hybrid with FusionOptions{}
    SourceScore calibrated;  ///< hybrid with the setting fitted on the other sources
    FusionOptions fitted;
};

struct FitOptions {
    /// A move away from the current setting is taken only when it raises the mean MRR over the
    /// sources by more than this: ties and noise keep the setting closer to BM25 alone.
    double min_gain = 0.002;
    /// Never worse than BM25: a setting is taken only when its Hit@1, Hit@5 and MRR, each
    /// averaged over the sources fitted on, are at most this far below BM25 alone's. (Per source
    /// would be stricter than the data allow: one source whose labels the dense branch cannot
    /// read, like seal_tools' repeated queries with one gold tool per row, would veto it.)
    double bm25_tolerance = 0.0;
    /// Coordinate-search passes over the gated settings.
    std::size_t passes = 2;
    /// Called with a line of progress ("fold 2/3: ...") when set.
    std::function<void(const std::string&)> progress;
};

struct FitResult {
    FusionOptions fusion;               ///< fitted on every source
    std::vector<SourceScore> bm25;      ///< per source, in the order given
    std::vector<SourceScore> defaults;  ///< per source, hybrid with FusionOptions{}
    std::vector<SourceScore> fitted;    ///< per source, hybrid with `fusion`
    std::vector<HeldOutRow> held_out;   ///< one per source when there are at least two
    std::size_t settings_tried = 0;     ///< distinct fusion settings evaluated
};

/// Coordinate search maximising the mean MRR over `sources`: it starts from the gated default
/// with no dense weight (BM25's order), then moves one setting at a time (gated dense weight,
/// overlap power, confidence power, disagreement gate, relative BM25) over a small grid, and
/// finally compares the best gated setting with RRF and the anchored blend. Only settings within
/// bm25_tolerance of BM25 alone on the sources' mean Hit@1, Hit@5 and MRR are taken. With two or
/// more sources it also fits once per left-out source and scores the left-out one.
[[nodiscard]] FitResult fit_fusion(const std::vector<CalibrationSource>& sources,
                                   const FitOptions& options = {});

/// One line describing a fusion setting ("gated dense=0.5 overlap=2 ..."), for reports.
[[nodiscard]] std::string describe_fusion(const FusionOptions& fusion);

}  // namespace scout::eval

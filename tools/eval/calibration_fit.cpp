// calibration_fit.cpp: see calibration_fit.hpp.
#include "eval/calibration_fit.hpp"

#include <map>
#include <numeric>
#include <sstream>

namespace scout::eval {
namespace {

/// Every fusion setting as text: the memo's key (two settings that print alike rank alike).
std::string setting_key(const FusionOptions& fusion) {
    CatalogOptions options;
    options.fusion = fusion;
    std::string key;
    for (const OptionField& field : option_fields()) {
        if (field.key.substr(0, 7) == "fusion.") {
            key += option_text(options, field);
            key += ' ';
        }
    }
    return key;
}

SourceScore score_of(const Report& report) {
    return {report.hit_at_1, report.hit_at_5, report.mrr};
}

/// Scores settings on sources, each (setting, source) pair once.
class Scorer {
public:
    explicit Scorer(const std::vector<CalibrationSource>& sources) : sources_(sources) {}

    SourceScore hybrid(const FusionOptions& fusion, std::size_t source) {
        const std::string key = setting_key(fusion);
        auto& per_source = memo_[key];
        if (per_source.empty()) {
            per_source.resize(sources_.size());
        }
        if (!per_source[source]) {
            Options eo;
            eo.search.mode = Mode::hybrid;
            eo.search.fusion = fusion;
            eo.fetch_factor = fusion.fetch_factor;
            per_source[source] =
                score_of(evaluate(sources_[source].searcher, sources_[source].queries, eo));
        }
        return *per_source[source];
    }

    SourceScore bm25(std::size_t source) {
        if (bm25_.empty()) {
            bm25_.resize(sources_.size());
        }
        if (!bm25_[source]) {
            Options eo;
            eo.search.mode = Mode::bm25;
            bm25_[source] =
                score_of(evaluate(sources_[source].searcher, sources_[source].queries, eo));
        }
        return *bm25_[source];
    }

    /// Whether `fusion`'s Hit@1, Hit@5 and MRR, each averaged over the listed sources, are at
    /// most `tolerance` below BM25 alone's.
    bool never_worse(const FusionOptions& fusion,
                     const std::vector<std::size_t>& which,
                     double tolerance) {
        SourceScore h;  // summed differences from BM25
        for (std::size_t s : which) {
            const SourceScore hs = hybrid(fusion, s);
            const SourceScore bs = bm25(s);
            h.hit_at_1 += hs.hit_at_1 - bs.hit_at_1;
            h.hit_at_5 += hs.hit_at_5 - bs.hit_at_5;
            h.mrr += hs.mrr - bs.mrr;
        }
        const double n = which.empty() ? 1.0 : static_cast<double>(which.size());
        return h.hit_at_1 / n >= -tolerance && h.hit_at_5 / n >= -tolerance &&
               h.mrr / n >= -tolerance;
    }

    /// Mean MRR of `fusion` over the sources listed.
    double objective(const FusionOptions& fusion, const std::vector<std::size_t>& which) {
        double sum = 0;
        for (std::size_t s : which) {
            sum += hybrid(fusion, s).mrr;
        }
        return which.empty() ? 0.0 : sum / static_cast<double>(which.size());
    }

    [[nodiscard]] std::size_t settings() const { return memo_.size(); }

private:
    const std::vector<CalibrationSource>& sources_;
    std::map<std::string, std::vector<std::optional<SourceScore>>> memo_;
    std::vector<std::optional<SourceScore>> bm25_;
};

/// One coordinate of the search: a grid of values for one setting.
struct Coordinate {
    std::vector<double> values;
    std::function<void(FusionOptions&, double)> set;
};

std::vector<Coordinate> gated_coordinates() {
    return {
        {{0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3},
         [](FusionOptions& f, double v) { f.gated_dense_weight = v; }},
        {{0, 0.5, 1, 2, 3}, [](FusionOptions& f, double v) { f.overlap_power = v; }},
        {{0, 0.5, 1, 2}, [](FusionOptions& f, double v) { f.gated_confidence_power = v; }},
        {{0, 0.25, 0.5, 1}, [](FusionOptions& f, double v) { f.disagreement_gate = v; }},
        {{0, 1}, [](FusionOptions& f, double v) { f.gated_relative_bm25 = v != 0; }},
    };
}

/// The other methods the gated optimum is compared with.
std::vector<FusionOptions> other_methods() {
    std::vector<FusionOptions> out;
    FusionOptions rrf;
    rrf.method = FusionMethod::rrf;
    out.push_back(rrf);
    for (double w : {0.2, 0.5, 1.0, 2.0}) {
        FusionOptions anchored;
        anchored.method = FusionMethod::anchored;
        anchored.dense_weight = w;
        out.push_back(anchored);
    }
    return out;
}

FusionOptions fit_on(Scorer& scorer,
                     const std::vector<std::size_t>& which,
                     const FitOptions& options) {
    FusionOptions best;
    best.gated_dense_weight = 0;  // BM25's order: dense evidence has to earn its weight
    double best_score = scorer.objective(best, which);
    for (std::size_t pass = 0; pass < options.passes; ++pass) {
        bool moved = false;
        for (const Coordinate& c : gated_coordinates()) {
            for (double v : c.values) {
                FusionOptions candidate = best;
                c.set(candidate, v);
                const double score = scorer.objective(candidate, which);
                if (score > best_score + options.min_gain &&
                    scorer.never_worse(candidate, which, options.bm25_tolerance)) {
                    best = candidate;
                    best_score = score;
                    moved = true;
                }
            }
        }
        if (!moved) {
            break;
        }
    }
    for (const FusionOptions& candidate : other_methods()) {
        const double score = scorer.objective(candidate, which);
        if (score > best_score + options.min_gain &&
            scorer.never_worse(candidate, which, options.bm25_tolerance)) {
            best = candidate;
            best_score = score;
        }
    }
    return best;
}

}  // namespace

FitResult fit_fusion(const std::vector<CalibrationSource>& sources, const FitOptions& options) {
    Scorer scorer(sources);
    FitResult out;
    const auto say = [&](const std::string& line) {
        if (options.progress) {
            options.progress(line);
        }
    };
    std::vector<std::size_t> all(sources.size());
    std::iota(all.begin(), all.end(), std::size_t{0});
    if (sources.size() >= 2) {
        for (std::size_t held = 0; held < sources.size(); ++held) {
            say("fold " + std::to_string(held + 1) + "/" + std::to_string(sources.size()) +
                ": fitting without " + sources[held].name);
            std::vector<std::size_t> train;
            for (std::size_t s : all) {
                if (s != held) {
                    train.push_back(s);
                }
            }
            HeldOutRow row;
            row.source = sources[held].name;
            row.fitted = fit_on(scorer, train, options);
            row.calibrated = scorer.hybrid(row.fitted, held);
            row.default_ = scorer.hybrid(FusionOptions{}, held);
            row.bm25 = scorer.bm25(held);
            out.held_out.push_back(row);
        }
    }
    say("fitting on every source");
    out.fusion = fit_on(scorer, all, options);
    for (std::size_t s : all) {
        out.bm25.push_back(scorer.bm25(s));
        out.defaults.push_back(scorer.hybrid(FusionOptions{}, s));
        out.fitted.push_back(scorer.hybrid(out.fusion, s));
    }
    out.settings_tried = scorer.settings();
    return out;
}

std::string describe_fusion(const FusionOptions& f) {
    std::ostringstream out;
    out << fusion_method_name(f.method);
    switch (f.method) {
        case FusionMethod::gated:
            out << " dense=" << f.gated_dense_weight << " overlap=" << f.overlap_power
                << " confidence=" << f.gated_confidence_power << " disagree=" << f.disagreement_gate
                << " relative=" << (f.gated_relative_bm25 ? 1 : 0);
            break;
        case FusionMethod::anchored:
            out << " dense=" << f.dense_weight << " confidence=" << f.dense_confidence_power;
            break;
        case FusionMethod::rrf:
            out << " k=" << f.rrf_k;
            break;
        case FusionMethod::weighted_rrf:
        case FusionMethod::score_blend:
            out << " bm25=" << f.bm25_weight << " dense=" << f.dense_weight;
            break;
    }
    return out.str();
}

}  // namespace scout::eval

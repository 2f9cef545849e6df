// index_options.cpp: see index_options.hpp.
#include "cli/index_options.hpp"

#include <cstdlib>
#include <span>
#include <sstream>
#include <string>
#include <utility>

namespace scout::cli {
namespace {

constexpr unsigned long long kMaxThreads = 1024;

Status set_fusion(CatalogOptions& options, const std::string& spec) {
    std::stringstream items(spec);
    std::string item;
    bool first = true;
    while (std::getline(items, item, ',')) {
        if (first) {
            first = false;
            if (auto method = parse_fusion_method(item)) {
                options.fusion.method = *method;
            } else if (item != "all") {  // all: eval compares every method; elsewhere the default
                return {Errc::invalid_argument, "--fusion: unknown method '" + item + "'"};
            }
            continue;
        }
        const auto eq = item.find('=');
        const std::string key = item.substr(0, eq);
        char* end = nullptr;
        const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
        const double v = std::strtod(value.c_str(), &end);
        if (value.empty() || end != value.c_str() + value.size() || !(v >= 0.0)) {
            return {Errc::invalid_argument,
                    "--fusion: '" + item + "' needs key=non-negative number"};
        }
        if (key == "k") {
            options.fusion.rrf_k = v;
        } else if (key == "bm25") {
            options.fusion.bm25_weight = v;
        } else if (key == "dense") {
            options.fusion.dense_weight = v;
        } else if (key == "confidence") {
            options.fusion.dense_confidence_power = v;
        } else if (key == "fetch" && v >= 1) {
            options.fusion.fetch_factor = static_cast<std::size_t>(v);
        } else if (key == "gated_dense") {
            options.fusion.gated_dense_weight = v;
        } else if (key == "depth" && v >= 1) {
            options.fusion.agreement_depth = static_cast<std::size_t>(v);
        } else if (key == "disagree") {
            options.fusion.disagreement_gate = v;
        } else if (key == "gated_confidence") {
            options.fusion.gated_confidence_power = v;
        } else if (key == "overlap") {
            options.fusion.overlap_power = v;
        } else if (key == "relative" && (v == 0.0 || v == 1.0)) {
            options.fusion.gated_relative_bm25 = v == 1.0;
        } else {
            return {Errc::invalid_argument, "--fusion: unknown key '" + key + "'"};
        }
    }
    return {};
}

/// Reads "a[,b[,c]]" into the first values (the rest keep theirs): at least one and at most
/// values.size() numbers, each in [0, max].
bool parse_numbers(const std::string& spec, std::span<float> values, float max) {
    std::stringstream items(spec);
    std::string item;
    std::size_t i = 0;
    while (std::getline(items, item, ',')) {
        char* end = nullptr;
        const float v = std::strtof(item.c_str(), &end);
        if (i == values.size() || item.empty() || end != item.c_str() + item.size() ||
            !(v >= 0.0f) || !(v <= max)) {
            return false;
        }
        values[i++] = v;
    }
    return i > 0;
}

Status set_bm25_value(CatalogOptions& options, const std::string& key, float value) {
    Bm25Options& b = options.bm25;
    if (key == "k1") {
        b.k1 = value;
    } else if (key == "b") {
        b.b = value;
    } else if (key == "name") {
        b.weights.name = value;
    } else if (key == "server") {
        b.weights.server = value;
    } else if (key == "server_description") {
        b.weights.server_description = value;
    } else if (key == "description") {
        b.weights.description = value;
    } else if (key == "parameters") {
        b.weights.parameters = value;
    } else if (key == "action") {
        b.weights.action = value;
    } else if (key == "word_pairs") {
        b.weights.word_pairs = value;
    } else {
        return {Errc::invalid_argument, "--bm25: unknown key '" + key + "'"};
    }
    return {};
}

}  // namespace

OptionGroup index_option_group() {
    const CatalogOptions d;
    const FieldWeights& w = d.bm25.weights;
    const ExpansionOptions& e = d.expansion;
    const FusionOptions& f = d.fusion;
    auto num = [](auto v) {  // float and double settings alike, printed as they are
        std::ostringstream out;
        out << v;
        return out.str();
    };
    const std::string stem = !d.analyzer.stem ? "off" : d.analyzer.keep_surface ? "both" : "on";
    return {"index settings (stored in index files; give them to `scout index`, not with --index)",
            {{"bm25",
              "K=V,...",
              "k1=" + num(d.bm25.k1) + ",b=" + num(d.bm25.b) + ",name=" + num(w.name) +
                  ",server=" + num(w.server) + ",server_description=" + num(w.server_description) +
                  ",description=" + num(w.description) + ",parameters=" + num(w.parameters) +
                  ",action=" + num(w.action) + ",word_pairs=" + num(w.word_pairs),
              "BM25 parameters and field weights, any subset"},
             {"stem",
              "on|off|both",
              stem,
              "Porter stemming of words; both also keeps the unstemmed words"},
             {"fusion",
              "METHOD[,K=V...]",
              std::string(fusion_method_name(f.method)) + ",k=" + num(f.rrf_k) +
                  ",bm25=" + num(f.bm25_weight) + ",dense=" + num(f.dense_weight) + ",confidence=" +
                  num(f.dense_confidence_power) + ",fetch=" + std::to_string(f.fetch_factor) +
                  ",gated_dense=" + num(f.gated_dense_weight) + ",depth=" +
                  std::to_string(f.agreement_depth) + ",disagree=" + num(f.disagreement_gate) +
                  ",gated_confidence=" + num(f.gated_confidence_power) + ",overlap=" +
                  num(f.overlap_power) + ",relative=" + (f.gated_relative_bm25 ? "1" : "0"),
              "how the BM25 and dense lists are fused: gated, anchored, rrf, weighted_rrf or "
              "score_blend (eval also takes all, comparing every method), with rrf k, branch "
              "weights, the anchored blend's dense confidence power, the fetch factor (candidates "
              "per branch = top-k x fetch) and the gated blend's dense weight, agreement depth, "
              "disagreement gate, confidence and overlap powers and relative BM25 scores"},
             {"expand",
              "off|W",
              e.lexicon ? num(e.weight) : "off",
              "weight of the built-in synonyms of query words (lexicon expansion)"},
             {"neighbours",
              "off|N[,W[,MIN]]",
              e.neighbours == 0 ? "off"
                                : std::to_string(e.neighbours) + "," + num(e.neighbour_weight) +
                                      "," + num(e.neighbour_min_similarity),
              "word-vector expansion: each query word adds its N nearest catalog words (cosine >= "
              "MIN, default " +
                  num(e.neighbour_min_similarity) + ") at weight W x cosine (default W " +
                  num(e.neighbour_weight) + ")"},
             {"action",
              "off|W[,BOOST]",
              num(e.action_weight) + "," + num(e.action_boost),
              "weight of the query's action term (list, delete, ...), matched against tool names "
              "with that action, and the score boost of those tools"},
             {"compounds",
              "off|W",
              num(e.compound_weight),
              "weight of compound words joined or split against the catalog's words (key vault -> "
              "keyvault, cosmosdb -> cosmos db)"},
             {"pairs",
              "off|W",
              num(e.pair_weight),
              "weight of the query's adjacent word pairs, matched against the pairs of tool names "
              "and descriptions"},
             {"threads",
              "N",
              std::to_string(d.threads),
              "threads a commit uses to analyze, embed and build the HNSW graph (0 = every "
              "core); a setting of this run, not stored in index files"}}};
}

Result<CatalogOptions> index_options(const Args& args) {
    CatalogOptions options;
    if (auto spec = args.get("bm25")) {
        std::stringstream items(*spec);
        std::string item;
        while (std::getline(items, item, ',')) {
            const auto eq = item.find('=');
            if (eq == std::string::npos) {
                return Status{Errc::invalid_argument,
                              "--bm25 expects key=value pairs, got '" + item + "'"};
            }
            const std::string value = item.substr(eq + 1);
            char* end = nullptr;
            const float v = std::strtof(value.c_str(), &end);
            if (value.empty() || end != value.c_str() + value.size() || !(v >= 0.0f)) {
                return Status{Errc::invalid_argument,
                              "--bm25: '" + value + "' is not a non-negative number"};
            }
            if (Status s = set_bm25_value(options, item.substr(0, eq), v); !s.ok()) {
                return s;
            }
        }
    }
    if (auto fusion = args.get("fusion")) {
        if (Status s = set_fusion(options, *fusion); !s.ok()) {
            return s;
        }
    }
    if (auto expand = args.get("expand")) {
        if (*expand == "off") {
            options.expansion.lexicon = false;
        } else if (!parse_numbers(*expand, std::span<float>(&options.expansion.weight, 1), 1e6f)) {
            return Status{Errc::invalid_argument, "--expand takes off or a non-negative weight"};
        }
    }
    if (auto action = args.get("action")) {
        // off | W[,BOOST]: the action term's weight, then the score boost of matching tools.
        float values[2] = {options.expansion.action_weight, options.expansion.action_boost};
        if (*action == "off") {
            values[0] = values[1] = 0.0f;
        } else if (!parse_numbers(*action, values, 100.0f)) {
            return Status{Errc::invalid_argument, "--action takes off or W[,BOOST]"};
        }
        options.expansion.action_weight = values[0];
        options.expansion.action_boost = values[1];
    }
    for (const auto& [flag, weight] :
         {std::pair{"pairs", &options.expansion.pair_weight},
          std::pair{"compounds", &options.expansion.compound_weight}}) {
        if (auto spec = args.get(flag)) {
            if (*spec == "off") {
                *weight = 0.0f;
            } else if (!parse_numbers(*spec, std::span<float>(weight, 1), 1e6f)) {
                return Status{Errc::invalid_argument,
                              std::string("--") + flag + " takes off or a non-negative weight"};
            }
        }
    }
    if (auto spec = args.get("neighbours")) {
        // N[,weight[,min_similarity]]; N = 0 or "off" turns neighbour expansion off.
        float values[3] = {static_cast<float>(options.expansion.neighbours),
                           options.expansion.neighbour_weight,
                           options.expansion.neighbour_min_similarity};
        if (!parse_numbers(*spec == "off" ? std::string("0") : *spec, values, 64.0f)) {
            return Status{Errc::invalid_argument,
                          "--neighbours takes off or N[,weight[,min_similarity]]"};
        }
        options.expansion.neighbours = static_cast<std::size_t>(values[0]);
        options.expansion.neighbour_weight = values[1];
        options.expansion.neighbour_min_similarity = values[2];
    }
    if (auto threads = args.get("threads")) {
        char* end = nullptr;
        const unsigned long long n = std::strtoull(threads->c_str(), &end, 10);
        if (threads->empty() || end != threads->c_str() + threads->size() || n > kMaxThreads ||
            (*threads)[0] == '-') {
            return Status{Errc::invalid_argument,
                          "--threads takes 0 (every core) to " + std::to_string(kMaxThreads)};
        }
        options.threads = static_cast<std::size_t>(n);
    }
    if (auto stem = args.get("stem")) {
        if (*stem != "on" && *stem != "off" && *stem != "both") {
            return Status{Errc::invalid_argument, "--stem must be on, off or both"};
        }
        options.analyzer.stem = *stem != "off";
        options.analyzer.keep_surface = *stem == "both";
    }
    return options;
}

}  // namespace scout::cli

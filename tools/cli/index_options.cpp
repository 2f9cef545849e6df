// index_options.cpp: see index_options.hpp.
#include "cli/index_options.hpp"

#include <cstdlib>
#include <span>
#include <sstream>
#include <string>
#include <utility>

namespace scout::cli {
namespace {

/// `--fusion` keys: short names of the fusion settings in the option table.
constexpr std::pair<std::string_view, std::string_view> kFusionKeys[] = {
    {"k", "fusion.rrf_k"},
    {"bm25", "fusion.bm25_weight"},
    {"dense", "fusion.dense_weight"},
    {"confidence", "fusion.dense_confidence_power"},
    {"fetch", "fusion.fetch_factor"},
    {"gated_dense", "fusion.gated_dense_weight"},
    {"depth", "fusion.agreement_depth"},
    {"disagree", "fusion.disagreement_gate"},
    {"gated_confidence", "fusion.gated_confidence_power"},
    {"overlap", "fusion.overlap_power"},
    {"relative", "fusion.gated_relative_bm25"},
};

/// Sets each "key=value" of a comma-separated list, naming keys through `key_of` (empty: unknown).
template <typename KeyOf>
Status set_pairs(CatalogOptions& options,
                 const std::string& flag,
                 std::string_view list,
                 KeyOf key_of) {
    std::stringstream items{std::string(list)};
    std::string item;
    while (std::getline(items, item, ',')) {
        const auto eq = item.find('=');
        if (eq == std::string::npos) {
            std::string message = "--" + flag;
            message += " expects key=value pairs, got '" + item + "'";
            return {Errc::invalid_argument, std::move(message)};
        }
        const std::string key = key_of(item.substr(0, eq));
        if (key.empty()) {
            return {Errc::invalid_argument,
                    "--" + flag + ": unknown key '" + item.substr(0, eq) + "'"};
        }
        std::string value = item.substr(eq + 1);
        if (key == "fusion.gated_relative_bm25" && (value == "0" || value == "1")) {
            value = value == "1" ? "true" : "false";
        }
        if (Status s = set_option(options, key, value); !s.ok()) {
            return {Errc::invalid_argument, "--" + flag + ": " + s.message()};
        }
    }
    return {};
}

Status set_fusion(CatalogOptions& options, const std::string& spec) {
    const auto comma = spec.find(',');
    const std::string method = spec.substr(0, comma);
    if (auto parsed = parse_fusion_method(method)) {
        options.fusion.method = *parsed;
    } else if (method != "all") {  // all: eval compares every method; elsewhere the default
        return {Errc::invalid_argument, "--fusion: unknown method '" + method + "'"};
    }
    if (comma == std::string::npos) {
        return {};
    }
    return set_pairs(
        options, "fusion", std::string_view(spec).substr(comma + 1), [](const std::string& key) {
            for (const auto& [name, path] : kFusionKeys) {
                if (key == name) {
                    return std::string(path);
                }
            }
            return std::string();
        });
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
             {"calibration",
              "FILE",
              "",
              "fusion settings fitted to the embedder by `scout calibrate` (stored in the index; "
              "--fusion and --option given too override them); refused for another model"},
             {"option",
              "KEY=V,...",
              "",
              "any index setting by its key in index files (bm25.k1, dense.hnsw_m, fusion.method, "
              "...; `scout options` lists every one with its bounds and default)"},
             {"threads",
              "N",
              std::to_string(d.threads),
              "threads a commit uses to analyze, embed and build the HNSW graph (0 = every "
              "core); a setting of this run, not stored in index files"}}};
}

Result<CatalogOptions> index_options(const Args& args) {
    CatalogOptions options;
    if (auto file = args.get("calibration")) {
        auto calibration = read_calibration(*file);
        if (!calibration) {
            return calibration.status();
        }
        options.fusion = calibration->fusion;
    }
    if (auto spec = args.get("bm25")) {
        const Status s = set_pairs(options, "bm25", *spec, [](const std::string& key) {
            const std::string path =
                key == "k1" || key == "b" ? "bm25." + key : "bm25.weights." + key;
            return find_option(path) != nullptr ? path : std::string();
        });
        if (!s.ok()) {
            return s;
        }
    }
    if (auto list = args.get("option")) {
        const Status s = set_pairs(options, "option", *list, [](const std::string& key) {
            const OptionField* field = find_option(key);
            return field != nullptr ? key : std::string();
        });
        if (!s.ok()) {
            return s;
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
        if (!set_option(options, "threads", *threads).ok()) {
            const auto most = static_cast<unsigned long long>(find_option("threads")->max);
            return Status{Errc::invalid_argument,
                          "--threads takes 0 (every core) to " + std::to_string(most)};
        }
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

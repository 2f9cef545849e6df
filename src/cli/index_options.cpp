// index_options.cpp: see index_options.hpp.
#include <cstdlib>
#include <span>
#include <sstream>
#include <utility>

#include "cli/index_options.hpp"

namespace scout::cli {
namespace {

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
            return {Errc::invalid_argument, "--fusion: '" + item + "' needs key=non-negative number"};
        }
        if (key == "k") options.fusion.rrf_k = v;
        else if (key == "bm25") options.fusion.bm25_weight = v;
        else if (key == "dense") options.fusion.dense_weight = v;
        else if (key == "confidence") options.fusion.dense_confidence_power = v;
        else if (key == "fetch" && v >= 1) options.fusion.fetch_factor = static_cast<std::size_t>(v);
        else return {Errc::invalid_argument, "--fusion: unknown key '" + key + "'"};
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
        if (i == values.size() || item.empty() || end != item.c_str() + item.size() || !(v >= 0.0f) || !(v <= max)) {
            return false;
        }
        values[i++] = v;
    }
    return i > 0;
}

Status set_bm25_value(CatalogOptions& options, const std::string& key, float value) {
    Bm25Options& b = options.bm25;
    if (key == "k1") b.k1 = value;
    else if (key == "b") b.b = value;
    else if (key == "name") b.weights.name = value;
    else if (key == "server") b.weights.server = value;
    else if (key == "server_description") b.weights.server_description = value;
    else if (key == "description") b.weights.description = value;
    else if (key == "parameters") b.weights.parameters = value;
    else if (key == "action") b.weights.action = value;
    else if (key == "word_pairs") b.weights.word_pairs = value;
    else return {Errc::invalid_argument, "--bm25: unknown key '" + key + "'"};
    return {};
}

}  // namespace

const std::set<std::string>& index_option_names() {
    static const std::set<std::string> names{"bm25", "stem", "fusion", "expand", "neighbours", "action", "compounds", "pairs"};
    return names;
}

Result<CatalogOptions> index_options(const Args& args) {
    CatalogOptions options;
    if (auto spec = args.get("bm25")) {
        std::stringstream items(*spec);
        std::string item;
        while (std::getline(items, item, ',')) {
            const auto eq = item.find('=');
            if (eq == std::string::npos) {
                return Status{Errc::invalid_argument, "--bm25 expects key=value pairs, got '" + item + "'"};
            }
            const std::string value = item.substr(eq + 1);
            char* end = nullptr;
            const float v = std::strtof(value.c_str(), &end);
            if (value.empty() || end != value.c_str() + value.size() || !(v >= 0.0f)) {
                return Status{Errc::invalid_argument, "--bm25: '" + value + "' is not a non-negative number"};
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
    for (const auto& [flag, weight] : {std::pair{"pairs", &options.expansion.pair_weight},
                                       std::pair{"compounds", &options.expansion.compound_weight}}) {
        if (auto spec = args.get(flag)) {
            if (*spec == "off") {
                *weight = 0.0f;
            } else if (!parse_numbers(*spec, std::span<float>(weight, 1), 1e6f)) {
                return Status{Errc::invalid_argument, std::string("--") + flag + " takes off or a non-negative weight"};
            }
        }
    }
    if (auto spec = args.get("neighbours")) {
        // N[,weight[,min_similarity]]; N = 0 or "off" turns neighbour expansion off.
        float values[3] = {static_cast<float>(options.expansion.neighbours), options.expansion.neighbour_weight,
                           options.expansion.neighbour_min_similarity};
        if (!parse_numbers(*spec == "off" ? std::string("0") : *spec, values, 64.0f)) {
            return Status{Errc::invalid_argument, "--neighbours takes off or N[,weight[,min_similarity]]"};
        }
        options.expansion.neighbours = static_cast<std::size_t>(values[0]);
        options.expansion.neighbour_weight = values[1];
        options.expansion.neighbour_min_similarity = values[2];
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

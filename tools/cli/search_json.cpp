// search_json.cpp: see search_json.hpp.
#include "cli/search_json.hpp"

#include <nlohmann/json.hpp>

#include "scout/types.hpp"

#include "util/json_limits.hpp"

namespace scout::cli {
namespace {

/// A schema as JSON, parsed with the depth bound (dumping recurses once per level); text that
/// does not parse within it is given as a string.
nlohmann::json parse_or_string(const std::string& text) {
    if (text.empty()) {
        return nullptr;
    }
    auto parsed = detail::parse_json(text);
    return parsed ? std::move(parsed.value()) : nlohmann::json(text);
}

std::string compact(const nlohmann::json& value) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

// The envelope is indented, each match is one compact line: indenting a nested schema costs
// output quadratic in its depth (a 120 KB schema nested 20,000 deep once printed 800 MB).
std::string search_json(const std::string& query,
                        const SearchResult& result,
                        const std::vector<std::string>& alternatives) {
    nlohmann::json head{{"query", query},
                        {"mode", mode_name(result.mode)},
                        {"degraded", result.degraded},
                        {"catalog_empty", result.catalog_empty}};
    if (result.degraded) {
        head["degraded_reason"] = result.degraded_reason;
    }
    if (!result.notice.empty()) {
        head["notice"] = result.notice;
    }
    if (!alternatives.empty()) {
        head["alternatives"] = alternatives;
    }
    std::string out = "{\n";
    for (const auto& [key, value] : head.items()) {
        out += "  " + compact(key) + ": " + compact(value) + ",\n";
    }
    out += "  \"matches\": [";
    const char* separator = "\n    ";
    for (const Hit& h : result.hits) {
        nlohmann::json match{{"name", h.name},
                             {"server", h.server},
                             {"tool", h.tool},
                             {"description", h.description},
                             {"inputSchema", parse_or_string(h.input_schema)},
                             {"score", h.score},
                             {"bm25_rank", h.bm25_rank},
                             {"dense_rank", h.dense_rank}};
        if (!alternatives.empty()) {
            match["best_phrasing"] = h.best_phrasing;
        }
        out += separator + compact(match);
        separator = ",\n    ";
    }
    out += result.hits.empty() ? "]\n}\n" : "\n  ]\n}\n";
    return out;
}

}  // namespace scout::cli

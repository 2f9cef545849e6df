// search_command.cpp: `scout search --catalog FILE [options] QUERY...`.
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace scout::cli {
namespace {

nlohmann::json parse_or_string(const std::string& text) {
    if (text.empty()) {
        return nullptr;
    }
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception&) {
        return text;
    }
}

void print_json(const std::string& query, const SearchResult& result) {
    nlohmann::json matches = nlohmann::json::array();
    for (const Hit& h : result.hits) {
        matches.push_back({{"name", h.name},
                           {"server", h.server},
                           {"tool", h.tool},
                           {"description", h.description},
                           {"inputSchema", parse_or_string(h.input_schema)},
                           {"score", h.score},
                           {"bm25_rank", h.bm25_rank},
                           {"dense_rank", h.dense_rank}});
    }
    nlohmann::json out{{"query", query},
                       {"mode", mode_name(result.mode)},
                       {"degraded", result.degraded},
                       {"catalog_empty", result.catalog_empty},
                       {"matches", matches}};
    if (result.degraded) {
        out["degraded_reason"] = result.degraded_reason;
    }
    std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

void print_text(const std::string& query, const SearchResult& result) {
    std::cout << "query: " << query << "  (mode " << mode_name(result.mode) << ")\n";
    if (result.degraded) {
        std::cout << "degraded: " << result.degraded_reason << "\n";
    }
    if (result.catalog_empty) {
        std::cout << "the catalog is empty\n";
    }
    int rank = 0;
    for (const Hit& h : result.hits) {
        std::cout << ++rank << ". " << h.name << "  [" << h.server << " / " << h.tool << "]  score "
                  << h.score << "  (bm25 #" << h.bm25_rank << ", dense #" << h.dense_rank << ")\n   "
                  << h.description.substr(0, 160) << "\n";
    }
}

}  // namespace

int run_search(int argc, char** argv) {
    std::string error;
    auto args = Args::parse(argc, argv, 2, {"json"}, catalog_options(), error);
    if (!args) {
        return fail(error);
    }
    std::string query;
    for (const std::string& word : args->positional()) {
        query += (query.empty() ? "" : " ") + word;
    }
    if (query.empty()) {
        return fail("search needs a QUERY");
    }
    auto options = search_options(*args);
    if (!options) {
        return fail(options.status().message());
    }
    auto loaded = load_catalog(*args);
    if (!loaded) {
        return fail(loaded.status().message());
    }
    auto result = loaded->searcher.search(query, options.value());
    if (!result) {
        return fail(result.status().message());
    }
    if (args->has("json")) {
        print_json(query, result.value());
    } else {
        print_text(query, result.value());
    }
    return kExitOk;
}

}  // namespace scout::cli

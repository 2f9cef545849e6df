// search_command.cpp: `scout search --catalog FILE [options] QUERY...`.
#include <iostream>

#include "cli/command_specs.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/search_json.hpp"

namespace scout::cli {
namespace {

/// The phrasing a multi-query hit scored best with: "query", or "alt i" as listed above the hits.
std::string phrasing_label(const Hit& h) {
    return h.best_phrasing == 0 ? "query" : "alt " + std::to_string(h.best_phrasing);
}

void print_search_text(const std::string& query,
                       const SearchResult& result,
                       const std::vector<std::string>& alternatives) {
    std::cout << "query: " << query << "  (mode " << mode_name(result.mode) << ")\n";
    for (std::size_t i = 0; i < alternatives.size(); ++i) {
        std::cout << "alt " << i + 1 << ": " << alternatives[i] << "\n";
    }
    if (result.degraded) {
        std::cout << "degraded: " << result.degraded_reason << "\n";
    }
    if (!result.notice.empty()) {
        std::cout << "note: " << result.notice << "\n";
    }
    if (result.catalog_empty) {
        std::cout << "the catalog is empty\n";
    }
    int rank = 0;
    for (const Hit& h : result.hits) {
        std::cout << ++rank << ". " << h.name << "  [" << h.server << " / " << h.tool << "]  score "
                  << h.score << "  (bm25 #" << h.bm25_rank << ", dense #" << h.dense_rank << ")";
        if (!alternatives.empty()) {
            std::cout << "  best phrasing: " << phrasing_label(h);
        }
        std::cout << "\n   " << h.description.substr(0, 160) << "\n";
    }
}

}  // namespace

int run_search(int argc, char** argv) {
    ParsedCommand parsed = parse_command(argc, argv, search_spec());
    if (!parsed.args) {
        return parsed.exit_code;
    }
    const Args* args = &*parsed.args;
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
    options->alternatives = args->all("alt");
    Progress progress(*args);
    auto loaded = load_catalog(*args, &progress);
    if (!loaded) {
        return fail(loaded.status().message());
    }
    auto result = loaded->searcher.search(query, options.value());
    if (!result) {
        return fail(result.status().message());
    }
    explain_degraded(loaded.value(), result.value());
    if (args->has("json")) {
        std::cout << search_json(query, result.value(), options->alternatives);
    } else {
        print_search_text(query, result.value(), options->alternatives);
    }
    return kExitOk;
}

}  // namespace scout::cli

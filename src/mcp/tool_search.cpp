// tool_search.cpp: the tool_search handler. Validates the arguments, maps the scope to search
// options, runs the hybrid search (whose exact-name rule puts a tool named by the whole query
// first, within scope), and answers with a text block plus the same matches as structuredContent.
#include <algorithm>
#include <cmath>

#include "scout/token_budget.hpp"

#include "mcp/internal.hpp"

namespace scout::mcp {
namespace {

Result<std::size_t> read_top_k(const Json& args) {
    auto it = args.find("top_k");
    if (it == args.end() || it->is_null()) {
        return SearchOptions::kDefaultTopK;
    }
    if (!it->is_number()) {
        return Status{Errc::invalid_argument, "top_k must be an integer"};
    }
    const double k = it->get<double>();
    if (!std::isfinite(k)) {
        return Status{Errc::invalid_argument, "top_k must be an integer"};
    }
    return static_cast<std::size_t>(std::clamp(k, 1.0, double(SearchOptions::kMaxTopK)));
}

/// "alternatives": an optional array of non-empty strings (other phrasings of the query).
Result<std::vector<std::string>> read_alternatives(const Json& args) {
    auto it = args.find("alternatives");
    if (it == args.end() || it->is_null()) {
        return std::vector<std::string>{};
    }
    if (!it->is_array() || it->size() > SearchOptions::kMaxAlternatives) {
        return Status{Errc::invalid_argument,
                      "alternatives must be an array of at most " +
                          std::to_string(SearchOptions::kMaxAlternatives) + " strings"};
    }
    std::vector<std::string> out;
    for (const Json& a : *it) {
        if (!a.is_string() || a.get_ref<const std::string&>().empty()) {
            return Status{Errc::invalid_argument, "each alternative must be a non-empty string"};
        }
        out.push_back(a.get<std::string>());
    }
    return out;
}

/// "max_tokens": an optional positive integer; 0 when absent.
Result<std::size_t> read_max_tokens(const Json& args) {
    auto it = args.find("max_tokens");
    if (it == args.end() || it->is_null()) {
        return std::size_t{0};
    }
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 1) {
        return Status{Errc::invalid_argument, "max_tokens must be a positive integer"};
    }
    return static_cast<std::size_t>(std::min(it->get<double>(), 1e9));
}

/// The answer's matches within `budget` tokens of its text (the first match always complete):
/// the hits are fitted after reserving the wrapper's tokens and one per separator, then the
/// exact text is counted and the last match dropped while it is over.
Json budgeted_answer(const std::string& query,
                     const std::vector<Hit>& hits,
                     bool with_phrasing,
                     const TokenCounter& counter,
                     std::size_t budget) {
    Json structured{{"query", query}, {"matches", Json::array()}, {"omitted", 0}};
    const std::size_t overhead = counter.count(structured.dump());
    BudgetOptions options;
    options.max_tokens = budget > overhead + hits.size() ? budget - overhead - hits.size() : 1;
    BudgetedHits fitted = fit_to_budget(hits, counter, options);
    Json matches = Json::array();
    for (const BudgetedHit& b : fitted.hits) {
        Json match = Json::parse(hit_json(b.hit, b.description_trimmed, b.schema_trimmed));
        if (with_phrasing) {
            match["best_phrasing"] = b.hit.best_phrasing;
        }
        matches.push_back(std::move(match));
    }
    std::size_t omitted = fitted.omitted;
    while (true) {
        structured["matches"] = matches;
        structured["omitted"] = omitted;
        if (matches.size() <= 1 || counter.count(structured.dump()) <= budget) {
            return structured;
        }
        matches.erase(matches.end() - 1);
        ++omitted;
    }
}

}  // namespace

Json MetaTools::tool_search(const Searcher& searcher, const Json& args) const {
    if (!args.is_object()) {
        return error_result("tool_search needs an arguments object with a \"query\" string.");
    }
    auto q = args.find("query");
    if (q == args.end() || !q->is_string() || q->get_ref<const std::string&>().empty()) {
        return error_result("tool_search needs a non-empty \"query\" string.");
    }
    const std::string& query = q->get_ref<const std::string&>();
    auto top_k = read_top_k(args);
    if (!top_k) {
        return error_result(top_k.status().message());
    }
    Scope scope = connector_.default_scope;
    if (auto s = args.find("scope"); s != args.end() && !s->is_null()) {
        if (*s == "my_servers") {
            scope = Scope::my_servers;
        } else if (*s == "all_servers") {
            scope = Scope::all_servers;
        } else {
            return error_result("scope must be \"my_servers\" or \"all_servers\".");
        }
    }
    auto alternatives = read_alternatives(args);
    if (!alternatives) {
        return error_result(alternatives.status().message());
    }
    auto max_tokens = read_max_tokens(args);
    if (!max_tokens) {
        return error_result(max_tokens.status().message());
    }
    const std::size_t budget = *max_tokens != 0 ? *max_tokens : connector_.max_tokens;
    if (budget != 0 && !connector_.token_counter) {
        return error_result("max_tokens is not available: this connector has no token counter.");
    }
    SearchOptions options = scope_options(scope);
    options.top_k = *top_k;
    const auto given_k = args.find("top_k");
    if (budget != 0 && (given_k == args.end() || given_k->is_null())) {
        options.top_k = SearchOptions::kMaxTopK;  // the budget decides how many fit
    }
    // With alternatives, each match says which phrasing found it best (0: the query, i:
    // alternatives[i - 1]), so the model learns which of its wordings the catalog speaks.
    const bool with_phrasing = !alternatives->empty();
    options.alternatives = std::move(alternatives.value());
    options.outcome_prior = connector_.outcome_prior;

    auto result = searcher.search(query, options);
    if (!result) {
        return error_result("tool_search failed: " + result.status().message());
    }
    Json structured;
    if (budget != 0) {
        structured =
            budgeted_answer(query, result->hits, with_phrasing, *connector_.token_counter, budget);
    } else {
        Json matches = Json::array();
        for (const Hit& hit : result->hits) {
            Json match = detail::match_json(hit);
            if (with_phrasing) {
                match["best_phrasing"] = hit.best_phrasing;
            }
            matches.push_back(std::move(match));
        }
        structured = Json{{"query", query}, {"matches", std::move(matches)}};
    }
    Json out{{"content", Json::array({Json{{"type", "text"}, {"text", structured.dump()}}})},
             {"structuredContent", structured}};
    out["isError"] = false;
    return out;
}

}  // namespace scout::mcp

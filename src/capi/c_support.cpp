// c_support.cpp: see c_support.hpp.
#include "capi/c_support.hpp"

#include <cstdlib>
#include <cstring>

#include "capi/json_bridge.hpp"
#include "capi/token_budget_json.hpp"

namespace scout::detail {
namespace {

thread_local std::string t_last_error;

}  // namespace

scout_status fail(const Status& status) noexcept {
    try {
        t_last_error = status.to_string();
    } catch (...) {
        t_last_error.clear();  // out of memory for the message: the code still tells
    }
    return static_cast<scout_status>(status.code());
}

const char* last_error_text() noexcept {
    return t_last_error.c_str();
}

Status null_argument(const char* name) {
    return {Errc::invalid_argument, std::string(name) + " must not be NULL"};
}

Status give_string(const std::string& text, char** out) {
    char* copy = static_cast<char*>(std::malloc(text.size() + 1));
    if (copy == nullptr) {
        return {Errc::internal, "out of memory"};
    }
    std::memcpy(copy, text.c_str(), text.size() + 1);
    *out = copy;
    return {};
}

std::string_view optional_text(const char* text) {
    return text == nullptr ? std::string_view() : std::string_view(text);
}

Status search_into(const Searcher& searcher,
                   Mode default_mode,
                   const char* query,
                   const char* options_json,
                   char** result_json) {
    if (query == nullptr) {
        return null_argument("query");
    }
    if (result_json == nullptr) {
        return null_argument("result_json");
    }
    auto request = search_request_from_json(optional_text(options_json), default_mode);
    if (!request) {
        return request.status();
    }
    if (request->max_tokens != 0) {  // a missing counter fails before the search is run
        if (auto counter = process_token_counter(); !counter) {
            return counter.status();
        }
    }
    auto result = searcher.search(query, request->options);
    if (!result) {
        return result.status();
    }
    const bool with_phrasing = !request->options.alternatives.empty();
    if (request->max_tokens != 0) {
        auto fitted = budget_hits(result->hits, request->max_tokens);
        if (!fitted) {
            return fitted.status();
        }
        return give_string(dump_json(budgeted_result_to_json(
                               query, result.value(), fitted.value(), with_phrasing)),
                           result_json);
    }
    return give_string(dump_json(search_result_to_json(query, result.value(), with_phrasing)),
                       result_json);
}

}  // namespace scout::detail

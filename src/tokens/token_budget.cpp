// token_budget.cpp: greedy fitting of ranked hits into a token budget. Descriptions are trimmed
// before schemas because a schema is what the model needs to call the tool correctly, while
// the first words of a description usually say what the tool does.
#include "scout/token_budget.hpp"

#include <nlohmann/json.hpp>

namespace scout {
namespace {

using Json = nlohmann::json;

Json parse_budget_object(const std::string& text, Json fallback) {
    if (text.empty()) {
        return fallback;
    }
    Json parsed = Json::parse(text, nullptr, false);
    return parsed.is_object() ? parsed : fallback;
}

/// Removes documentation keys from every property of a schema, recursively; keeps what a call
/// needs (names, types, enums, required, nesting).
void strip_documentation(Json& schema) {
    if (!schema.is_object()) {
        return;
    }
    for (const char* key : {"description", "title", "examples", "default", "$comment"}) {
        schema.erase(key);
    }
    for (const char* key : {"properties", "$defs", "definitions"}) {
        if (auto it = schema.find(key); it != schema.end() && it->is_object()) {
            for (auto& [name, sub] : it->items()) {
                strip_documentation(sub);
            }
        }
    }
    for (const char* key : {"items", "additionalProperties"}) {
        if (auto it = schema.find(key); it != schema.end()) {
            strip_documentation(*it);
        }
    }
    for (const char* key : {"anyOf", "oneOf", "allOf"}) {
        if (auto it = schema.find(key); it != schema.end() && it->is_array()) {
            for (Json& sub : *it) {
                strip_documentation(sub);
            }
        }
    }
}

/// The longest word prefix of `text` within `limit` tokens, followed by "...".
std::string trim_description(const std::string& text,
                             const TokenCounter& counter,
                             std::size_t limit) {
    std::vector<std::size_t> ends;  // byte offset after each word
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == ' ' && i > 0 && text[i - 1] != ' ') {
            ends.push_back(i);
        }
    }
    std::size_t lo = 0;  // words kept: the largest n with count(prefix(n)) <= limit
    std::size_t hi = ends.size();
    while (lo < hi) {
        const std::size_t mid = (lo + hi + 1) / 2;
        if (counter.count(std::string_view(text).substr(0, ends[mid - 1])) + 1 <= limit) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return (lo == 0 ? std::string() : text.substr(0, ends[lo - 1])) + "...";
}

}  // namespace

std::string hit_json(const Hit& hit, bool description_trimmed, bool schema_trimmed) {
    Json out{{"name", hit.name},
             {"server", hit.server},
             {"tool", hit.tool},
             {"description", hit.description},
             {"inputSchema", parse_budget_object(hit.input_schema, Json{{"type", "object"}})},
             {"annotations", parse_budget_object(hit.annotations, Json::object())}};
    if (description_trimmed || schema_trimmed) {
        Json trimmed = Json::array();
        if (description_trimmed) {
            trimmed.push_back("description");
        }
        if (schema_trimmed) {
            trimmed.push_back("inputSchema");
        }
        out["trimmed"] = std::move(trimmed);
    }
    return out.dump(-1, ' ', false, Json::error_handler_t::replace);
}

BudgetedHits fit_to_budget(const std::vector<Hit>& hits,
                           const TokenCounter& counter,
                           const BudgetOptions& options) {
    BudgetedHits out;
    const auto cost = [&](const BudgetedHit& b) {
        return counter.count(hit_json(b.hit, b.description_trimmed, b.schema_trimmed));
    };
    for (std::size_t i = 0; i < hits.size(); ++i) {
        BudgetedHit whole{hits[i], false, false, 0};
        whole.tokens = cost(whole);
        const bool unbounded = options.max_tokens == 0;
        if (i == 0 || unbounded || out.tokens + whole.tokens <= options.max_tokens) {
            out.tokens += whole.tokens;
            out.hits.push_back(std::move(whole));
            continue;
        }
        BudgetedHit cut = whole;
        if (counter.count(cut.hit.description) > options.trimmed_description_tokens) {
            cut.hit.description =
                trim_description(cut.hit.description, counter, options.trimmed_description_tokens);
            cut.description_trimmed = true;
            cut.tokens = cost(cut);
        }
        if (out.tokens + cut.tokens > options.max_tokens) {
            const Json schema = parse_budget_object(cut.hit.input_schema, Json{{"type", "object"}});
            Json stripped = schema;
            strip_documentation(stripped);
            if (stripped != schema) {
                cut.hit.input_schema =
                    stripped.dump(-1, ' ', false, Json::error_handler_t::replace);
                cut.schema_trimmed = true;
                cut.tokens = cost(cut);
            }
        }
        if (out.tokens + cut.tokens > options.max_tokens) {
            out.omitted = hits.size() - i;
            break;
        }
        out.tokens += cut.tokens;
        out.hits.push_back(std::move(cut));
    }
    return out;
}

}  // namespace scout

// json_limits.cpp: see scout/mcp/json_limits.hpp. The same header-only parser as the library's
// own (util/bounded_json_builder.hpp), compiled here so that scout::mcp needs no internal symbol.
#include "scout/mcp/json_limits.hpp"

#include <utility>

#include "util/bounded_json_builder.hpp"

namespace scout::mcp {

std::string too_deep_message(std::size_t max_depth) {
    return scout::detail::bounded_json::too_deep_text(max_depth);
}

Result<nlohmann::json> parse_json(std::string_view text, std::size_t max_depth) {
    scout::detail::bounded_json::Builder builder(max_depth, false);
    if (Status s = scout::detail::bounded_json::run(text, builder, max_depth); !s.ok()) {
        return s;
    }
    return std::move(builder.root());
}

Result<PrunedJson> parse_json_pruned(std::string_view text, std::size_t max_depth) {
    scout::detail::bounded_json::Builder builder(max_depth, true);
    if (Status s = scout::detail::bounded_json::run(text, builder, max_depth); !s.ok()) {
        return s;
    }
    return PrunedJson{std::move(builder.root()), builder.pruned()};
}

bool has_pruned(const nlohmann::json& value) {
    return scout::detail::bounded_json::holds_discarded(value);
}

}  // namespace scout::mcp

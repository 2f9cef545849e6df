// json_limits.cpp: see json_limits.hpp; the parser itself is util/bounded_json_builder.hpp.
#include "util/json_limits.hpp"

#include <utility>

#include "util/bounded_json_builder.hpp"

namespace scout::detail {

std::string too_deep_message(std::size_t max_depth) {
    return bounded_json::too_deep_text(max_depth);
}

Result<nlohmann::json> parse_json(std::string_view text, std::size_t max_depth) {
    bounded_json::Builder builder(max_depth, false);
    if (Status s = bounded_json::run(text, builder, max_depth); !s.ok()) {
        return s;
    }
    return std::move(builder.root());
}

Result<PrunedJson> parse_json_pruned(std::string_view text, std::size_t max_depth) {
    bounded_json::Builder builder(max_depth, true);
    if (Status s = bounded_json::run(text, builder, max_depth); !s.ok()) {
        return s;
    }
    return PrunedJson{std::move(builder.root()), builder.pruned()};
}

bool has_pruned(const nlohmann::json& value) {
    return bounded_json::holds_discarded(value);
}

}  // namespace scout::detail

// argument_check.hpp: checks a tool call's arguments against the tool's inputSchema before the
// gateway forwards them, so a malformed call is answered at once with the field at fault
// (-32602) instead of costing a backend round trip or reaching a backend that trusts its schema.
// The checked subset of JSON Schema is what tool schemas use: type, properties, required,
// additionalProperties, enum, const, items, prefixItems, minItems/maxItems, minLength/maxLength,
// minimum/maximum (exclusive too), multipleOf, minProperties/maxProperties, allOf/anyOf/oneOf
// and not. Other keywords ($ref, pattern, format...) are not checked: a call is never refused for
// what the checker does not understand. Work is bounded: nesting (of schema and arguments) and
// the number of checks, so neither a hostile schema nor hostile arguments can take long.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "json_rpc.hpp"

namespace scout::gateway {

struct ArgumentCheckLimits {
    std::size_t max_depth = 32;         ///< schema and argument nesting followed
    std::size_t max_steps = 1'000'000;  ///< values checked against a schema, all in all
};

/// Why `arguments` do not satisfy `schema` ("arguments.repo: expected a string, got a number";
/// "arguments: missing required property \"title\""), or nullopt when they do. Arguments
/// deeper than the limit or too large to check in the step budget are refused too. A schema
/// that is not an object (absent, true, malformed) accepts anything. Never throws.
[[nodiscard]] std::optional<std::string> check_arguments(const Json& schema,
                                                         const Json& arguments,
                                                         const ArgumentCheckLimits& limits = {});

}  // namespace scout::gateway

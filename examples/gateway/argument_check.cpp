// argument_check.cpp: see argument_check.hpp.
#include "argument_check.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>

#include "printable.hpp"

namespace scout::gateway {
namespace {

const char* kind_of(const Json& v) {
    switch (v.type()) {
        case Json::value_t::null:
            return "null";
        case Json::value_t::boolean:
            return "a boolean";
        case Json::value_t::number_integer:
        case Json::value_t::number_unsigned:
            return "an integer";
        case Json::value_t::number_float:
            return "a number";
        case Json::value_t::string:
            return "a string";
        case Json::value_t::array:
            return "an array";
        case Json::value_t::object:
            return "an object";
        default:
            return "a value";
    }
}

bool is_integral(const Json& v) {
    if (v.is_number_integer()) {
        return true;
    }
    if (!v.is_number_float()) {
        return false;
    }
    const double d = v.get<double>();
    return std::isfinite(d) && std::floor(d) == d;
}

bool has_type(const Json& v, std::string_view type) {
    if (type == "object") {
        return v.is_object();
    }
    if (type == "array") {
        return v.is_array();
    }
    if (type == "string") {
        return v.is_string();
    }
    if (type == "number") {
        return v.is_number();
    }
    if (type == "integer") {
        return is_integral(v);
    }
    if (type == "boolean") {
        return v.is_boolean();
    }
    if (type == "null") {
        return v.is_null();
    }
    return true;  // an unknown type name is not ours to enforce
}

std::size_t code_points(const std::string& s) {
    std::size_t n = 0;
    for (const char c : s) {
        n += (static_cast<unsigned char>(c) & 0xC0U) != 0x80U ? 1 : 0;
    }
    return n;
}

/// A non-negative whole-number keyword, or nullopt when absent or not one.
std::optional<std::size_t> count_keyword(const Json& schema, const char* key) {
    auto it = schema.find(key);
    if (it == schema.end() || !is_integral(*it)) {
        return std::nullopt;
    }
    if (it->is_number_unsigned()) {
        return static_cast<std::size_t>(it->get<std::uint64_t>());
    }
    const double d = it->get<double>();
    if (d < 0) {
        return std::nullopt;
    }
    // A count past what size_t holds bounds nothing a real value can reach:
    // saturate rather than convert out of range.
    constexpr double kBeyond = 18446744073709551616.0;  // 2^64
    return d >= kBeyond ? std::numeric_limits<std::size_t>::max() : static_cast<std::size_t>(d);
}

std::optional<double> number_keyword(const Json& schema, const char* key) {
    auto it = schema.find(key);
    if (it == schema.end() || !it->is_number()) {
        return std::nullopt;
    }
    return it->get<double>();
}

/// "1 character", "3 characters".
std::string count_of(std::size_t n, const std::string& one, const std::string& many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// The min/max count keywords of arrays and objects against `size`.
std::optional<std::string> check_size(const Json& schema,
                                      const char* min_key,
                                      const char* max_key,
                                      std::size_t size,
                                      const std::string& path,
                                      const std::string& one,
                                      const std::string& many) {
    if (auto min = count_keyword(schema, min_key); min && size < *min) {
        return path + ": fewer than " + count_of(*min, one, many);
    }
    if (auto max = count_keyword(schema, max_key); max && size > *max) {
        return path + ": more than " + count_of(*max, one, many);
    }
    return std::nullopt;
}

std::string member_path(const std::string& path, const std::string& key) {
    bool plain = !key.empty() && key.size() <= 64;
    for (const char c : key) {
        const auto u = static_cast<unsigned char>(c);
        plain = plain && (std::isalnum(u) != 0 || c == '_' || c == '-');
    }
    return plain ? path + "." + key : path + "[\"" + detail::clipped(key, 40) + "\"]";
}

class Checker {
public:
    explicit Checker(const ArgumentCheckLimits& limits) : limits_(limits) {}

    std::optional<std::string> check(const Json& schema,
                                     const Json& value,
                                     const std::string& path,
                                     std::size_t depth) {
        if (++steps_ > limits_.max_steps) {
            return path + ": too large to check against the tool's schema";
        }
        if (depth > limits_.max_depth) {
            return path + ": nested deeper than " + std::to_string(limits_.max_depth) + " levels";
        }
        if (schema.is_boolean()) {
            return schema.get<bool>() ? std::nullopt
                                      : std::optional<std::string>(path + ": not allowed");
        }
        if (!schema.is_object()) {
            return std::nullopt;
        }
        if (auto e = check_type(schema, value, path)) {
            return e;
        }
        if (auto e = check_values(schema, value, path)) {
            return e;
        }
        if (value.is_string()) {
            if (auto e = check_string(schema, value, path)) {
                return e;
            }
        } else if (value.is_number()) {
            if (auto e = check_number(schema, value, path)) {
                return e;
            }
        } else if (value.is_array()) {
            if (auto e = check_array(schema, value, path, depth)) {
                return e;
            }
        } else if (value.is_object()) {
            if (auto e = check_object(schema, value, path, depth)) {
                return e;
            }
        }
        return check_combinators(schema, value, path, depth);
    }

private:
    static std::optional<std::string> check_type(const Json& schema,
                                                 const Json& value,
                                                 const std::string& path) {
        auto it = schema.find("type");
        if (it == schema.end()) {
            return std::nullopt;
        }
        std::string wanted;
        if (it->is_string()) {
            if (has_type(value, it->get<std::string>())) {
                return std::nullopt;
            }
            wanted = it->get<std::string>();
        } else if (it->is_array()) {
            bool any = it->empty();
            for (const Json& t : *it) {
                any = any || !t.is_string() || has_type(value, t.get<std::string>());
                if (t.is_string()) {
                    wanted += (wanted.empty() ? "" : " or ") + t.get<std::string>();
                }
            }
            if (any) {
                return std::nullopt;
            }
        } else {
            return std::nullopt;
        }
        return path + ": expected " + detail::clipped(wanted, 60) + ", got " + kind_of(value);
    }

    static std::optional<std::string> check_values(const Json& schema,
                                                   const Json& value,
                                                   const std::string& path) {
        if (auto it = schema.find("const"); it != schema.end() && *it != value) {
            return path + ": must be " + detail::clipped(it->dump(), 60);
        }
        if (auto it = schema.find("enum"); it != schema.end() && it->is_array()) {
            for (const Json& allowed : *it) {
                if (allowed == value) {
                    return std::nullopt;
                }
            }
            return path + ": must be one of " + detail::clipped(it->dump(), 120);
        }
        return std::nullopt;
    }

    static std::optional<std::string> check_string(const Json& schema,
                                                   const Json& value,
                                                   const std::string& path) {
        const std::size_t n = code_points(value.get_ref<const std::string&>());
        if (auto min = count_keyword(schema, "minLength"); min && n < *min) {
            return path + ": shorter than " + count_of(*min, "character", "characters");
        }
        if (auto max = count_keyword(schema, "maxLength"); max && n > *max) {
            return path + ": longer than " + count_of(*max, "character", "characters");
        }
        return std::nullopt;
    }

    static std::optional<std::string> check_number(const Json& schema,
                                                   const Json& value,
                                                   const std::string& path) {
        const double v = value.get<double>();
        auto bound =
            [&](const char* key, bool below, bool exclusive) -> std::optional<std::string> {
            auto limit = number_keyword(schema, key);
            if (!limit) {
                return std::nullopt;
            }
            const bool bad = below ? (exclusive ? v <= *limit : v < *limit)
                                   : (exclusive ? v >= *limit : v > *limit);
            if (!bad) {
                return std::nullopt;
            }
            return path + ": must be " +
                   (below ? (exclusive ? "greater than " : "at least ")
                          : (exclusive ? "less than " : "at most ")) +
                   schema.at(key).dump();
        };
        for (auto e : {bound("minimum", true, false),
                       bound("exclusiveMinimum", true, true),
                       bound("maximum", false, false),
                       bound("exclusiveMaximum", false, true)}) {
            if (e) {
                return e;
            }
        }
        if (auto m = number_keyword(schema, "multipleOf"); m && *m > 0) {
            const double q = v / *m;
            if (std::isfinite(q) &&
                std::fabs(q - std::round(q)) > 1e-9 * std::max(1.0, std::fabs(q))) {
                return path + ": must be a multiple of " + schema.at("multipleOf").dump();
            }
        }
        return std::nullopt;
    }

    std::optional<std::string> check_array(const Json& schema,
                                           const Json& value,
                                           const std::string& path,
                                           std::size_t depth) {
        if (auto e =
                check_size(schema, "minItems", "maxItems", value.size(), path, "item", "items")) {
            return e;
        }
        std::size_t first = 0;
        if (auto prefix = schema.find("prefixItems");
            prefix != schema.end() && prefix->is_array()) {
            for (; first < prefix->size() && first < value.size(); ++first) {
                if (auto e = check((*prefix)[first],
                                   value[first],
                                   path + "[" + std::to_string(first) + "]",
                                   depth + 1)) {
                    return e;
                }
            }
        }
        auto items = schema.find("items");
        if (items == schema.end() || !(items->is_object() || items->is_boolean())) {
            return std::nullopt;  // an array of schemas (the old tuple form) is not checked
        }
        for (std::size_t i = first; i < value.size(); ++i) {
            if (auto e = check(*items, value[i], path + "[" + std::to_string(i) + "]", depth + 1)) {
                return e;
            }
        }
        return std::nullopt;
    }

    std::optional<std::string> check_object(const Json& schema,
                                            const Json& value,
                                            const std::string& path,
                                            std::size_t depth) {
        if (auto e = check_size(schema,
                                "minProperties",
                                "maxProperties",
                                value.size(),
                                path,
                                "property",
                                "properties")) {
            return e;
        }
        if (auto required = schema.find("required");
            required != schema.end() && required->is_array()) {
            for (const Json& name : *required) {
                if (name.is_string() && !value.contains(name.get<std::string>())) {
                    return path + ": missing required property \"" +
                           detail::clipped(name.get<std::string>(), 60) + "\"";
                }
            }
        }
        const auto properties = schema.find("properties");
        const bool has_properties = properties != schema.end() && properties->is_object();
        const auto additional = schema.find("additionalProperties");
        // Names matched by patternProperties cannot be told here: extras are then not judged.
        const bool judge_extras =
            additional != schema.end() && !schema.contains("patternProperties");
        for (const auto& [key, member] : value.items()) {
            const std::string at = member_path(path, key);
            if (has_properties) {
                if (auto p = properties->find(key); p != properties->end()) {
                    if (auto e = check(*p, member, at, depth + 1)) {
                        return e;
                    }
                    continue;
                }
            }
            if (!judge_extras) {
                continue;
            }
            if (additional->is_boolean() && !additional->get<bool>()) {
                return path + ": unknown property \"" + detail::clipped(key, 60) + "\"";
            }
            if (auto e = check(*additional, member, at, depth + 1)) {
                return e;
            }
        }
        return std::nullopt;
    }

    std::optional<std::string> check_combinators(const Json& schema,
                                                 const Json& value,
                                                 const std::string& path,
                                                 std::size_t depth) {
        if (auto all = schema.find("allOf"); all != schema.end() && all->is_array()) {
            for (const Json& s : *all) {
                if (auto e = check(s, value, path, depth + 1)) {
                    return e;
                }
            }
        }
        for (const char* key : {"anyOf", "oneOf"}) {
            auto alternatives = schema.find(key);
            if (alternatives == schema.end() || !alternatives->is_array() ||
                alternatives->empty()) {
                continue;
            }
            std::size_t matched = 0;
            std::optional<std::string> first_error;
            for (const Json& s : *alternatives) {
                auto e = check(s, value, path, depth + 1);
                if (!e) {
                    ++matched;
                } else if (!first_error) {
                    first_error = std::move(e);
                }
                if (steps_ > limits_.max_steps) {
                    return path + ": too large to check against the tool's schema";
                }
            }
            if (matched == 0) {
                return path + ": matches none of the " + key +
                       " alternatives (the first: " + detail::clipped(*first_error, 160) + ")";
            }
            if (std::string_view(key) == "oneOf" && matched > 1) {
                return path + ": matches " + std::to_string(matched) +
                       " of the oneOf alternatives, not exactly one";
            }
        }
        if (auto negated = schema.find("not"); negated != schema.end()) {
            if (!check(*negated, value, path, depth + 1)) {
                return path + ": matches a schema it must not match";
            }
        }
        return std::nullopt;
    }

    const ArgumentCheckLimits& limits_;
    std::size_t steps_ = 0;
};

}  // namespace

std::optional<std::string> check_arguments(const Json& schema,
                                           const Json& arguments,
                                           const ArgumentCheckLimits& limits) {
    if (!schema.is_object()) {
        return std::nullopt;
    }
    try {
        return Checker(limits).check(schema, arguments, "arguments", 0);
    } catch (const std::exception&) {
        return std::nullopt;  // a schema the checker cannot read is not held against the call
    }
}

}  // namespace scout::gateway

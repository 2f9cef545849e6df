// options_json.cpp: see options_json.hpp. Both directions walk the option table (options.hpp's
// OptionField, types/option_table.cpp), so a setting added there is written, read and
// bounds-checked here without a change. Bounds matter: a damaged file must not ask for, say, an
// HNSW graph with a billion links per node.
#include "persist/options_json.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "types/option_slot.hpp"
#include "util/aggregate_fields.hpp"

namespace scout::detail {
namespace {

using nlohmann::json;

// These trip when a member is added to the options, as a reminder to give it a row in the option
// table (types/option_table.cpp); the table's size is checked against their sum in the tests.
static_assert(aggregate_fields<CatalogOptions>() == 7, "CatalogOptions changed: add table rows");
static_assert(aggregate_fields<AnalyzerOptions>() == 6, "AnalyzerOptions changed: add table rows");
static_assert(aggregate_fields<Bm25Options>() == 3, "Bm25Options changed: add table rows");
static_assert(aggregate_fields<FieldWeights>() == 7, "FieldWeights changed: add table rows");
static_assert(aggregate_fields<DenseOptions>() == 12, "DenseOptions changed: add table rows");
static_assert(aggregate_fields<FusionOptions>() == 12, "FusionOptions changed: add table rows");
static_assert(aggregate_fields<ExpansionOptions>() == 9,
              "ExpansionOptions changed: add table rows");

struct BadField : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The object at the dotted key's parent, made on the way ("bm25.weights.name" -> the object
/// at bm25.weights), and the last part of the key.
json& parent_for_write(json& root, std::string_view key, std::string_view& last) {
    json* node = &root;
    for (std::size_t dot = key.find('.'); dot != std::string_view::npos; dot = key.find('.')) {
        node = &(*node)[std::string(key.substr(0, dot))];
        key.remove_prefix(dot + 1);
    }
    last = key;
    return *node;
}

/// The value at the dotted key, or nullptr when any part of the path is absent or not an object.
const json* find_option_value(const json& root, std::string_view key) {
    const json* node = &root;
    while (true) {
        const std::size_t dot = key.find('.');
        const std::string part(key.substr(0, dot));
        if (!node->is_object()) {
            return nullptr;
        }
        const auto it = node->find(part);
        if (it == node->end()) {
            return nullptr;
        }
        node = &*it;
        if (dot == std::string_view::npos) {
            return node;
        }
        key.remove_prefix(dot + 1);
    }
}

void write_option(json& out, const OptionSlot& slot) {
    std::visit(
        [&](auto p) {
            using P = decltype(p);
            if constexpr (std::is_same_v<P, WideSlot>) {
                out = *p.value;
            } else if constexpr (std::is_same_v<P, DenseIndexKind*>) {
                out = *p == DenseIndexKind::flat   ? "flat"
                      : *p == DenseIndexKind::hnsw ? "hnsw"
                                                   : "automatic";
            } else if constexpr (std::is_same_v<P, FusionMethod*>) {
                out = std::string(fusion_method_name(*p));
            } else {
                out = *p;  // bool, size_t, float and double keep their JSON kinds
            }
        },
        slot);
}

[[noreturn]] void refuse_option(const OptionField& field, const char* why) {
    throw BadField("option '" + std::string(field.key) + "' " + why);
}

void read_option(const json& v, const OptionField& field, const OptionSlot& slot) {
    std::visit(
        [&](auto p) {
            using P = decltype(p);
            if constexpr (std::is_same_v<P, bool*>) {
                if (!v.is_boolean()) {
                    refuse_option(field, "is not a boolean");
                }
                *p = v.get<bool>();
            } else if constexpr (std::is_same_v<P, DenseIndexKind*>) {
                const std::string name = v.is_string() ? v.get<std::string>() : "";
                if (name != "automatic" && name != "flat" && name != "hnsw") {
                    refuse_option(field, "names no known index kind");
                }
                *p = name == "flat"   ? DenseIndexKind::flat
                     : name == "hnsw" ? DenseIndexKind::hnsw
                                      : DenseIndexKind::automatic;
            } else if constexpr (std::is_same_v<P, FusionMethod*>) {
                const auto method =
                    v.is_string() ? parse_fusion_method(v.get<std::string>()) : std::nullopt;
                if (!method) {
                    refuse_option(field, "names no known fusion method");
                }
                *p = *method;
            } else if constexpr (std::is_same_v<P, WideSlot> || std::is_same_v<P, std::size_t*>) {
                if (!v.is_number_unsigned()) {
                    refuse_option(field, "is out of range");
                }
                const auto n = v.get<std::uint64_t>();
                if (static_cast<double>(n) < field.min || static_cast<double>(n) > field.max) {
                    refuse_option(field, "is out of range");
                }
                if constexpr (std::is_same_v<P, WideSlot>) {
                    *p.value = n;
                } else {
                    *p = static_cast<std::size_t>(n);
                }
            } else {
                const double d = v.is_number() ? v.get<double>() : std::nan("");
                if (!std::isfinite(d) || d < field.min || d > field.max) {
                    refuse_option(field, "is out of range");
                }
                *p = v.get<std::remove_pointer_t<P>>();
            }
        },
        slot);
}

void set_absent_option(const OptionField& field, const OptionSlot& slot) {
    switch (field.when_absent) {
        case WhenAbsent::required:
            throw BadField("missing option '" + std::string(field.key) + "'");
        case WhenAbsent::as_default:
            return;  // `slot` points into a default-constructed CatalogOptions
        case WhenAbsent::off:
        case WhenAbsent::largest:
            std::visit(
                [&](auto p) {
                    using P = decltype(p);
                    const bool largest = field.when_absent == WhenAbsent::largest;
                    if constexpr (std::is_same_v<P, WideSlot>) {
                        *p.value = largest ? std::numeric_limits<std::uint64_t>::max() : 0;
                    } else if constexpr (std::is_same_v<P, bool*>) {
                        *p = largest;
                    } else if constexpr (std::is_same_v<P, DenseIndexKind*> ||
                                         std::is_same_v<P, FusionMethod*>) {
                        throw BadField("missing option '" + std::string(field.key) + "'");
                    } else {
                        using T = std::remove_pointer_t<P>;
                        *p = largest ? std::numeric_limits<T>::max() : T{};
                    }
                },
                slot);
            return;
    }
}

}  // namespace

json options_to_json(const CatalogOptions& o) {
    CatalogOptions copy = o;
    json out = json::object();
    const auto fields = option_fields();
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (!fields[i].stored) {
            continue;
        }
        std::string_view last;
        json& parent = parent_for_write(out, fields[i].key, last);
        write_option(parent[std::string(last)], option_slot(copy, i));
    }
    return out;
}

Result<CatalogOptions> options_from_json(const json& j) {
    try {
        CatalogOptions o;
        const auto fields = option_fields();
        for (std::size_t i = 0; i < fields.size(); ++i) {
            if (!fields[i].stored) {
                continue;
            }
            const json* v = find_option_value(j, fields[i].key);
            if (v == nullptr) {
                set_absent_option(fields[i], option_slot(o, i));
            } else {
                read_option(*v, fields[i], option_slot(o, i));
            }
        }
        return o;
    } catch (const BadField& e) {
        return Status{Errc::corrupt, std::string("index file is corrupt: ") + e.what()};
    } catch (const json::exception& e) {
        return Status{Errc::corrupt,
                      std::string("index file is corrupt: bad options: ") + e.what()};
    }
}

}  // namespace scout::detail

// option_table_test.cpp: the table of settings covers every member of CatalogOptions once, reads
// and writes text within its bounds, and is what Catalog::create and the index file check.
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"
#include "scout/options.hpp"

#include "persist/options_json.hpp"
#include "util/aggregate_fields.hpp"

using scout::CatalogOptions;
using scout::OptionField;
using scout::OptionType;

namespace {

/// A value inside the field's bounds that differs from `current`.
std::string other_value(const OptionField& f, const std::string& current) {
    switch (f.type) {
        case OptionType::flag:
            return current == "true" ? "false" : "true";
        case OptionType::choice:
            if (f.key == "dense.kind") {
                return current == "flat" ? "hnsw" : "flat";
            }
            return current == "rrf" ? "score_blend" : "rrf";
        case OptionType::whole:
            return std::to_string(
                static_cast<std::uint64_t>(f.min) +
                (current == std::to_string(static_cast<std::uint64_t>(f.min)) ? 1 : 0));
        case OptionType::real:
            return current == "0.5" ? "0.25" : "0.5";
    }
    return "";
}

}  // namespace

TEST_CASE("the option table has one row per member of CatalogOptions", "[options]") {
    using scout::detail::aggregate_fields;
    // The leaves of CatalogOptions: its own scalars and those of its member structs.
    constexpr std::size_t leaves =
        aggregate_fields<scout::AnalyzerOptions>() + (aggregate_fields<scout::Bm25Options>() - 1) +
        aggregate_fields<scout::FieldWeights>() + aggregate_fields<scout::DenseOptions>() +
        aggregate_fields<scout::FusionOptions>() + aggregate_fields<scout::ExpansionOptions>() +
        (aggregate_fields<CatalogOptions>() - 5);
    const auto fields = scout::option_fields();
    REQUIRE(fields.size() == leaves);
    std::set<std::string_view> keys;
    for (const OptionField& f : fields) {
        CHECK(keys.insert(f.key).second);
        CHECK(scout::find_option(f.key) == &f);
        CHECK_FALSE(f.help.empty());
    }
    // Each row reaches its own member: changing one setting changes that row's text only.
    const CatalogOptions defaults;
    for (const OptionField& f : fields) {
        CAPTURE(f.key);
        CatalogOptions o;
        const std::string value = other_value(f, scout::option_text(o, f));
        REQUIRE(scout::set_option(o, f.key, value).ok());
        CHECK(scout::option_text(o, f) == value);
        CHECK_FALSE(o == defaults);
        for (const OptionField& g : fields) {
            if (&g != &f) {
                CHECK(scout::option_text(o, g) == scout::option_text(defaults, g));
            }
        }
    }
}

TEST_CASE("every stored setting survives the index file's JSON", "[options][persistence]") {
    CatalogOptions o;
    for (const OptionField& f : scout::option_fields()) {
        if (f.stored) {
            REQUIRE(scout::set_option(o, f.key, other_value(f, scout::option_text(o, f))).ok());
        }
    }
    const auto back = scout::detail::options_from_json(scout::detail::options_to_json(o));
    REQUIRE(back.ok());
    CHECK(*back == o);
    // threads is the process's, not the file's.
    REQUIRE(scout::set_option(o, "threads", "3").ok());
    CHECK_FALSE(scout::detail::options_to_json(o).contains("threads"));
}

TEST_CASE("set_option refuses unknown keys, bad text and values out of bounds", "[options]") {
    CatalogOptions o;
    const CatalogOptions before = o;
    for (const auto& [key, value] : {std::pair{"bm25.k3", "1"},
                                     std::pair{"", "1"},
                                     std::pair{"bm25.b", "1.5"},
                                     std::pair{"bm25.b", "-0.1"},
                                     std::pair{"bm25.b", "nan"},
                                     std::pair{"bm25.k1", "1e400"},
                                     std::pair{"bm25.k1", "inf"},
                                     std::pair{"bm25.k1", "1.2x"},
                                     std::pair{"bm25.k1", ""},
                                     std::pair{"dense.hnsw_m", "1"},
                                     std::pair{"dense.hnsw_m", "-16"},
                                     std::pair{"dense.hnsw_m", "16.5"},
                                     std::pair{"dense.seed", "18446744073709551616"},
                                     std::pair{"dense.kind", "ivf"},
                                     std::pair{"fusion.method", "RRF "},
                                     std::pair{"analyzer.stem", "yes"},
                                     std::pair{"threads", "1025"}}) {
        CAPTURE(key, value);
        const scout::Status s = scout::set_option(o, key, value);
        CHECK(s.code() == scout::Errc::invalid_argument);
    }
    CHECK(o == before);
    REQUIRE(scout::set_option(o, "dense.seed", "18446744073709551615").ok());
    CHECK(o.dense.seed == std::numeric_limits<std::uint64_t>::max());
    REQUIRE(scout::set_option(o, "bm25.b", "+0.5").ok());
    CHECK(o.bm25.b == 0.5f);
    const scout::Status s = scout::set_option(o, "dense.hnsw_m", "9999");
    CHECK(s.message() == "option dense.hnsw_m takes 2..1024, not '9999'");
}

TEST_CASE("Catalog::create refuses settings an index file could not read back", "[options]") {
    const auto refused = [](auto edit) {
        CatalogOptions o;
        edit(o);
        CHECK_FALSE(scout::check_options(o).ok());
        auto catalog = scout::Catalog::create(o);
        CHECK(catalog.status().code() == scout::Errc::invalid_argument);
    };
    refused([](CatalogOptions& o) { o.dense.hnsw_m = 1; });
    refused([](CatalogOptions& o) { o.bm25.b = 2.0f; });
    refused([](CatalogOptions& o) { o.bm25.k1 = std::nanf(""); });
    refused([](CatalogOptions& o) { o.analyzer.max_token_bytes = 0; });
    refused([](CatalogOptions& o) { o.fusion.fetch_factor = 0; });
    refused([](CatalogOptions& o) { o.expansion.neighbour_min_similarity = -2.0f; });
    refused([](CatalogOptions& o) { o.fusion.method = static_cast<scout::FusionMethod>(77); });
    refused([](CatalogOptions& o) { o.dense.kind = static_cast<scout::DenseIndexKind>(9); });
    CHECK(scout::check_options(CatalogOptions{}).ok());
    CHECK(scout::Catalog::create(CatalogOptions{}).ok());
}

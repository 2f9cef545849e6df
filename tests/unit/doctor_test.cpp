// doctor_test.cpp: the catalog doctor on a catalog with seeded defects (every one is found) and
// on its clean twin (no finding, every tool retrieves itself), plus its text helpers.
#include "scout/doctor.hpp"

#include <cstdlib>
#include <set>
#include <string>
#include <tuple>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scout/catalog.hpp"
#include "scout/catalog_loader.hpp"

#include "doctor/text.hpp"

namespace {

using Key = std::tuple<scout::FindingKind, std::string, std::string>;

std::string fixture(const std::string& name) {
    const char* dir = std::getenv("SCOUT_SOURCE_DIR");
    return std::string(dir != nullptr ? dir : ".") + "/tests/fixtures/doctor/" + name;
}

struct Diagnosed {
    scout::CatalogSpec spec;
    scout::DoctorReport report;
};

Diagnosed diagnose_fixture(const std::string& name, scout::DoctorOptions options = {}) {
    auto spec = scout::load_catalog_file(fixture(name));
    REQUIRE(spec.ok());
    auto catalog = scout::Catalog::create();
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(spec.value()).ok());
    REQUIRE(catalog->commit().ok());
    options.search.mode = scout::Mode::bm25;
    auto report = scout::diagnose(spec.value(), catalog->searcher(), options);
    REQUIRE(report.ok());
    return {std::move(spec.value()), std::move(report.value())};
}

std::set<Key> keys_of(const scout::DoctorReport& report) {
    std::set<Key> keys;
    for (const scout::Finding& f : report.findings) {
        keys.emplace(f.kind, f.server, f.tool);
    }
    return keys;
}

bool is_search_kind(scout::FindingKind kind) {
    return kind == scout::FindingKind::confusable ||
           kind == scout::FindingKind::near_duplicate_description;
}

}  // namespace

TEST_CASE("doctor finds no problem in a clean catalog", "[doctor]") {
    const Diagnosed d = diagnose_fixture("clean.json");
    for (const scout::Finding& f : d.report.findings) {
        UNSCOPED_INFO(scout::finding_kind_name(f.kind)
                      << " " << f.server << "/" << f.tool << ": " << f.detail);
    }
    CHECK(d.report.findings.empty());
    CHECK(d.report.tools == 6);
    CHECK(d.report.self_retrieval_checked == 6);
    CHECK(d.report.self_retrieval_rate() == 1.0);
    REQUIRE(d.report.health.size() == 2);
    for (const scout::ServerHealth& h : d.report.health) {
        CHECK(h.score == 100.0);
        CHECK(h.self_retrieved == h.tools);
    }
}

TEST_CASE("doctor finds every seeded defect", "[doctor]") {
    using K = scout::FindingKind;
    const Diagnosed d = diagnose_fixture("defects.json");
    const std::string long_name =
        "get_the_weather_station_metadata_for_every_station_known_to_the_service_x";
    const std::set<Key> seeded_static{
        {K::empty_server_description, "weather", ""},
        {K::empty_description, "mail", "list_inbox"},
        {K::short_description, "weather", "sunrise_sunset"},
        {K::missing_parameter_description, "mail", "send_email"},
        {K::untyped_schema, "weather", "get_forecast"},
        {K::invalid_name, "mail", "archive thread!"},
        {K::invalid_name, "weather", long_name},
        {K::duplicate_description, "mail", "mail_forecast"},
        {K::duplicate_description, "weather", "get_forecast"},
    };
    std::set<Key> found_static;
    for (const Key& k : keys_of(d.report)) {
        if (!is_search_kind(std::get<0>(k))) {
            found_static.insert(k);
        }
    }
    CHECK(found_static == seeded_static);

    const std::set<Key> found = keys_of(d.report);
    // The copied forecast description: one of the twins outranks the other, which ties at best.
    CHECK((found.count({K::confusable, "mail", "mail_forecast"}) +
           found.count({K::confusable, "weather", "get_forecast"})) == 2);
    // One word changed: a near-duplicate that search cannot tell apart.
    CHECK(found.count({K::near_duplicate_description, "weather", "pollen_report"}) +
              found.count({K::near_duplicate_description, "weather", "air_quality_index"}) >=
          1);

    // The tool without a description cannot retrieve itself, nor can the twin that loses the tie.
    CHECK(d.report.self_retrieval_checked == 9);
    CHECK(d.report.self_retrieved == 7);
    CHECK(d.report.count(scout::Severity::error) == 3);
    for (const scout::ServerHealth& h : d.report.health) {
        CHECK(h.score < 100.0);
    }
    for (const scout::Finding& f : d.report.findings) {
        CHECK(!f.fix.empty());
        CHECK(!f.detail.empty());
    }
}

TEST_CASE("doctor related tools name the duplicate", "[doctor]") {
    const Diagnosed d = diagnose_fixture("defects.json");
    bool seen = false;
    for (const scout::Finding& f : d.report.findings) {
        if (f.kind == scout::FindingKind::duplicate_description && f.tool == "mail_forecast") {
            REQUIRE(f.related.size() == 1);
            CHECK(f.related[0] == scout::ToolKey{"weather", "get_forecast"});
            CHECK(f.detail.find("other servers") != std::string::npos);
            seen = true;
        }
    }
    CHECK(seen);
}

TEST_CASE("doctor without self-retrieval runs the static checks only", "[doctor]") {
    scout::DoctorOptions options;
    options.self_retrieval = false;
    const Diagnosed d = diagnose_fixture("defects.json", options);
    CHECK(d.report.self_retrieval_checked == 0);
    CHECK(d.report.count(scout::FindingKind::confusable) == 0);
    CHECK(d.report.count(scout::FindingKind::empty_description) == 1);
}

TEST_CASE("doctor summary and JSON report carry the figures", "[doctor]") {
    const Diagnosed d = diagnose_fixture("defects.json");
    const std::string summary = scout::doctor_summary(d.report);
    CHECK(summary.find("9 tools on 2 servers") != std::string::npos);
    CHECK(summary.find("3 errors") != std::string::npos);
    CHECK(summary.find("self-retrieval") != std::string::npos);
    const auto json = nlohmann::json::parse(scout::doctor_report_json(d.report));
    CHECK(json["summary"]["tools"] == 9);
    CHECK(json["summary"]["errors"] == 3);
    CHECK(json["findings"].size() == d.report.findings.size());
    CHECK(json["summary"]["findings_by_kind"]["invalid_name"] == 2);
    CHECK(json["servers"].size() == 2);
}

TEST_CASE("doctor rejects options out of range", "[doctor]") {
    scout::DoctorOptions options;
    options.confusable_margin = 1.5;
    CHECK(scout::diagnose({}, scout::Searcher{}, options).status().code() ==
          scout::Errc::invalid_argument);
    options = {};
    options.self_search_top_k = 0;
    CHECK(!scout::diagnose({}, scout::Searcher{}, options).ok());
}

TEST_CASE("doctor text helpers", "[doctor]") {
    using namespace scout::detail;
    CHECK(identifier_words("getUserProfile") == "get user profile");
    CHECK(identifier_words("list_inbox-items.v2") == "list inbox items v2");
    CHECK(identifier_words("HTTPServerStatus") == "http server status");
    CHECK(normalized_description("  Send an E-mail!  ") == "send an e mail");
    CHECK(word_jaccard(description_words("a b c"), description_words("a b d")) == 0.5);
    CHECK(word_jaccard({}, description_words("a")) == 0.0);
    CHECK(valid_api_name("send_email-2", 64));
    CHECK(!valid_api_name("send email", 64));
    CHECK(!valid_api_name(std::string(65, 'a'), 64));
    CHECK(!valid_api_name("", 64));
}

// options_json_test.cpp: the options an index file records, and what older files read as.
#include "persist/options_json.hpp"

#include <limits>

#include <catch2/catch.hpp>

using scout::CatalogOptions;

TEST_CASE("int8_min_tools survives the options JSON, files without it never choose int8",
          "[persistence][dense]") {
    CatalogOptions o;
    o.dense.int8_min_tools = 4321;
    nlohmann::json j = scout::detail::options_to_json(o);
    auto back = scout::detail::options_from_json(j);
    REQUIRE(back.ok());
    CHECK(back->dense.int8_min_tools == 4321);
    CHECK(*back == o);
    // A format 1.2 file: its exact search was fp32 at every size, and stays so.
    j["dense"].erase("int8_min_tools");
    back = scout::detail::options_from_json(j);
    REQUIRE(back.ok());
    CHECK(back->dense.int8_min_tools == std::numeric_limits<std::size_t>::max());
    j["dense"]["int8_min_tools"] = -1;
    CHECK_FALSE(scout::detail::options_from_json(j).ok());
}

TEST_CASE("hnsw_int8 survives the options JSON, files without it keep fp32 graphs",
          "[persistence][dense]") {
    CatalogOptions o;
    CHECK(o.dense.hnsw_int8);
    o.dense.hnsw_int8 = false;
    nlohmann::json j = scout::detail::options_to_json(o);
    auto back = scout::detail::options_from_json(j);
    REQUIRE(back.ok());
    CHECK(*back == o);
    o.dense.hnsw_int8 = true;
    j = scout::detail::options_to_json(o);
    back = scout::detail::options_from_json(j);
    REQUIRE(back.ok());
    CHECK(back->dense.hnsw_int8);
    // A format 1.3 file: its graph compared fp32 rows, and still does.
    j["dense"].erase("hnsw_int8");
    back = scout::detail::options_from_json(j);
    REQUIRE(back.ok());
    CHECK_FALSE(back->dense.hnsw_int8);
    j["dense"]["hnsw_int8"] = "yes";
    CHECK_FALSE(scout::detail::options_from_json(j).ok());
}

TEST_CASE("hnsw_ef_base_tools survives the options JSON, files without it keep a fixed width",
          "[persistence][dense]") {
    CatalogOptions o;
    CHECK(o.dense.hnsw_ef_base_tools == 20000);
    o.dense.hnsw_ef_base_tools = 5000;
    nlohmann::json j = scout::detail::options_to_json(o);
    auto back = scout::detail::options_from_json(j);
    REQUIRE(back.ok());
    CHECK(*back == o);
    // A format 1.4 file searched its graph with hnsw_ef_search at every size, and still does.
    j["dense"].erase("hnsw_ef_base_tools");
    back = scout::detail::options_from_json(j);
    REQUIRE(back.ok());
    CHECK(back->dense.hnsw_ef_base_tools == 0);
    j["dense"]["hnsw_ef_base_tools"] = -3;
    CHECK_FALSE(scout::detail::options_from_json(j).ok());
    j["dense"]["hnsw_ef_base_tools"] = "many";
    CHECK_FALSE(scout::detail::options_from_json(j).ok());
}

// events_test.cpp: the event sink, the JSON-lines rendering, the gateway event helpers, the
// latency histogram and the statistics a Catalog exposes.
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scout/scout.hpp"

#include "telemetry/latency_histogram.hpp"

namespace {

std::vector<nlohmann::json> lines_of(const std::string& text) {
    std::vector<nlohmann::json> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        out.push_back(nlohmann::json::parse(line));
    }
    return out;
}

class FailingEmbedder final : public scout::Embedder {
public:
    std::string model_id() const override { return "flaky"; }
    std::size_t dim() const override { return 8; }
    scout::Result<std::vector<float>> embed(std::span<const std::string> texts) override {
        if (texts.size() == 1 && texts[0].rfind("q:", 0) == 0) {
            return scout::Status{scout::Errc::unavailable, "model server down"};
        }
        return scout::HashingEmbedder(8).embed(texts);
    }
};

class ThrowingSink final : public scout::EventSink {
public:
    void emit(const scout::Event&) override { throw std::runtime_error("disk full"); }
};

scout::Catalog make_catalog(std::shared_ptr<scout::Embedder> embedder) {
    auto c = scout::Catalog::create({}, std::move(embedder));
    REQUIRE(c.ok());
    REQUIRE(c->upsert_server({"jira",
                              "issue tracker",
                              "",
                              "prod",
                              scout::ServerStatus::active,
                              {{"create_issue", "", "create a new issue", "", ""},
                               {"get_issue", "", "get an issue", "", ""}}})
                .ok());
    REQUIRE(c->commit().ok());
    return std::move(c.value());
}

}  // namespace

TEST_CASE("latency histogram buckets and quantiles", "[events][histogram]") {
    using H = scout::detail::LatencyHistogram;
    CHECK(H::bucket_of(0) == 0);
    CHECK(H::bucket_of(1) == 1);
    for (std::uint64_t us : {1ULL, 2ULL, 3ULL, 5ULL, 100ULL, 1000ULL, 12345ULL, 1ULL << 30U}) {
        const std::size_t b = H::bucket_of(us);
        INFO(us);
        CHECK(static_cast<double>(us) < H::upper_bound_us(b));
        CHECK(static_cast<double>(us) >= (b == 0 ? 0.0 : H::upper_bound_us(b - 1)));
        CHECK(H::upper_bound_us(b) <= static_cast<double>(us) * 1.25 + 1.0);
    }
    CHECK(H::bucket_of(~0ULL) == H::kBuckets - 1);
    H h;
    CHECK(h.quantile_us(0.5) == 0.0);
    for (int i = 0; i < 90; ++i) {
        h.record(100);
    }
    for (int i = 0; i < 10; ++i) {
        h.record(10000);
    }
    CHECK(h.quantile_us(0.5) == H::upper_bound_us(H::bucket_of(100)));
    CHECK(h.quantile_us(0.90) == H::upper_bound_us(H::bucket_of(100)));
    CHECK(h.quantile_us(0.95) == H::upper_bound_us(H::bucket_of(10000)));
    CHECK(h.quantile_us(1.0) == H::upper_bound_us(H::bucket_of(10000)));
}

TEST_CASE("searches emit tool_search_completed as JSON lines", "[events]") {
    scout::Catalog catalog = make_catalog(std::make_shared<scout::HashingEmbedder>(8));
    std::ostringstream log;
    catalog.set_event_sink(std::make_shared<scout::JsonLinesSink>(log));
    scout::SearchOptions opt;
    opt.top_k = 50;  // clamped to 20 in the event
    opt.servers = std::vector<std::string>{"jira", "other"};
    opt.environment = "prod";
    REQUIRE(catalog.searcher().search("create issue", opt).ok());
    REQUIRE_FALSE(catalog.searcher().search("", opt).ok());  // failures are counted, not emitted
    auto lines = lines_of(log.str());
    REQUIRE(lines.size() == 1);
    const auto& e = lines[0];
    CHECK(e["event"] == "tool_search_completed");
    CHECK(e["scope"] == "jira,other");
    CHECK(e["environment"] == "prod");
    CHECK(e["k"] == 20);
    CHECK(e["results"] == 2);
    CHECK(e["mode"] == "hybrid");
    CHECK(e["degraded"] == false);
    CHECK(e["generation"] == 1);
    CHECK(e["latency_ms"].get<double>() >= 0.0);
    CHECK_FALSE(e.contains("query"));
    CHECK(e["query_hash"].get<std::string>().size() == 16);

    catalog.set_event_sink(std::make_shared<scout::JsonLinesSink>(log),
                           {.include_query_text = true});
    REQUIRE(catalog.searcher().search("get issue").ok());
    lines = lines_of(log.str());
    REQUIRE(lines.size() == 2);
    CHECK(lines[1]["query"] == "get issue");
    CHECK(lines[1]["scope"] == "*");

    catalog.set_event_sink(nullptr);
    REQUIRE(catalog.searcher().search("get issue").ok());
    CHECK(lines_of(log.str()).size() == 2);

    const scout::SearchStats stats = catalog.stats();
    CHECK(stats.searches == 3);
    CHECK(stats.failures == 1);
    CHECK(stats.fallbacks == 0);
    CHECK(stats.fallback_rate == 0.0);
    CHECK(stats.p50_ms > 0.0);
    CHECK(stats.p99_ms <= stats.max_ms);
}

TEST_CASE("a degraded search emits tool_search_fallback and counts in the fallback rate",
          "[events]") {
    scout::Catalog catalog = make_catalog(std::make_shared<FailingEmbedder>());
    std::ostringstream log;
    catalog.set_event_sink(std::make_shared<scout::JsonLinesSink>(log));
    auto r = catalog.searcher().search("q: create issue");
    REQUIRE(r.ok());
    REQUIRE(r->degraded);
    REQUIRE(catalog.searcher().search("create issue").ok());
    auto lines = lines_of(log.str());
    REQUIRE(lines.size() == 3);
    CHECK(lines[0]["event"] == "tool_search_completed");
    CHECK(lines[0]["degraded"] == true);
    CHECK(lines[0]["mode"] == "bm25");
    CHECK(lines[0]["requested_mode"] == "hybrid");
    CHECK(lines[1]["event"] == "tool_search_fallback");
    CHECK_THAT(lines[1]["reason"].get<std::string>(), Catch::Contains("model server down"));
    CHECK(lines[1]["kind"] == "dense_unavailable");
    CHECK(lines[2]["event"] == "tool_search_completed");
    const scout::SearchStats stats = catalog.stats();
    CHECK(stats.searches == 2);
    CHECK(stats.fallbacks == 1);
    CHECK(stats.fallback_rate == Approx(0.5));

    auto empty = scout::Catalog::create();
    REQUIRE(empty.ok());
    std::ostringstream empty_log;
    empty->set_event_sink(std::make_shared<scout::JsonLinesSink>(empty_log));
    REQUIRE(empty->searcher().search("anything").ok());
    lines = lines_of(empty_log.str());
    REQUIRE(lines.size() == 2);
    CHECK(lines[1]["kind"] == "catalog_empty");
}

TEST_CASE("a throwing sink never fails a search", "[events]") {
    scout::Catalog catalog = make_catalog(nullptr);
    catalog.set_event_sink(std::make_shared<ThrowingSink>());
    auto r = catalog.searcher().search("create issue");
    REQUIRE(r.ok());
    CHECK(r->hits.size() == 2);
    CHECK(catalog.stats().searches == 1);
}

TEST_CASE("gateway event helpers and JSON rendering", "[events]") {
    CHECK(scout::event_to_json(scout::tools_list_event(true, 2)) ==
          R"({"event":"tools_list","meta_tools":true,"tool_count":2})");
    CHECK(
        scout::event_to_json(scout::tool_execute_completed_event("jira", "create_issue", 12.5)) ==
        R"({"event":"tool_execute_completed","server":"jira","tool":"create_issue","latency_ms":12.5})");
    const scout::Event failed =
        scout::tool_execute_failed_event("jira", "x\"y\n\xff", 3.0, "timeout");
    const auto j = nlohmann::json::parse(scout::event_to_json(failed));
    CHECK(j["error_class"] == "timeout");
    CHECK(j["tool"] == "x\"y\n\xEF\xBF\xBD");  // escaped; invalid UTF-8 replaced
    REQUIRE(failed.find("server") != nullptr);
    CHECK(std::get<std::string>(*failed.find("server")) == "jira");
    CHECK(failed.find("missing") == nullptr);

    const auto path = std::filesystem::temp_directory_path() /
                      ("scout-events-" + std::to_string(::getpid()) + ".jsonl");
    std::filesystem::remove(path);
    auto sink = scout::JsonLinesSink::open_file(path);
    REQUIRE(sink.ok());
    sink.value()->emit(scout::tools_list_event(false, 650));
    sink.value()->emit(scout::tools_list_event(true, 2));
    sink = scout::JsonLinesSink::open_file(path);  // appends
    REQUIRE(sink.ok());
    sink.value()->emit(scout::tools_list_event(true, 2));
    std::ifstream in(path);
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(lines_of(all).size() == 3);
    std::filesystem::remove(path);
    CHECK(scout::JsonLinesSink::open_file("/nonexistent-dir/x.jsonl").status().code() ==
          scout::Errc::io_error);
}

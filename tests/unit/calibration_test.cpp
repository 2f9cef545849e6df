// calibration_test.cpp: the calibration file (round trip, refusals), its settings surviving an
// index's save and open, and fit_fusion on small constructed catalogs: a noise dense branch
// leaves BM25's order alone, a strong one (the label-aware stand-in) is let through.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"

#include "eval/calibration_fit.hpp"
#include "support/label_aware_embedder.hpp"
#include "support/temp_dir.hpp"

namespace {

using scout::Calibration;

Calibration sample_calibration() {
    Calibration c;
    c.model_id = "static-256d-test";
    c.fusion.gated_dense_weight = 0.75;
    c.fusion.overlap_power = 0.5;
    c.fusion.gated_confidence_power = 1;
    c.notes = "fitted on two sources\nsecond line";
    return c;
}

/// Distinct letter-only words (no digits, which the analyzer would split off).
std::string word(std::size_t i) {
    static const char* syllables[] = {"ba", "ke", "ti", "mo", "ru", "sa", "ne", "lo", "pi", "du"};
    return std::string(syllables[i / 100 % 10]) + syllables[i / 10 % 10] + syllables[i % 10] + "x";
}

struct Constructed {
    scout::CatalogSpec catalog;
    std::vector<scout::eval::LabelledQuery> queries;
    std::vector<bool> bm25_misses;  ///< per query: worded after another tool than its gold one
};

/// `tools` tools whose names and descriptions use words from `offset` on. Each tool has an easy
/// query (its own words) and a hard one, worded with the next tool's second word: BM25 ranks that
/// next tool first, never the gold one.
Constructed constructed(std::size_t offset, std::size_t tools = 30) {
    Constructed out;
    for (std::size_t s = 0; s < 3; ++s) {
        scout::ServerSpec server;
        server.name = "server" + word(offset + 900 + s);
        server.description = "service";
        out.catalog.servers.push_back(server);
    }
    for (std::size_t i = 0; i < tools; ++i) {
        scout::ToolSpec tool;
        tool.name = "op_" + word(offset + i);
        tool.description =
            "handles " + word(offset + i) + " records and " + word(offset + 300 + i) + " entries";
        out.catalog.servers[i % 3].tools.push_back(tool);
    }
    for (std::size_t i = 0; i < tools; ++i) {
        const scout::ToolKey gold{out.catalog.servers[i % 3].name, "op_" + word(offset + i)};
        out.queries.push_back({"easy" + std::to_string(i), word(offset + i) + " records", {gold}});
        out.bm25_misses.push_back(false);
        out.queries.push_back({"hard" + std::to_string(i),
                               "find " + word(offset + 300 + (i + 1) % tools) + " entries",
                               {gold}});
        out.bm25_misses.push_back(true);
    }
    return out;
}

scout::Searcher index_with(const Constructed& d, double keep) {
    auto embedder =
        std::make_shared<scout::testing::LabelAwareEmbedder>(d.catalog, d.queries, keep, 7);
    auto catalog = scout::Catalog::create({}, embedder);
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(d.catalog).ok());
    REQUIRE(catalog->commit().ok());
    return catalog->searcher();
}

/// Fits on two constructed sources whose stand-in places `keep` of their queries.
scout::FusionOptions fit_with(double keep) {
    std::vector<scout::eval::CalibrationSource> sources;
    for (const std::size_t offset : {std::size_t{0}, std::size_t{40}}) {
        const Constructed d = constructed(offset);
        sources.push_back({"source" + std::to_string(offset), index_with(d, keep), d.queries});
    }
    return scout::eval::fit_fusion(sources).fusion;
}

std::string top_tool(const scout::Searcher& s,
                     const std::string& query,
                     scout::Mode mode,
                     const scout::FusionOptions& fusion) {
    scout::SearchOptions options;
    options.mode = mode;
    options.fusion = fusion;
    auto r = s.search(query, options);
    REQUIRE(r.ok());
    return r->hits.empty() ? std::string() : r->hits[0].tool;
}

}  // namespace

TEST_CASE("a calibration file reads back to the same settings", "[calibration]") {
    const Calibration c = sample_calibration();
    const std::string text = scout::format_calibration(c);
    auto back = scout::parse_calibration(text);
    REQUIRE(back.ok());
    CHECK(back.value() == c);
    CHECK(back->fusion.gated_dense_weight == 0.75);
    CHECK(back->fusion.method == scout::FusionMethod::gated);
}

TEST_CASE("a truncated, mismatched or malformed calibration file is refused", "[calibration]") {
    const std::string text = scout::format_calibration(sample_calibration());
    const auto refused = [](const std::string& bytes, const std::string& says) {
        auto r = scout::parse_calibration(bytes);
        REQUIRE_FALSE(r.ok());
        INFO(r.status().message());
        CHECK(r.status().message().find(says) != std::string::npos);
    };
    SECTION("truncated") {
        refused(text.substr(0, text.find("end\n")), "truncated");
        refused(text.substr(0, text.size() / 2), "truncated");
        refused("", "empty");
    }
    SECTION("another version or no header") {
        std::string other = text;
        other.replace(0, scout::kCalibrationHeader.size(), "scout-calibration 2");
        auto r = scout::parse_calibration(other);
        REQUIRE_FALSE(r.ok());
        CHECK(r.status().code() == scout::Errc::version_unsupported);
        refused(text.substr(text.find('\n') + 1), "not a calibration file");
    }
    SECTION("unknown, repeated, out-of-bounds or non-finite values") {
        const auto with_line = [&](const std::string& line) {
            std::string bytes = text;
            bytes.insert(bytes.find("end\n"), line + "\n");
            return bytes;
        };
        refused(with_line("fusion.nonsense 1"), "unknown key");
        refused(with_line("bm25.k1 1.2"), "unknown key");
        refused(with_line("fusion.overlap_power 1"), "given twice");
        std::string bad = text;
        bad.replace(
            bad.find("fusion.gated_dense_weight 0.75"), 30, "fusion.gated_dense_weight nan");
        refused(bad, "not a finite number");
        bad = text;
        bad.replace(
            bad.find("fusion.gated_dense_weight 0.75"), 30, "fusion.gated_dense_weight -1.0");
        refused(bad, "fusion.gated_dense_weight");
        refused(with_line("fusion.method hybridish"), "fusion.method");
        refused(with_line("garbage"), "expected 'KEY VALUE'");
        std::string no_model = text;
        no_model.erase(no_model.find("model "),
                       no_model.find('\n', no_model.find("model ")) - no_model.find("model ") + 1);
        refused(no_model, "names no model");
        refused(text + "more\n", "after the end line");
    }
}

TEST_CASE("a calibration file that cannot be read or parsed is refused, naming it once",
          "[calibration]") {
    const scout::test::TempDir dir;
    const auto once = [](const scout::Status& s, const std::string& path, const std::string& why) {
        INFO(s.message());
        const std::string& m = s.message();
        CHECK(m.rfind("calibration file " + path, 0) == 0);
        CHECK(m.find(path, m.find(path) + path.size()) == std::string::npos);  // named once
        CHECK(m.find(why) != std::string::npos);
    };
    const std::string missing = dir.file("missing.txt");
    auto r = scout::read_calibration(missing);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == scout::Errc::not_found);
    once(r.status(), missing, "no such file");

    const std::string truncated = dir.write("truncated.txt", "scout-calibration 1\nmodel m\n");
    r = scout::read_calibration(truncated);
    REQUIRE_FALSE(r.ok());
    once(r.status(), truncated, "truncated");

    const std::string good = dir.write("good.txt", scout::format_calibration(sample_calibration()));
    r = scout::read_calibration(good);
    REQUIRE(r.ok());
    CHECK(r.value() == sample_calibration());
}

TEST_CASE("calibrated fusion settings survive an index's save and open", "[calibration]") {
    const Calibration c = sample_calibration();
    scout::CatalogOptions options;
    options.fusion = c.fusion;
    auto embedder = std::make_shared<scout::HashingEmbedder>(32);
    auto catalog = scout::Catalog::create(options, embedder);
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(constructed(0, 6).catalog).ok());
    REQUIRE(catalog->commit().ok());
    scout::test::TempDir dir;
    REQUIRE(catalog->save(dir.file("calibrated.scoutidx")).ok());
    auto opened = scout::Catalog::open(dir.file("calibrated.scoutidx"), embedder);
    REQUIRE(opened.ok());
    CHECK(opened->options().fusion == c.fusion);
    CHECK_FALSE(opened->options().fusion == scout::FusionOptions{});
}

TEST_CASE("a noise dense branch calibrates to BM25's order", "[calibration]") {
    // keep 0: the stand-in places no query, every vector is unrelated to every other.
    const scout::FusionOptions fitted = fit_with(0.0);
    INFO(scout::eval::describe_fusion(fitted));
    CHECK(fitted.gated_dense_weight == 0.0);
    const Constructed test = constructed(80);
    const scout::Searcher s = index_with(test, 0.0);
    for (const auto& q : test.queries) {
        scout::SearchOptions bm25;
        bm25.mode = scout::Mode::bm25;
        auto alone = s.search(q.query, bm25);
        scout::SearchOptions hybrid;
        hybrid.fusion = fitted;
        auto fused = s.search(q.query, hybrid);
        REQUIRE(alone.ok());
        REQUIRE(fused.ok());
        INFO(q.query);
        REQUIRE(fused->hits.size() >= alone->hits.size());
        // The same ranking as BM25's: position by position a hit of the same BM25 score (tools
        // BM25 scores alike may come in another order: the dense list breaks such ties).
        for (std::size_t i = 0; i < alone->hits.size(); ++i) {
            INFO("position " << i);
            CHECK(fused->hits[i].bm25_rank != 0);
            CHECK(fused->hits[i].bm25_score == alone->hits[i].score);
        }
        CHECK(fused->hits[0].id == alone->hits[0].id);
    }
}

TEST_CASE("a strong dense branch is not suppressed once calibrated", "[calibration]") {
    const scout::FusionOptions fitted = fit_with(1.0);
    INFO(scout::eval::describe_fusion(fitted));
    const Constructed test = constructed(80);
    const scout::Searcher s = index_with(test, 1.0);
    std::size_t bm25_missed = 0;
    std::size_t recovered = 0;
    for (std::size_t i = 0; i < test.queries.size(); ++i) {
        const auto& q = test.queries[i];
        const std::string gold = q.relevant[0].tool;
        const std::string bm25 = top_tool(s, q.query, scout::Mode::bm25, {});
        const std::string calibrated = top_tool(s, q.query, scout::Mode::hybrid, fitted);
        if (test.bm25_misses[i]) {
            CHECK(bm25 != gold);  // the construction: BM25 reads the next tool's word
            ++bm25_missed;
            recovered += calibrated == gold ? 1U : 0U;
        } else {
            CHECK(calibrated == gold);  // and what BM25 already found stays found
        }
    }
    REQUIRE(bm25_missed == 30);
    CHECK(recovered == bm25_missed);
}

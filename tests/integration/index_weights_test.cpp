// index_weights_test.cpp: the BM25 weighted tfs and document lengths an index file keeps (its
// BMTF section): the first commit after an open renders only the tools that changed and gives
// the hits of a fresh build, and a section that is cut short, miscounted or disagrees with the
// postings is refused.
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/scout.hpp"

#include "persist/container.hpp"
#include "support/section_rewrite.hpp"

namespace fs = std::filesystem;

namespace {

fs::path weights_temp_dir() {
    static std::atomic<int> n{0};
    const fs::path dir =
        fs::temp_directory_path() /
        ("scout-weights-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

std::vector<std::uint8_t> weights_read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void weights_write_bytes(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

scout::ServerSpec weights_server(const std::string& name, std::size_t tools) {
    static const char* verbs[] = {"create", "delete", "list", "update", "search", "read"};
    static const char* things[] = {"issue", "file", "user", "message", "page", "invoice"};
    scout::ServerSpec s{name, name + " service", "", "", scout::ServerStatus::active, {}};
    for (std::size_t i = 0; i < tools; ++i) {
        const std::string verb = verbs[i % 6];
        const std::string thing = things[(i / 6) % 6];
        s.tools.push_back({verb + "_" + thing + "_" + std::to_string(i),
                           "",
                           verb + " a " + thing + " in " + name + (i % 4 == 0 ? " quickly" : ""),
                           R"({"type":"object","properties":{"id":{"type":"string"}}})",
                           ""});
    }
    return s;
}

scout::CatalogSpec first_spec() {
    scout::CatalogSpec spec;
    spec.servers = {
        weights_server("drive", 30), weights_server("jira", 40), weights_server("wiki", 12)};
    return spec;
}

scout::Catalog build(const scout::CatalogSpec& spec) {
    auto c = scout::Catalog::create({}, std::make_shared<scout::HashingEmbedder>(32));
    REQUIRE(c.ok());
    REQUIRE(c->upsert_servers(spec).ok());
    REQUIRE(c->commit().ok());
    return std::move(c.value());
}

/// Every query's hits with their scores and ranks.
std::vector<std::string> hits(const scout::Searcher& searcher) {
    std::vector<std::string> out;
    for (const char* q :
         {"create an issue quickly", "delete file", "list users in wiki", "invoice", "page"}) {
        auto r = searcher.search(q, {.top_k = 10});
        REQUIRE(r.ok());
        for (const auto& h : r->hits) {
            out.push_back(std::string(q) + " -> " + h.name + "@" + std::to_string(h.score) + "/" +
                          std::to_string(h.bm25_rank) + "/" + std::to_string(h.dense_rank));
        }
    }
    return out;
}

bool is_weights(const scout::detail::SectionOut& s) {
    return s.kind == scout::detail::fourcc("BMTF");
}

}  // namespace

TEST_CASE("the first commit after opening an index renders only the tools that changed",
          "[persistence][bm25-weights]") {
    const fs::path dir = weights_temp_dir();
    REQUIRE(build(first_spec()).save(dir / "base.scoutidx").ok());

    scout::CatalogSpec last = first_spec();
    const bool same_layout = GENERATE(true, false);
    INFO("servers keep their layout: " << same_layout);
    last.servers[1].tools[3].description += " and archive it";
    std::size_t changed = 1;
    if (!same_layout) {  // a server described anew and a server added
        last.servers[2].description = "the team's wiki pages";
        last.servers.push_back(weights_server("mail", 5));
        changed += last.servers[2].tools.size() + 5;
    }
    auto opened =
        scout::Catalog::open(dir / "base.scoutidx", std::make_shared<scout::HashingEmbedder>(32));
    REQUIRE(opened.ok());
    REQUIRE(opened->upsert_servers(last).ok());
    auto info = opened->commit();
    REQUIRE(info.ok());
    CHECK(info->rendered == changed);
    CHECK(info->embedded == changed);
    CHECK(hits(opened->searcher()) == hits(build(last).searcher()));

    // The commit after that one patches on from the seeded documents.
    last.servers[0].tools[0].description = "remove every file of a folder";
    REQUIRE(opened->upsert_servers(last).ok());
    info = opened->commit();
    REQUIRE(info.ok());
    CHECK(info->rendered == 1);
    CHECK(hits(opened->searcher()) == hits(build(last).searcher()));
    fs::remove_all(dir);
}

TEST_CASE("an index file without BM25 weights opens and its first commit renders every tool",
          "[persistence][bm25-weights]") {
    const fs::path dir = weights_temp_dir();
    REQUIRE(build(first_spec()).save(dir / "base.scoutidx").ok());
    const std::vector<std::uint8_t> good = weights_read_bytes(dir / "base.scoutidx");
    // Dropped (a file of an older version), or of a newer layout (skipped like an unknown
    // section).
    const bool dropped = GENERATE(true, false);
    weights_write_bytes(dir / "old.scoutidx",
                        scout::test::rewrite_sections(good, scout::kIndexFormatMinor, [&](auto& s) {
                            if (is_weights(s) && !dropped) {
                                s.version = 2;
                            }
                            return !(is_weights(s) && dropped);
                        }));
    auto opened =
        scout::Catalog::open(dir / "old.scoutidx", std::make_shared<scout::HashingEmbedder>(32));
    REQUIRE(opened.ok());
    scout::CatalogSpec last = first_spec();
    last.servers[1].tools[3].description += " and archive it";
    REQUIRE(opened->upsert_servers(last).ok());
    auto info = opened->commit();
    REQUIRE(info.ok());
    CHECK(info->rendered == 82);
    CHECK(info->embedded == 1);
    CHECK(hits(opened->searcher()) == hits(build(last).searcher()));
    fs::remove_all(dir);
}

TEST_CASE("a BMTF section cut short, miscounted or disagreeing with the postings is refused",
          "[persistence][bm25-weights]") {
    const fs::path dir = weights_temp_dir();
    REQUIRE(build(first_spec()).save(dir / "base.scoutidx").ok());
    const std::vector<std::uint8_t> good = weights_read_bytes(dir / "base.scoutidx");
    const auto open_with = [&](const std::function<void(std::string&)>& damage) {
        weights_write_bytes(
            dir / "bad.scoutidx",
            scout::test::rewrite_sections(good, scout::kIndexFormatMinor, [&](auto& s) {
                if (is_weights(s)) {
                    damage(s.bytes);
                }
                return true;
            }));
        return scout::Catalog::open(dir / "bad.scoutidx",
                                    std::make_shared<scout::HashingEmbedder>(32));
    };
    const auto refused = [&](const std::function<void(std::string&)>& damage,
                             const std::string& why) {
        auto opened = open_with(damage);
        REQUIRE_FALSE(opened.ok());
        CHECK(opened.status().code() == scout::Errc::corrupt);
        CHECK_THAT(opened.status().message(), Catch::Contains("BMTF"));
        CHECK_THAT(opened.status().message(), Catch::Contains(why));
    };
    REQUIRE(open_with([](std::string&) {}).ok());  // the rewrite itself changes nothing
    refused([](std::string& b) { b.resize(b.size() - 4); }, "runs past the end");
    refused([](std::string& b) { b.resize(10); }, "runs past the end");
    refused([](std::string& b) { b.push_back('\0'); }, "trailing bytes");
    refused([](std::string& b) { b[0] = static_cast<char>(b[0] + 1); }, "differ from the BM25");
    refused([](std::string& b) { b[8] = static_cast<char>(b[8] + 1); }, "differ from the BM25");
    const auto set_float = [](std::string& b, std::size_t at, float value) {
        std::memcpy(b.data() + at, &value, sizeof value);
    };
    const auto get_float = [](const std::string& b, std::size_t at) {
        float value = 0;
        std::memcpy(&value, b.data() + at, sizeof value);
        return value;
    };
    // The first posting's tf doubled: its document's length and the stored impacts no longer
    // follow from it.
    refused([&](std::string& b) { set_float(b, 16, 2 * get_float(b, 16)); }, "disagrees");
    refused([&](std::string& b) { set_float(b, 16, -1.0f); }, "positive");
    refused([&](std::string& b) { set_float(b, b.size() - 4, 1e6f); }, "sum of its tfs");
    // Weights with no BM25 section to belong to.
    weights_write_bytes(dir / "bad.scoutidx",
                        scout::test::rewrite_sections(good, scout::kIndexFormatMinor, [](auto& s) {
                            return s.kind != scout::detail::fourcc("BM25");
                        }));
    auto orphan =
        scout::Catalog::open(dir / "bad.scoutidx", std::make_shared<scout::HashingEmbedder>(32));
    REQUIRE_FALSE(orphan.ok());
    CHECK_THAT(orphan.status().message(), Catch::Contains("BMTF section without a BM25"));
    fs::remove_all(dir);
}

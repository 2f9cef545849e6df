// index_weights_test.cpp: the BM25 weighted tfs and document lengths an index file keeps (its
// BMTF section): the first commit after an open renders only the tools that changed and gives
// the hits of a fresh build, and a section that is cut short, miscounted or disagrees with the
// postings is refused. An embedder that does not read the corpus is not fitted after an open, and
// the stored tools' texts it is then asked to embed are the fresh build's.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
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

/// The hashing embedder with a switch for reads_corpus() and a model variant that changes every
/// vector (each text is embedded with the variant in front); records the corpora fit() was given
/// and the texts embed() was asked for.
class CorpusProbeEmbedder final : public scout::Embedder {
public:
    explicit CorpusProbeEmbedder(bool reads, std::string variant = "a")
        : reads_(reads), variant_(std::move(variant)) {}
    std::string model_id() const override {
        std::lock_guard lock(mu_);
        return "probe-" + variant_;
    }
    std::size_t dim() const override { return inner_.dim(); }
    scout::Result<std::vector<float>> embed(std::span<const std::string> texts) override {
        std::vector<std::string> marked;
        {
            std::lock_guard lock(mu_);
            for (const std::string& text : texts) {
                embedded_.push_back(text);
                marked.push_back(variant_ + " " + text);
            }
        }
        return inner_.embed(marked);
    }
    void fit(std::span<const std::string> corpus) override {
        std::lock_guard lock(mu_);
        fitted_.emplace_back(corpus.begin(), corpus.end());
    }
    bool reads_corpus() const override { return reads_; }

    void set_variant(std::string variant) {
        std::lock_guard lock(mu_);
        variant_ = std::move(variant);
    }
    /// The texts embedded since the last call, sorted.
    std::vector<std::string> take_embedded() {
        std::lock_guard lock(mu_);
        std::vector<std::string> out = std::move(embedded_);
        embedded_.clear();
        std::sort(out.begin(), out.end());
        return out;
    }
    std::vector<std::vector<std::string>> fitted() const {
        std::lock_guard lock(mu_);
        return fitted_;
    }

private:
    scout::HashingEmbedder inner_{32};
    bool reads_;
    mutable std::mutex mu_;
    std::string variant_;
    std::vector<std::string> embedded_;
    std::vector<std::vector<std::string>> fitted_;
};

/// A catalog of `spec` committed with `embedder`.
scout::Catalog build_with(const scout::CatalogSpec& spec,
                          const std::shared_ptr<scout::Embedder>& embedder) {
    auto c = scout::Catalog::create({}, embedder);
    REQUIRE(c.ok());
    REQUIRE(c->upsert_servers(spec).ok());
    REQUIRE(c->commit().ok());
    return std::move(c.value());
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

TEST_CASE("seeded documents keep their terms in the postings through later commits",
          "[persistence][bm25-weights]") {
    const fs::path dir = weights_temp_dir();
    REQUIRE(build(first_spec()).save(dir / "base.scoutidx").ok());
    auto opened =
        scout::Catalog::open(dir / "base.scoutidx", std::make_shared<scout::HashingEmbedder>(32));
    REQUIRE(opened.ok());
    scout::CatalogSpec last = first_spec();
    const auto commit_and_compare = [&](std::size_t rendered) {
        REQUIRE(opened->upsert_servers(last).ok());
        auto info = opened->commit();
        REQUIRE(info.ok());
        CHECK(info->rendered == rendered);
        CHECK(hits(opened->searcher()) == hits(build(last).searcher()));
    };
    // A tool removed: the layout changes, so every document's terms are read back from the
    // opened index's postings; nothing is analyzed.
    const scout::ToolSpec removed = last.servers[1].tools[5];
    last.servers[1].tools.erase(last.servers[1].tools.begin() + 5);
    commit_and_compare(0);
    // The same tool back, unchanged: its seeded document was left out of the last build, so its
    // terms are in no index at hand and it is analyzed again.
    last.servers[1].tools.insert(last.servers[1].tools.begin() + 5, removed);
    commit_and_compare(1);
    // Patched twice on documents still seeded (their ToolIds moved with the layouts above).
    last.servers[0].tools[2].description = "list every folder";
    commit_and_compare(1);
    last.servers[2].tools[7].description += " twice";
    last.servers[0].tools[2].description = "list every folder of a drive";
    commit_and_compare(2);
    fs::remove_all(dir);
}

TEST_CASE("a corpus-blind embedder is not fitted after an open and embeds the stored texts",
          "[persistence][bm25-weights]") {
    const fs::path dir = weights_temp_dir();
    REQUIRE(build_with(first_spec(), std::make_shared<CorpusProbeEmbedder>(false))
                .save(dir / "base.scoutidx")
                .ok());
    scout::CatalogSpec last = first_spec();
    last.servers[1].tools[3].description += " and archive it";

    auto probe = std::make_shared<CorpusProbeEmbedder>(false);
    auto opened = scout::Catalog::open(dir / "base.scoutidx", probe);
    REQUIRE(opened.ok());
    REQUIRE(opened->upsert_servers(last).ok());
    auto info = opened->commit();
    REQUIRE(info.ok());
    CHECK(probe->fitted().empty());
    CHECK(info->embedded == 1);
    CHECK(probe->take_embedded().size() == 1);
    auto fresh_a = std::make_shared<CorpusProbeEmbedder>(false);
    CHECK(hits(opened->searcher()) == hits(build_with(last, fresh_a).searcher()));

    // Another model: every vector is embedded again, from the texts of the tools the file
    // stored (rendered now) and of the changed one, as a fresh build embeds them.
    probe->set_variant("b");
    last.servers[0].tools[0].description = "remove every file of a folder";
    REQUIRE(opened->upsert_servers(last).ok());
    (void)probe->take_embedded();
    info = opened->commit();
    REQUIRE(info.ok());
    const std::size_t tools = 30 + 40 + 12;
    CHECK(info->embedded == tools);
    const std::vector<std::string> embedded = probe->take_embedded();
    auto fresh_b = std::make_shared<CorpusProbeEmbedder>(false, "b");
    scout::Catalog fresh = build_with(last, fresh_b);
    CHECK(embedded == fresh_b->take_embedded());
    CHECK(hits(opened->searcher()) == hits(fresh.searcher()));
    CHECK(probe->fitted().empty());
    fs::remove_all(dir);
}

TEST_CASE("an embedder that reads the corpus is fitted to every stored tool's text after an open",
          "[persistence][bm25-weights]") {
    const fs::path dir = weights_temp_dir();
    REQUIRE(build_with(first_spec(), std::make_shared<CorpusProbeEmbedder>(true))
                .save(dir / "base.scoutidx")
                .ok());
    scout::CatalogSpec last = first_spec();
    last.servers[2].tools[5].description += " with care";
    auto probe = std::make_shared<CorpusProbeEmbedder>(true);
    auto opened = scout::Catalog::open(dir / "base.scoutidx", probe);
    REQUIRE(opened.ok());
    REQUIRE(opened->upsert_servers(last).ok());
    auto info = opened->commit();
    REQUIRE(info.ok());
    CHECK(info->embedded == 1);
    auto fresh = std::make_shared<CorpusProbeEmbedder>(true);
    (void)build_with(last, fresh);
    REQUIRE(probe->fitted().size() == 1);
    REQUIRE(fresh->fitted().size() == 1);
    CHECK(probe->fitted()[0].size() == 30 + 40 + 12);
    CHECK(probe->fitted()[0] == fresh->fitted()[0]);
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

// index_sections_test.cpp: the built indexes an index file keeps (BM25 postings, HNSW graph,
// vector keys, the embedder's fitted state): opening takes them as they are, a file without
// them still opens by rebuilding, and damage behind valid checksums is refused.
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>

#include <catch2/catch.hpp>

#include "scout/scout.hpp"

#include "persist/container.hpp"
#include "persist/index_codec.hpp"
#include "support/section_rewrite.hpp"
#include "support/test_catalogs.hpp"

namespace fs = std::filesystem;

namespace {

fs::path temp_file(const std::string& name) {
    static std::atomic<int> n{0};
    const fs::path dir =
        fs::temp_directory_path() /
        ("scout-sections-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir / name;
}

std::vector<std::uint8_t> read_index_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_index_bytes(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// A corpus-aware embedder (fit() changes its model id) that counts what it is asked to do, so
/// a test can tell an opened index from a rebuilt one.
class FittingEmbedder final : public scout::Embedder {
public:
    std::string model_id() const override { return fitted_ ? "fitting-fit" : "fitting"; }
    std::size_t dim() const override { return inner_.dim(); }
    scout::Result<std::vector<float>> embed(std::span<const std::string> texts) override {
        texts_ += texts.size();
        return inner_.embed(texts);
    }
    void fit(std::span<const std::string> corpus) override {
        ++fits_;
        fitted_ = !corpus.empty();
    }
    std::string fitted_state() const override { return fitted_ ? "fit" : ""; }
    bool restore_fitted_state(std::string_view state) override {
        ++restores_;
        if (state != "fit") {
            return false;
        }
        fitted_ = true;
        return true;
    }
    std::atomic<std::size_t> texts_{0};
    std::atomic<std::size_t> fits_{0};
    std::atomic<std::size_t> restores_{0};

private:
    scout::HashingEmbedder inner_{16};
    std::atomic<bool> fitted_{false};
};

scout::ServerSpec server(const std::string& name, std::size_t tools) {
    static const char* verbs[] = {"create", "delete", "list", "update", "search", "read"};
    static const char* things[] = {"issue", "file", "user", "message", "page", "invoice", "ticket"};
    scout::ServerSpec s{name, name + " service", "", "", scout::ServerStatus::active, {}};
    for (std::size_t i = 0; i < tools; ++i) {
        const std::string verb = verbs[i % 6];
        const std::string thing = things[(i / 6) % 7];
        s.tools.push_back({verb + "_" + thing + "_" + std::to_string(i),
                           "",
                           verb + " a " + thing + " in " + name,
                           R"({"type":"object","properties":{"id":{"type":"string"}}})",
                           ""});
    }
    return s;
}

/// A catalog whose dense index is an HNSW graph, with a degraded server that is not indexed.
scout::Catalog hnsw_catalog(std::shared_ptr<scout::Embedder> embedder, bool int8 = true) {
    scout::CatalogOptions options;
    options.dense.kind = scout::DenseIndexKind::hnsw;
    options.dense.hnsw_m = 4;
    options.dense.hnsw_int8 = int8;
    auto c = scout::Catalog::create(options, std::move(embedder));
    REQUIRE(c.ok());
    REQUIRE(c->upsert_server(server("jira", 40)).ok());
    REQUIRE(c->upsert_server(server("drive", 30)).ok());
    auto degraded = server("mail", 5);
    degraded.status = scout::ServerStatus::degraded;
    REQUIRE(c->upsert_server(degraded).ok());
    REQUIRE(c->commit().ok());
    return std::move(c.value());
}

std::vector<std::string> results(const scout::Searcher& searcher) {
    std::vector<std::string> out;
    for (const char* q : {"create an issue", "delete file", "list users in drive", "invoice"}) {
        scout::SearchOptions o;
        o.top_k = 8;
        auto r = searcher.search(q, o);
        REQUIRE(r.ok());
        for (const auto& h : r->hits) {
            out.push_back(h.name + "@" + std::to_string(h.score) + "/" +
                          std::to_string(h.bm25_rank) + "/" + std::to_string(h.dense_rank));
        }
        out.emplace_back("|");
    }
    return out;
}

}  // namespace

TEST_CASE("an opened index takes its stored indexes and rebuilds nothing",
          "[persistence][sections]") {
    const bool int8 = GENERATE(true, false);  // graphs of int8 codes, and of fp32 rows
    INFO("int8 graph elements: " << int8);
    const fs::path file = temp_file("hnsw.scoutidx");
    auto built = hnsw_catalog(std::make_shared<FittingEmbedder>(), int8);
    REQUIRE(built.save(file).ok());
    const std::vector<std::string> expected = results(built.searcher());

    auto embedder = std::make_shared<FittingEmbedder>();
    auto opened = scout::Catalog::open(file, embedder);
    REQUIRE(opened.ok());
    CHECK(embedder->fits_ == 0);  // the fitted state came from the file, not from the corpus
    CHECK(embedder->restores_ == 1);
    CHECK(embedder->texts_ == 0);
    CHECK(results(opened->searcher()) == expected);

    // Saving the opened catalog writes the same bytes: graph, postings and keys round-trip.
    const fs::path again = file.parent_path() / "again.scoutidx";
    REQUIRE(opened->save(again).ok());
    CHECK(read_index_bytes(again) == read_index_bytes(file));

    // A commit after opening embeds only what is new: the stored vectors are reused.
    const std::size_t queries = embedder->texts_;  // the searches above embedded their queries
    REQUIRE(opened->upsert_server(server("wiki", 1)).ok());
    REQUIRE(opened->commit().ok());
    CHECK(embedder->texts_ - queries == 1);
    fs::remove_all(file.parent_path());
}

TEST_CASE("an opened catalog's state is shared with its snapshot until the first edit",
          "[persistence][sections]") {
    const fs::path file = temp_file("hnsw.scoutidx");
    auto built = hnsw_catalog(std::make_shared<FittingEmbedder>());
    REQUIRE(built.save(file).ok());
    const std::vector<std::uint8_t> original = read_index_bytes(file);
    auto opened = scout::Catalog::open(file, std::make_shared<FittingEmbedder>());
    REQUIRE(opened.ok());
    const fs::path copy = file.parent_path() / "copy.scoutidx";

    // A failed edit changes nothing; a commit with nothing edited publishes the same catalog.
    CHECK(opened->remove_server("nope").code() == scout::Errc::not_found);
    CHECK(opened->remove_tool("jira", "nope").code() == scout::Errc::not_found);
    REQUIRE(opened->commit().ok());
    REQUIRE(opened->save(copy).ok());
    // decode_index views its bytes: they must outlive the result.
    const std::vector<std::uint8_t> unchanged_bytes = read_index_bytes(copy);
    auto unchanged = scout::detail::decode_index(unchanged_bytes);
    REQUIRE(unchanged.ok());
    auto expected = scout::detail::decode_index(original);
    REQUIRE(expected.ok());
    REQUIRE(unchanged->catalog.servers.size() == expected->catalog.servers.size());
    for (std::size_t s = 0; s < expected->catalog.servers.size(); ++s) {
        CHECK(unchanged->catalog.servers[s].name == expected->catalog.servers[s].name);
        const auto& u = unchanged->catalog.servers[s];
        const auto& e = expected->catalog.servers[s];
        CHECK(u.end_tool - u.first_tool == e.end_tool - e.first_tool);
    }

    // Staged edits leave the published snapshot (what save() writes and searches read) alone.
    REQUIRE(opened->remove_server("drive").ok());
    REQUIRE(opened->set_server_status("mail", scout::ServerStatus::active).ok());
    REQUIRE(opened->remove_tool("jira", "create_issue_0").ok());
    auto hit = opened->searcher().search("delete a file in drive");
    REQUIRE(hit.ok());
    REQUIRE(!hit->hits.empty());
    CHECK(hit->hits.front().server == "drive");
    REQUIRE(opened->save(copy).ok());
    const std::vector<std::uint8_t> before_bytes = read_index_bytes(copy);
    auto before_commit = scout::detail::decode_index(before_bytes);
    REQUIRE(before_commit.ok());
    CHECK(before_commit->catalog.servers.size() == 3);
    CHECK(before_commit->info.indexed_tools == 70);

    // The commit publishes them.
    REQUIRE(opened->commit().ok());
    REQUIRE(opened->save(copy).ok());
    const std::vector<std::uint8_t> after_bytes = read_index_bytes(copy);
    auto after_commit = scout::detail::decode_index(after_bytes);
    REQUIRE(after_commit.ok());
    REQUIRE(after_commit->catalog.servers.size() == 2);
    CHECK(after_commit->catalog.servers[0].name == "jira");
    CHECK(after_commit->catalog.servers[0].end_tool - after_commit->catalog.servers[0].first_tool ==
          39);
    CHECK(after_commit->catalog.servers[1].status == scout::ServerStatus::active);
    CHECK(after_commit->info.indexed_tools == 44);
    fs::remove_all(file.parent_path());
}

TEST_CASE("a searcher returns each tool's texts as upserted, built, opened and committed",
          "[persistence][sections]") {
    scout::ServerSpec jira = server("jira", 12);
    jira.tools[0].title = "Create \"issue\"";
    jira.tools[1].input_schema = "";  // returned as the empty object schema
    jira.tools[2].annotations = R"({"readOnlyHint":true})";
    scout::ServerSpec wiki = server("wiki", 3);
    wiki.status = scout::ServerStatus::degraded;
    auto expect = [](const scout::Searcher& searcher,
                     const std::vector<scout::ServerSpec>& active) {
        std::size_t tools = 0;
        for (const scout::ServerSpec& s : active) {
            for (const scout::ToolSpec& t : s.tools) {
                ++tools;
                auto hit = searcher.find(s.name, t.name);
                REQUIRE(hit.has_value());
                CHECK(hit->title == t.title);
                CHECK(hit->description == t.description);
                CHECK(hit->input_schema ==
                      (t.input_schema.empty() ? R"({"type":"object"})" : t.input_schema));
                CHECK(hit->annotations == t.annotations);
            }
        }
        CHECK(searcher.list_tools().size() == tools);
    };
    const fs::path file = temp_file("texts.scoutidx");
    {
        auto built = scout::Catalog::create({}, nullptr);
        REQUIRE(built.ok());
        REQUIRE(built->upsert_servers({{jira, wiki}}).ok());
        REQUIRE(built->commit().ok());
        expect(built->searcher(), {jira});
        REQUIRE(built->save(file).ok());
    }
    auto opened = scout::Catalog::open(file, nullptr);
    REQUIRE(opened.ok());
    expect(opened->searcher(), {jira});
    // A commit replaces the snapshot (and the source its records view) with the edited state.
    jira.tools[3].description = "changed after opening";
    REQUIRE(opened->upsert_tool("jira", jira.tools[3]).ok());
    wiki.status = scout::ServerStatus::active;
    REQUIRE(opened->set_server_status("wiki", scout::ServerStatus::active).ok());
    REQUIRE(opened->commit().ok());
    expect(opened->searcher(), {jira, wiki});
    fs::remove_all(file.parent_path());
}

TEST_CASE("the stored HNSW graph and BM25 postings decode to the saved indexes",
          "[persistence][sections]") {
    const fs::path file = temp_file("hnsw.scoutidx");
    auto built = hnsw_catalog(std::make_shared<FittingEmbedder>());
    REQUIRE(built.save(file).ok());
    const std::vector<std::uint8_t> bytes = read_index_bytes(file);
    auto stored = scout::detail::decode_index(bytes);
    REQUIRE(stored.ok());
    REQUIRE(stored->dense);
    CHECK(std::string(stored->dense->kind()) == "hnsw-int8");
    REQUIRE(stored->bm25);
    CHECK(stored->bm25->num_docs() == 70);
    CHECK(stored->bm25->num_postings() > 70);
    CHECK(stored->embed_keys.size() == 70);
    // Each stored vector finds itself first through the loaded graph.
    std::vector<scout::detail::ScoredDoc> hits;
    for (std::size_t r = 0; r < stored->vectors->size(); ++r) {
        stored->dense->search(stored->vectors->row(r), 1, nullptr, hits);
        REQUIRE(hits.size() == 1);
        CHECK(hits[0].score == Approx(1.0f).margin(1e-4));
    }
    fs::remove_all(file.parent_path());
}

TEST_CASE("term ids follow the tools' order across the windows a commit renders in",
          "[persistence][sections][parallel]") {
    // 9,000 tools: the commit renders and interns them in windows of 4,096; server names and
    // numbered tool names keep bringing new terms into later windows.
    const scout::CatalogSpec spec = scout::testing::random_catalog(450, 20, 3);
    scout::CatalogOptions options;
    options.threads = 2;
    auto c = scout::Catalog::create(options, nullptr);
    REQUIRE(c.ok());
    REQUIRE(c->upsert_servers(spec).ok());
    REQUIRE(c->commit().ok());
    const fs::path file = temp_file("windows.scoutidx");
    REQUIRE(c->save(file).ok());
    const std::vector<std::uint8_t> bytes = read_index_bytes(file);
    auto stored = scout::detail::decode_index(bytes);
    REQUIRE(stored.ok());
    REQUIRE(stored->bm25);
    REQUIRE(stored->bm25->num_docs() == 9000);
    // A term's id is its order of first appearance in ToolId order, as a sequential build
    // interns them: the first document of each term never decreases with the term id.
    const auto offsets = stored->bm25->offsets();
    const auto docids = stored->bm25->docids();
    std::size_t out_of_order = 0;
    scout::ToolId previous = 0;
    for (std::size_t t = 0; t + 1 < offsets.size(); ++t) {
        if (offsets[t + 1] > offsets[t]) {
            const scout::ToolId first = docids[offsets[t]];
            out_of_order += first < previous ? 1U : 0U;
            previous = first;
        }
    }
    CHECK(out_of_order == 0);
    CHECK(previous >= 8192);  // the last new term arrived in the third window
    fs::remove_all(file.parent_path());
}

TEST_CASE("a file without the built indexes opens by rebuilding them", "[persistence][sections]") {
    const fs::path file = temp_file("old.scoutidx");
    auto built = hnsw_catalog(std::make_shared<FittingEmbedder>());
    REQUIRE(built.save(file).ok());
    const std::vector<std::string> expected = results(built.searcher());
    // The catalog and the vectors only, as a writer of format 1.1 kept them.
    const std::string old = scout::test::rewrite_sections(
        read_index_bytes(file), scout::kIndexFormatMinor, [](scout::detail::SectionOut& s) {
            return s.kind == scout::detail::fourcc("META") ||
                   s.kind == scout::detail::fourcc("CATB") ||
                   s.kind == scout::detail::fourcc("VECS");
        });
    write_index_bytes(file, old);
    auto embedder = std::make_shared<FittingEmbedder>();
    auto opened = scout::Catalog::open(file, embedder);
    REQUIRE(opened.ok());
    CHECK(embedder->fits_ > 0);  // rebuilt: the embedder was fitted to the corpus again
    CHECK(embedder->texts_ == 0);
    CHECK(results(opened->searcher()) == expected);

    // A stored state the embedder refuses also falls back to the rebuild.
    REQUIRE(built.save(file).ok());
    const std::string refused = scout::test::rewrite_sections(
        read_index_bytes(file), scout::kIndexFormatMinor, [](auto& s) {
            if (s.kind == scout::detail::fourcc("EMBF")) {
                s.bytes = "not a number";
            }
            return true;
        });
    write_index_bytes(file, refused);
    auto other = std::make_shared<FittingEmbedder>();
    auto reopened = scout::Catalog::open(file, other);
    REQUIRE(reopened.ok());
    CHECK(other->fits_ > 0);
    CHECK(results(reopened->searcher()) == expected);
    fs::remove_all(file.parent_path());
}

TEST_CASE("damaged postings or graph behind valid checksums are refused",
          "[persistence][sections]") {
    const fs::path file = temp_file("hnsw.scoutidx");
    REQUIRE(hnsw_catalog(std::make_shared<FittingEmbedder>()).save(file).ok());
    const std::vector<std::uint8_t> good = read_index_bytes(file);
    const auto damage = [&](const char(&kind)[5], std::size_t at, std::uint8_t value) {
        const std::string bad =
            scout::test::rewrite_sections(good, scout::kIndexFormatMinor, [&](auto& s) {
                if (s.kind == scout::detail::fourcc(kind)) {
                    REQUIRE(at < s.bytes.size());
                    s.bytes[at] = static_cast<char>(value);
                }
                return true;
            });
        return scout::inspect_index(std::span<const std::uint8_t>(
            reinterpret_cast<const std::uint8_t*>(bad.data()), bad.size()));
    };
    // HNSW: header words count, M, top level, entry; then element 0's level and first count.
    CHECK(damage("HNSW", 0, 0xFF).status().code() == scout::Errc::corrupt);   // element count
    CHECK(damage("HNSW", 4, 5).status().code() == scout::Errc::corrupt);      // M
    CHECK(damage("HNSW", 20, 0xFF).status().code() == scout::Errc::corrupt);  // link count
    CHECK(damage("HNSW", 27, 0x7F).status().code() == scout::Errc::corrupt);  // a link's id
    // BM25: documents, then (after terms and postings) the offsets; the first must be 0.
    CHECK(damage("BM25", 0, 3).status().code() == scout::Errc::corrupt);
    CHECK(damage("BM25", 24, 1).status().code() == scout::Errc::corrupt);
    CHECK(damage("EKEY", 0, 9).status().code() == scout::Errc::corrupt);
    // Sections that need vectors, in a file without them.
    auto bm25_only = scout::Catalog::create({}, nullptr);
    REQUIRE(bm25_only->upsert_server(server("jira", 3)).ok());
    REQUIRE(bm25_only->commit().ok());
    REQUIRE(bm25_only->save(file).ok());
    auto view = scout::detail::read_container(good, 1, scout::kIndexFormatMajor);
    REQUIRE(view.ok());
    // The view points into the bytes, so they must outlive it.
    const std::vector<std::uint8_t> plain_bytes = read_index_bytes(file);
    auto plain = scout::detail::read_container(plain_bytes, 1, scout::kIndexFormatMajor);
    REQUIRE(plain.ok());
    std::vector<scout::detail::SectionOut> sections;
    for (const auto& s : plain->sections) {
        sections.push_back({s.kind, s.version, std::string(s.bytes.begin(), s.bytes.end())});
    }
    const auto* keys = view->find(scout::detail::fourcc("EKEY"));
    REQUIRE(keys != nullptr);
    sections.push_back({keys->kind, 1, std::string(keys->bytes.begin(), keys->bytes.end())});
    const std::string mixed = scout::detail::write_container(1, scout::kIndexFormatMinor, sections);
    CHECK(
        scout::inspect_index(std::span<const std::uint8_t>(
                                 reinterpret_cast<const std::uint8_t*>(mixed.data()), mixed.size()))
            .status()
            .code() == scout::Errc::corrupt);
    fs::remove_all(file.parent_path());
}

TEST_CASE("option keys of a newer minor version are reported, not silently dropped",
          "[persistence][version]") {
    const fs::path file = temp_file("newer.scoutidx");
    REQUIRE(hnsw_catalog(std::make_shared<FittingEmbedder>()).save(file).ok());
    const auto with_key = [&](std::uint16_t minor) {
        return scout::test::rewrite_sections(read_index_bytes(file), minor, [](auto& s) {
            if (s.kind == scout::detail::fourcc("META")) {
                const std::string at = "\"fusion\":{";
                const auto pos = s.bytes.find(at);
                REQUIRE(pos != std::string::npos);
                s.bytes.insert(pos + at.size(), "\"future_knob\":1,");
            }
            return true;
        });
    };
    const fs::path newer = file.parent_path() / "newer2.scoutidx";
    write_index_bytes(newer, with_key(scout::kIndexFormatMinor + 1));
    auto info = scout::inspect_index_file(newer);
    REQUIRE(info.ok());
    REQUIRE(info->warnings.size() == 1);
    CHECK_THAT(info->warnings[0], Catch::Contains("options.fusion.future_knob"));
    std::vector<std::string> warnings;
    auto opened = scout::Catalog::open(newer, std::make_shared<FittingEmbedder>(), &warnings);
    REQUIRE(opened.ok());
    CHECK(warnings == info->warnings);

    // This version's own files carry no unknown keys, so nothing is said.
    auto own = scout::inspect_index_file(file);
    REQUIRE(own.ok());
    CHECK(own->warnings.empty());
    fs::remove_all(file.parent_path());
}

TEST_CASE("the static embedder's fitted word weights round-trip", "[persistence][sections]") {
    auto a = scout::StaticEmbedder::load_default();
    REQUIRE(a.ok());
    auto b = scout::StaticEmbedder::load_default();
    REQUIRE(b.ok());
    const std::vector<std::string> corpus = {"create a jira issue",
                                             "delete a file from the drive",
                                             "send an email message",
                                             "list open issues"};
    (*a)->fit(corpus);
    const std::string state = (*a)->fitted_state();
    REQUIRE_FALSE(state.empty());
    CHECK((*b)->model_id() != (*a)->model_id());
    REQUIRE((*b)->restore_fitted_state(state));
    CHECK((*b)->model_id() == (*a)->model_id());
    const std::vector<std::string> query = {"open an issue"};
    CHECK((*b)->embed(query).value() == (*a)->embed(query).value());

    // Bytes that are not a state of this model change nothing.
    auto c = scout::StaticEmbedder::load_default();
    REQUIRE(c.ok());
    const std::string before = (*c)->model_id();
    std::string bad = state;
    bad[16] = '\xFF';  // the first row, beyond the vocabulary
    bad[17] = '\xFF';
    bad[18] = '\xFF';
    bad[19] = '\x7F';
    CHECK_FALSE((*c)->restore_fitted_state(bad));
    CHECK_FALSE((*c)->restore_fitted_state(state.substr(0, state.size() - 1)));
    CHECK((*c)->model_id() == before);
}

TEST_CASE("a searcher of an opened index outlives its catalog and its file",
          "[persistence][sections]") {
    const fs::path file = temp_file("mapped.scoutidx");
    auto built = hnsw_catalog(std::make_shared<FittingEmbedder>());
    REQUIRE(built.save(file).ok());
    const std::vector<std::string> expected = results(built.searcher());
    std::optional<scout::Searcher> searcher;
    {
        auto opened = scout::Catalog::open(file, std::make_shared<FittingEmbedder>());
        REQUIRE(opened.ok());
        searcher = opened->searcher();
    }
    // The catalog is gone and its file replaced (as a save replaces it, by rename) and removed:
    // the searcher's snapshot keeps the mapping it reads the texts, vectors and postings from.
    auto other = scout::Catalog::create({}, nullptr);
    REQUIRE(other.ok());
    REQUIRE(other->save(file).ok());
    fs::remove(file);
    CHECK(results(*searcher) == expected);
    auto hit = searcher->find("jira", "create_issue_0");
    REQUIRE(hit.has_value());
    CHECK_FALSE(hit->input_schema.empty());
    fs::remove_all(file.parent_path());
}

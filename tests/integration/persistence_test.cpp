// persistence_test.cpp: index files round-trip exactly, and every kind of damage (truncation at
// any length, any changed byte, a future format, a different embedder) is refused cleanly.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"
#include "scout/scout.hpp"

#include "persist/container.hpp"
#include "persist/crc32c.hpp"
#include "util/file_io.hpp"

namespace fs = std::filesystem;

namespace {

fs::path temp_dir() {
    static std::atomic<int> n{0};
    fs::path dir = fs::temp_directory_path() /
                   ("scout-persist-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

std::vector<std::uint8_t> read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
}

class CountingEmbedder final : public scout::Embedder {
public:
    explicit CountingEmbedder(std::size_t dim, std::string model = "")
        : inner_(dim), model_(std::move(model)) {}
    std::string model_id() const override { return model_.empty() ? inner_.model_id() : model_; }
    std::size_t dim() const override { return inner_.dim(); }
    scout::Result<std::vector<float>> embed(std::span<const std::string> texts) override {
        texts_ += texts.size();
        return inner_.embed(texts);
    }
    std::atomic<std::size_t> texts_{0};

private:
    scout::HashingEmbedder inner_;
    std::string model_;
};

scout::Catalog small_catalog(std::shared_ptr<scout::Embedder> embedder) {
    auto c = scout::Catalog::create({}, std::move(embedder));
    REQUIRE(c.ok());
    REQUIRE(
        c->upsert_server({"files",
                          "file store",
                          "storage",
                          "prod",
                          scout::ServerStatus::active,
                          {{"read_file",
                            "Read",
                            "read a file",
                            R"({"type":"object","properties":{"path":{"type":"string"}}})",
                            ""},
                           {"write_file", "", "write a file", "", R"({"destructiveHint":true})"}}})
            .ok());
    REQUIRE(c->upsert_server({"mail",
                              "email",
                              "",
                              "",
                              scout::ServerStatus::degraded,
                              {{"send", "", "send mail", "", ""}}})
                .ok());
    REQUIRE(c->commit().ok());
    return std::move(c.value());
}

std::vector<std::string> names(const scout::Result<scout::SearchResult>& r) {
    REQUIRE(r.ok());
    std::vector<std::string> out;
    for (const auto& h : r->hits) {
        out.push_back(h.name + "@" + std::to_string(h.score) + "/" + std::to_string(h.bm25_rank) +
                      "/" + std::to_string(h.dense_rank));
    }
    return out;
}

}  // namespace

TEST_CASE("a saved catalog opens with identical search results", "[persistence]") {
    const char* src = std::getenv("SCOUT_SOURCE_DIR");
    REQUIRE(src != nullptr);
    auto spec = scout::load_catalog_file(fs::path(src) / "data/enterprise_catalog.json");
    REQUIRE(spec.ok());
    spec->servers[0].status = scout::ServerStatus::inactive;  // stored, though not indexed
    auto embedder = std::make_shared<CountingEmbedder>(64);
    auto before = scout::Catalog::create({}, embedder);
    REQUIRE(before.ok());
    REQUIRE(before->upsert_servers(spec.value()).ok());
    REQUIRE(before->commit().ok());
    REQUIRE(before->commit().ok());  // generation 2
    // Staged but uncommitted changes are not part of the saved snapshot.
    REQUIRE(before->remove_server(spec->servers[1].name).ok());

    const fs::path dir = temp_dir();
    const fs::path file = dir / "catalog.scoutidx";
    REQUIRE(before->save(file).ok());
    auto info = scout::inspect_index_file(file);
    REQUIRE(info.ok());
    CHECK(info->format_major == scout::kIndexFormatMajor);
    CHECK(info->generation == 2);
    CHECK(info->servers == spec->servers.size());
    CHECK(info->indexed_tools == before->searcher().size());
    CHECK(info->vectors == info->indexed_tools);
    CHECK(info->dim == 64);
    CHECK(info->file_bytes == fs::file_size(file));

    const std::size_t embedded_before_open = embedder->texts_;
    auto after = scout::Catalog::open(file, embedder);
    REQUIRE(after.ok());
    CHECK(embedder->texts_ == embedded_before_open);  // vectors came from the file
    const scout::Searcher a = before->searcher();
    const scout::Searcher b = after->searcher();
    CHECK(b.generation() == 2);
    CHECK(b.size() == a.size());
    CHECK(b.has_dense());
    const char* queries[] = {"create a jira ticket",
                             "send a slack message",
                             "query the data warehouse",
                             "rotate credentials",
                             "list kubernetes pods",
                             "refund a payment"};
    for (const char* q : queries) {
        for (auto mode : {scout::Mode::hybrid, scout::Mode::bm25, scout::Mode::dense}) {
            scout::SearchOptions opt;
            opt.mode = mode;
            opt.top_k = 10;
            INFO(q << " " << scout::mode_name(mode));
            CHECK(names(a.search(q, opt)) == names(b.search(q, opt)));
        }
    }
    CHECK(a.list_tools().size() == b.list_tools().size());
    // The inactive server was stored: reactivating it needs no catalog re-upload.
    REQUIRE(after->set_server_status(spec->servers[0].name, scout::ServerStatus::active).ok());
    auto commit = after->commit();
    REQUIRE(commit.ok());
    CHECK(commit->generation == 3);
    CHECK(after->searcher().size() == a.size() + spec->servers[0].tools.size());
    // The uncommitted removal did not reach the file.
    CHECK(after->searcher().find(spec->servers[1].name, spec->servers[1].tools[0].name));
    fs::remove_all(dir);
}

namespace {

/// Whether another open file description could take LOCK_EX on `path` now (then released).
int try_exclusive_lock(const fs::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    const int rc = ::flock(fd, LOCK_EX | LOCK_NB);
    const int err = rc == 0 ? 0 : errno;
    ::close(fd);
    return err;
}

}  // namespace

TEST_CASE("an open index holds a shared lock that refuses in-place writers until it is gone",
          "[persistence]") {
    const fs::path dir = temp_dir();
    const fs::path path = dir / "c.idx";
    REQUIRE(small_catalog(nullptr).save(path).ok());
    REQUIRE(try_exclusive_lock(path) == 0);
    {
        auto opened = scout::Catalog::open(path, nullptr);
        REQUIRE(opened.ok());
        CHECK(try_exclusive_lock(path) == EWOULDBLOCK);
        // scout's own in-place writers (an event log, `eval --ranks`, `synth --out`) refuse it.
        auto in_place = scout::detail::lock_for_writing_in_place(path);
        REQUIRE_FALSE(in_place.ok());
        CHECK(in_place.status().code() == scout::Errc::invalid_argument);
        CHECK(in_place.status().message().find(path.string()) != std::string::npos);
        CHECK(scout::JsonLinesSink::open_file(path).status().code() ==
              scout::Errc::invalid_argument);
    }
    // Gone with its catalog: the lock is released.
    CHECK(try_exclusive_lock(path) == 0);
    CHECK(scout::detail::lock_for_writing_in_place(path).ok());
    {
        // Replacing an open index by rename stays allowed: the open catalog keeps the snapshot
        // it mapped, and the new file is another file, not locked.
        auto opened = scout::Catalog::open(path, nullptr);
        REQUIRE(opened.ok());
        REQUIRE(scout::Catalog::create({}, nullptr)->save(path).ok());
        CHECK(try_exclusive_lock(path) == 0);
        auto found = opened->searcher().search("read a file");
        REQUIRE(found.ok());
        CHECK_FALSE(found->hits.empty());
    }
    fs::remove_all(dir);
}

TEST_CASE("open refuses a different embedder", "[persistence]") {
    const fs::path dir = temp_dir();
    const fs::path file = dir / "small.scoutidx";
    REQUIRE(small_catalog(std::make_shared<scout::HashingEmbedder>(8)).save(file).ok());

    auto other_dim = scout::Catalog::open(file, std::make_shared<scout::HashingEmbedder>(16));
    REQUIRE_FALSE(other_dim.ok());
    CHECK(other_dim.status().code() == scout::Errc::embedder_mismatch);
    CHECK_THAT(other_dim.status().message(), Catch::Contains("scout-hashing-v1-8"));

    auto other_model =
        scout::Catalog::open(file, std::make_shared<CountingEmbedder>(8, "some-other-model"));
    REQUIRE_FALSE(other_model.ok());
    CHECK(other_model.status().code() == scout::Errc::embedder_mismatch);

    auto no_embedder = scout::Catalog::open(file);  // BM25 only
    REQUIRE(no_embedder.ok());
    CHECK_FALSE(no_embedder->searcher().has_dense());
    CHECK(no_embedder->searcher().size() == 2);

    // A file without vectors opens with any embedder, which then embeds the documents.
    REQUIRE(small_catalog(nullptr).save(file).ok());
    auto embedder = std::make_shared<CountingEmbedder>(8);
    auto reembedded = scout::Catalog::open(file, embedder);
    REQUIRE(reembedded.ok());
    CHECK(reembedded->searcher().has_dense());
    CHECK(embedder->texts_ == 2);
    fs::remove_all(dir);
}

TEST_CASE("every option survives save and open", "[persistence]") {
    scout::CatalogOptions o;
    o.analyzer = {.split_identifiers = false,
                  .keep_joined_case = false,
                  .remove_stop_words = false,
                  .stem = false,
                  .keep_surface = false,
                  .max_token_bytes = 48};
    o.bm25 = {.k1 = 1.5f,
              .b = 0.6f,
              .weights = {.name = 2.5f,
                          .server = 0.75f,
                          .server_description = 0.25f,
                          .description = 1.5f,
                          .parameters = 0.4f,
                          .action = 2.0f,
                          .word_pairs = 0.5f}};
    o.dense = {.kind = scout::DenseIndexKind::flat,
               .hnsw_min_tools = 1000,
               .int8_scan = true,
               .int8_rescore_factor = 4,
               .hnsw_filter_min_fraction = 0.1f,
               .hnsw_m = 12,
               .hnsw_ef_construction = 150,
               .hnsw_ef_search = 80,
               .hnsw_ef_base_tools = 5000,
               .seed = 7};
    o.fusion = {.method = scout::FusionMethod::rrf,
                .rrf_k = 50,
                .fetch_factor = 4,
                .bm25_weight = 0.9,
                .dense_weight = 0.4,
                .dense_confidence_power = 0.5,
                .gated_dense_weight = 0.3,
                .agreement_depth = 2,
                .disagreement_gate = 0.75,
                .gated_confidence_power = 1.0,
                .overlap_power = 2.0,
                .gated_relative_bm25 = false};
    o.expansion = {.lexicon = false,
                   .weight = 0.3f,
                   .neighbours = 2,
                   .neighbour_weight = 0.2f,
                   .neighbour_min_similarity = 0.7f,
                   .action_weight = 0.5f,
                   .action_boost = 0.1f,
                   .compound_weight = 0.25f,
                   .pair_weight = 0.75f};
    o.embed_batch = 8;
    // Every part differs from the defaults, so a field the file loses cannot go unnoticed.
    const scout::CatalogOptions d;
    REQUIRE((o.analyzer != d.analyzer && o.bm25 != d.bm25 && o.dense != d.dense &&
             o.fusion != d.fusion && o.expansion != d.expansion && o.embed_batch != d.embed_batch));
    auto catalog = scout::Catalog::create(o);
    REQUIRE(catalog.ok());
    REQUIRE(catalog->commit().ok());
    const fs::path file = temp_dir() / "options.scoutidx";
    REQUIRE(catalog->save(file).ok());
    auto opened = scout::Catalog::open(file);
    REQUIRE(opened.ok());
    CHECK(opened->options() == o);
}

TEST_CASE("an empty catalog round-trips", "[persistence]") {
    const fs::path dir = temp_dir();
    auto c = scout::Catalog::create();
    REQUIRE(c.ok());
    REQUIRE(c->save(dir / "empty.scoutidx").ok());
    auto opened = scout::Catalog::open(dir / "empty.scoutidx");
    REQUIRE(opened.ok());
    CHECK(opened->searcher().size() == 0);
    auto missing = scout::Catalog::open(dir / "nope.scoutidx");
    CHECK(missing.status().code() == scout::Errc::not_found);
    auto directory = scout::Catalog::open(dir);
    CHECK(directory.status().code() == scout::Errc::io_error);
    CHECK(c->save(dir / "no-such-dir" / "x.scoutidx").code() == scout::Errc::io_error);
    fs::remove_all(dir);
}

TEST_CASE("every truncation and every changed byte is detected", "[persistence][corruption]") {
    const fs::path dir = temp_dir();
    const fs::path file = dir / "small.scoutidx";
    REQUIRE(small_catalog(std::make_shared<scout::HashingEmbedder>(4)).save(file).ok());
    const std::vector<std::uint8_t> good = read_bytes(file);
    REQUIRE(scout::inspect_index(good).ok());
    INFO("file size " << good.size());
    REQUIRE(good.size() < 8192);

    for (std::size_t len = 0; len < good.size(); ++len) {
        auto r = scout::inspect_index(std::span<const std::uint8_t>(good.data(), len));
        REQUIRE_FALSE(r.ok());
        REQUIRE(r.status().code() == scout::Errc::corrupt);
    }
    std::vector<std::uint8_t> bad = good;
    for (std::size_t i = 0; i < good.size(); ++i) {
        for (std::uint8_t flip : {std::uint8_t{0x01}, std::uint8_t{0x80}, std::uint8_t{0xFF}}) {
            bad[i] = static_cast<std::uint8_t>(good[i] ^ flip);
            auto r = scout::inspect_index(bad);
            INFO("byte " << i << " xor " << int{flip});
            REQUIRE_FALSE(r.ok());
            REQUIRE((r.status().code() == scout::Errc::corrupt ||
                     r.status().code() == scout::Errc::version_unsupported));
        }
        bad[i] = good[i];
    }
    // Appending bytes is detected too.
    bad.push_back(0);
    CHECK(scout::inspect_index(bad).status().code() == scout::Errc::corrupt);

    // And through the file API: a damaged file is refused with a message naming it.
    std::vector<std::uint8_t> damaged = good;
    damaged[good.size() / 2] ^= 0x10;
    write_bytes(file, damaged);
    auto opened = scout::Catalog::open(file);
    REQUIRE_FALSE(opened.ok());
    CHECK(opened.status().code() == scout::Errc::corrupt);
    CHECK_THAT(opened.status().message(), Catch::Contains("small.scoutidx"));
    fs::remove_all(dir);
}

TEST_CASE("format versions: newer majors are refused, newer minors and unknown sections are read",
          "[persistence][version]") {
    const fs::path dir = temp_dir();
    const fs::path file = dir / "small.scoutidx";
    REQUIRE(small_catalog(std::make_shared<scout::HashingEmbedder>(4)).save(file).ok());
    const std::vector<std::uint8_t> good = read_bytes(file);
    auto rewrite_header = [&](std::uint16_t major, std::uint16_t minor) {
        std::vector<std::uint8_t> b = good;
        b[8] = static_cast<std::uint8_t>(major & 0xFF);
        b[9] = static_cast<std::uint8_t>(major >> 8);
        b[10] = static_cast<std::uint8_t>(minor & 0xFF);
        b[11] = static_cast<std::uint8_t>(minor >> 8);
        const std::uint32_t crc = scout::detail::crc32c(b.data(), 60);
        std::memcpy(b.data() + 60, &crc, 4);
        return b;
    };
    auto future = scout::inspect_index(rewrite_header(scout::kIndexFormatMajor + 1, 0));
    REQUIRE_FALSE(future.ok());
    CHECK(future.status().code() == scout::Errc::version_unsupported);
    write_bytes(file, rewrite_header(scout::kIndexFormatMajor + 1, 0));
    CHECK(scout::Catalog::open(file).status().code() == scout::Errc::version_unsupported);
    CHECK(scout::inspect_index(rewrite_header(0, 0)).status().code() ==
          scout::Errc::version_unsupported);

    auto newer_minor = scout::inspect_index(rewrite_header(scout::kIndexFormatMajor, 7));
    REQUIRE(newer_minor.ok());
    CHECK(newer_minor->format_minor == 7);

    // A section this version does not know is skipped (after its checksum is verified).
    auto view = scout::detail::read_container(good, 1, scout::kIndexFormatMajor);
    REQUIRE(view.ok());
    std::vector<scout::detail::SectionOut> sections;
    for (const auto& s : view->sections) {
        sections.push_back({s.kind, s.version, std::string(s.bytes.begin(), s.bytes.end())});
    }
    sections.push_back({scout::detail::fourcc("XTRA"), 1, "future data"});
    const std::string extended =
        scout::detail::write_container(scout::kIndexFormatMajor, 1, sections);
    write_bytes(file, std::vector<std::uint8_t>(extended.begin(), extended.end()));
    auto opened = scout::Catalog::open(file, std::make_shared<scout::HashingEmbedder>(4));
    REQUIRE(opened.ok());
    CHECK(opened->searcher().size() == 2);
    fs::remove_all(dir);
}

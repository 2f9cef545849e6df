// neighbour_expander_test.cpp: word-vector neighbour expansion with tiny hand-made vectors:
// the expander alone (neighbours, thresholds, weights, skips), then through Catalog + Searcher,
// and StaticEmbedder's word vectors.
#include <cmath>
#include <map>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"
#include "scout/embedder.hpp"

#include "persist/options_json.hpp"
#include "search/neighbour_expansion.hpp"
#include "support/temp_dir.hpp"

using namespace scout;
using namespace scout::detail;
using scout::detail::CatalogWord;
using scout::detail::WordNeighbours;

namespace {

/// Three dimensions: from "kubernetes", cosines are "clusters" 0.935, "cluster" 0.894,
/// "container" 0.763, "weather" 0.
class TinyVectors final : public WordVectors {
public:
    std::size_t dim() const override { return 3; }
    bool lookup(std::string_view word, float* out) const override {
        static const std::map<std::string, std::array<float, 3>, std::less<>> kTable = {
            {"cluster", {1.0f, 0.0f, 0.0f}},
            {"clusters", {0.99f, 0.1f, 0.0f}},
            {"container", {0.3f, 0.7f, 0.0f}},
            {"kubernetes", {0.8f, 0.4f, 0.0f}},
            {"weather", {0.0f, 0.0f, 1.0f}},
            {"forecast", {0.0f, 0.2f, 0.98f}}};
        auto it = kTable.find(word);
        if (it == kTable.end()) {
            return false;
        }
        std::copy(it->second.begin(), it->second.end(), out);
        return true;
    }
};

std::shared_ptr<const WordNeighbours> tiny_expander() {
    std::vector<CatalogWord> words = {{"cluster", {"cluster"}},
                                      {"clusters", {"clusters", "~cluster"}},
                                      {"container", {"container", "~contain"}},
                                      {"weather", {"weather"}},
                                      {"unknownword", {"unknownword"}}};
    return WordNeighbours::build(std::make_shared<TinyVectors>(), std::move(words));
}

std::vector<QueryTerm> expand(const WordNeighbours& e,
                              std::vector<std::string> query,
                              ExpansionOptions o,
                              std::unordered_set<std::string> present = {}) {
    std::vector<QueryTerm> out;
    scout::detail::expand_neighbours(e, query, o, present, out);
    return out;
}

/// An embedder without document semantics (hashing) that lends TinyVectors for expansion.
class TinyEmbedder final : public Embedder {
public:
    std::string model_id() const override { return inner_.model_id(); }
    std::size_t dim() const override { return inner_.dim(); }
    Result<std::vector<float>> embed(std::span<const std::string> texts) override {
        return inner_.embed(texts);
    }
    std::shared_ptr<const WordVectors> word_vectors() const override {
        return std::make_shared<TinyVectors>();
    }

private:
    HashingEmbedder inner_{32};
};

Catalog make_catalog(ExpansionOptions expansion) {
    CatalogOptions options;
    options.expansion = expansion;
    auto catalog = Catalog::create(
        options, std::make_shared<CachingEmbedder>(std::make_shared<TinyEmbedder>(), 64));
    REQUIRE(catalog.ok());
    CatalogSpec spec;
    spec.servers.push_back({"infra",
                            "Compute infrastructure.",
                            "",
                            "",
                            ServerStatus::active,
                            {{"scale_cluster", "", "Scale a cluster to more nodes.", "", ""},
                             {"get_forecast", "", "Weather forecast for a city.", "", ""}}});
    REQUIRE(catalog->upsert_servers(spec).ok());
    REQUIRE(catalog->commit().ok());
    return std::move(catalog.value());
}

}  // namespace

TEST_CASE("neighbour expansion adds the nearest catalog words, weighted by cosine", "[expansion]") {
    const auto e = tiny_expander();
    REQUIRE(e != nullptr);
    CHECK(e->size() == 4);  // "unknownword" has no vector
    ExpansionOptions o{.neighbours = 1, .neighbour_weight = 0.5f, .neighbour_min_similarity = 0.6f};
    const auto one = expand(*e, {"kubernetes"}, o);
    REQUIRE(one.size() == 2);  // "clusters" beats "cluster": both of its terms
    CHECK(one[0].term == "clusters");
    CHECK(one[1].term == "~cluster");
    const float cos_clusters =
        (0.8f * 0.99f + 0.4f * 0.1f) / (std::sqrt(0.8f) * std::sqrt(0.99f * 0.99f + 0.01f));
    CHECK(one[0].weight == Approx(0.5f * cos_clusters).epsilon(1e-4));
}

TEST_CASE("neighbour expansion respects the count, the threshold and terms already present",
          "[expansion]") {
    const auto e = tiny_expander();
    ExpansionOptions o{.neighbours = 5, .neighbour_weight = 0.5f, .neighbour_min_similarity = 0.6f};
    std::vector<std::string> terms;
    for (const QueryTerm& t : expand(*e, {"kubernetes", "kubernetes"}, o)) {
        terms.push_back(t.term);
    }
    // "cluster" shares no term with "clusters" and is added; "container" passes 0.6; "weather"
    // never does; the repeated query word adds nothing twice.
    CHECK(terms ==
          std::vector<std::string>{"clusters", "~cluster", "cluster", "container", "~contain"});
    o.neighbour_min_similarity = 0.9f;
    CHECK(expand(*e, {"kubernetes"}, o).size() == 2);
    // A neighbour with a term the query already has is skipped (here: "~cluster").
    const auto skipped = expand(*e, {"kubernetes"}, o, {"~cluster"});
    CHECK(skipped.empty());
    o.neighbours = 0;
    CHECK(expand(*e, {"kubernetes"}, o).empty());
    CHECK(expand(*e, {"nosuchword", ""}, ExpansionOptions{}).empty());
    CHECK(WordNeighbours::build(std::make_shared<TinyVectors>(),
                                {{"nosuchword", {"nosuchword"}}}) == nullptr);
    CHECK(WordNeighbours::build(nullptr, {{"cluster", {"cluster"}}}) == nullptr);
}

TEST_CASE("a catalog expands queries with its own words through the embedder's word vectors",
          "[expansion]") {
    SearchOptions bm25{.mode = Mode::bm25};
    const Catalog on = make_catalog(ExpansionOptions{.neighbours = 3, .neighbour_weight = 0.3f});
    auto r = on.searcher().search("kubernetes", bm25);
    REQUIRE(r.ok());
    REQUIRE(r->hits.size() == 1);
    CHECK(r->hits[0].tool == "scale_cluster");
    // Off: no document contains "kubernetes".
    const Catalog off = make_catalog(ExpansionOptions{.neighbours = 0});
    r = off.searcher().search("kubernetes", bm25);
    REQUIRE(r.ok());
    CHECK(r->hits.empty());
}

TEST_CASE("StaticEmbedder lends its word vectors, resolving inflections like embed()",
          "[expansion]") {
    scout::test::TempDir dir;
    const std::string path = dir.write("tiny.txt", "file 1 0 0\nsystem 0 1 0\ndeploy 0 0 1\n");
    auto e = StaticEmbedder::load(path);
    REQUIRE(e.ok());
    const auto words = e.value()->word_vectors();
    REQUIRE(words != nullptr);
    REQUIRE(words->dim() == 3);
    float v[3] = {};
    REQUIRE(words->lookup("deploying", v));
    CHECK(v[0] == Approx(0.0f).margin(0.02));
    CHECK(v[2] == Approx(1.0f).margin(0.02));
    REQUIRE(words->lookup("filesystem", v));  // two pieces sharing one word's weight
    CHECK(v[0] == Approx(0.5f).margin(0.02));
    CHECK(v[1] == Approx(0.5f).margin(0.02));
    CHECK_FALSE(words->lookup("zzzz", v));
}

TEST_CASE("neighbour options survive the index file's options JSON, old files get the defaults",
          "[expansion]") {
    CatalogOptions o;
    o.expansion.neighbours = 5;
    o.expansion.neighbour_weight = 0.25f;
    o.expansion.neighbour_min_similarity = 0.7f;
    nlohmann::json j = scout::detail::options_to_json(o);
    auto back = scout::detail::options_from_json(j);
    REQUIRE(back.ok());
    CHECK(back->expansion.neighbours == 5);
    CHECK(back->expansion.neighbour_weight == Approx(0.25f));
    CHECK(back->expansion.neighbour_min_similarity == Approx(0.7f));
    j["expansion"].erase("neighbours");
    back = scout::detail::options_from_json(j);
    REQUIRE(back.ok());
    CHECK(back->expansion.neighbours == ExpansionOptions{}.neighbours);
    j["expansion"]["neighbours"] = 3;
    j["expansion"]["neighbour_min_similarity"] = 7;
    CHECK_FALSE(scout::detail::options_from_json(j).ok());
}

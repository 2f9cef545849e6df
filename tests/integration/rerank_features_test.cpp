// rerank_features_test.cpp: the re-ranker's per-field BM25, late-interaction and BM25-margin
// features, read from a search's candidates: each field is scored alone and scaled to the best
// candidate; MaxSim lets a query word meet its synonym through the embedder's word vectors, and
// is 0 without them; the margin is on BM25's first candidate only; a model weighing MaxSim
// re-orders by it.
#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"
#include "scout/reranker.hpp"

namespace {

using scout::RerankFeature;

constexpr auto feature_index(RerankFeature f) {
    return static_cast<std::size_t>(f);
}

/// "remove" and "delete" nearly alike, "create" apart from both; other words have no vector.
class SynonymVectors final : public scout::WordVectors {
public:
    std::size_t dim() const override { return 3; }
    bool lookup(std::string_view word, float* out) const override {
        static const std::map<std::string, std::array<float, 3>, std::less<>> kTable = {
            {"remove", {1.0f, 0.1f, 0.0f}},
            {"delete", {0.98f, 0.15f, 0.0f}},
            {"deletes", {0.97f, 0.2f, 0.0f}},
            {"create", {0.0f, 0.0f, 1.0f}},
            {"creates", {0.0f, 0.1f, 0.99f}}};
        const auto it = kTable.find(word);
        if (it == kTable.end()) {
            return false;
        }
        std::copy(it->second.begin(), it->second.end(), out);
        return true;
    }
};

/// A hashing embedder that lends SynonymVectors as its word vectors.
class SynonymEmbedder final : public scout::Embedder {
public:
    std::string model_id() const override { return "synonyms-test"; }
    std::size_t dim() const override { return inner_.dim(); }
    scout::Result<std::vector<float>> embed(std::span<const std::string> texts) override {
        return inner_.embed(texts);
    }
    std::shared_ptr<const scout::WordVectors> word_vectors() const override {
        return std::make_shared<SynonymVectors>();
    }

private:
    scout::HashingEmbedder inner_{32};
};

scout::CatalogSpec records_catalog() {
    scout::CatalogSpec spec;
    spec.servers.push_back({"records",
                            "Keeps records.",
                            "",
                            "",
                            scout::ServerStatus::active,
                            {{"delete_record", "", "Deletes a record for good.", "", ""},
                             {"create_record", "", "Creates a record from its fields.", "", ""},
                             {"list_records",
                              "",
                              "Lists every record, record after record, with a record count.",
                              "",
                              ""},
                             {"archive_records",
                              "",
                              "Moves an old record to cold storage after a year of keeping it in "
                              "the warm tier, where readers still find it through the index.",
                              "",
                              ""}}});
    return spec;
}

scout::Catalog records_catalog_with(std::shared_ptr<scout::Embedder> embedder) {
    auto catalog = scout::Catalog::create({}, std::move(embedder));
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(records_catalog()).ok());
    REQUIRE(catalog->commit().ok());
    return std::move(catalog.value());
}

/// Each candidate's features by tool name.
std::map<std::string, std::vector<float>> features_of(const scout::Catalog& catalog,
                                                      const std::string& query) {
    scout::SearchOptions options;
    options.rerank_candidates = true;
    options.exact_name_first = false;
    auto result = catalog.searcher().search(query, options);
    REQUIRE(result.ok());
    std::map<std::string, std::vector<float>> out;
    for (const scout::RerankCandidate& c : result->candidates) {
        REQUIRE(c.features.size() == scout::kRerankFeatureCount);
        for (const float v : c.features) {
            CHECK(v >= 0.0f);
            CHECK(v <= 1.0f);
        }
        out[c.key.tool] = c.features;
    }
    return out;
}

}  // namespace

TEST_CASE("per-field BM25 scores each field alone, scaled to the best candidate", "[rerank]") {
    const scout::Catalog catalog = records_catalog_with(nullptr);
    const auto f = features_of(catalog, "delete record");
    REQUIRE(f.size() == 4);
    // The name field: "delete" and "record" in delete_record's name, "record" alone in the others.
    CHECK(f.at("delete_record")[feature_index(RerankFeature::bm25_name)] == 1.0f);
    CHECK(f.at("create_record")[feature_index(RerankFeature::bm25_name)] > 0.0f);
    CHECK(f.at("create_record")[feature_index(RerankFeature::bm25_name)] < 1.0f);
    // The description: list_records says "record" three times, but in a longer text than the
    // one-"record" descriptions; delete_record's also holds "deletes".
    CHECK(f.at("delete_record")[feature_index(RerankFeature::bm25_description)] == 1.0f);
    CHECK(f.at("list_records")[feature_index(RerankFeature::bm25_description)] >
          f.at("create_record")[feature_index(RerankFeature::bm25_description)]);
    // One "record" each, in a long description and in a short one: the long one scores less.
    CHECK(f.at("archive_records")[feature_index(RerankFeature::bm25_description)] <
          f.at("create_record")[feature_index(RerankFeature::bm25_description)]);
    // The server's name and description are the same for all three.
    CHECK(f.at("delete_record")[feature_index(RerankFeature::bm25_server)] ==
          f.at("list_records")[feature_index(RerankFeature::bm25_server)]);
    // Without word vectors, no late interaction.
    for (const auto& [tool, row] : f) {
        INFO(tool);
        CHECK(row[feature_index(RerankFeature::maxsim)] == 0.0f);
        CHECK(row[feature_index(RerankFeature::maxsim_relative)] == 0.0f);
    }
}

TEST_CASE("the BM25 margin is on BM25's first candidate only", "[rerank]") {
    const scout::Catalog catalog = records_catalog_with(nullptr);
    const auto f = features_of(catalog, "delete record");
    std::size_t with_margin = 0;
    for (const auto& [tool, row] : f) {
        if (row[feature_index(RerankFeature::bm25_top_margin)] > 0.0f) {
            ++with_margin;
            CHECK(row[feature_index(RerankFeature::bm25_reciprocal_rank)] == 1.0f);
            CHECK(row[feature_index(RerankFeature::bm25_top_margin)] < 1.0f);
        }
    }
    CHECK(with_margin == 1);
}

TEST_CASE("late interaction meets a query word's synonym through word vectors", "[rerank]") {
    const scout::Catalog catalog = records_catalog_with(std::make_shared<SynonymEmbedder>());
    // "remove" is in no tool; its vector is close to "delete".
    const auto f = features_of(catalog, "remove record");
    REQUIRE(f.count("delete_record") == 1);
    REQUIRE(f.count("create_record") == 1);
    const float del = f.at("delete_record")[feature_index(RerankFeature::maxsim)];
    const float cre = f.at("create_record")[feature_index(RerankFeature::maxsim)];
    CHECK(del > cre);
    CHECK(cre > 0.0f);  // "record" has no vector: its stem is matched instead
    CHECK(del < 1.0f);  // "remove" is near "delete", not the same
    CHECK(f.at("delete_record")[feature_index(RerankFeature::maxsim_relative)] == 1.0f);

    scout::Reranker late;
    late.weights[feature_index(RerankFeature::maxsim_relative)] = 5.0;
    scout::SearchOptions options;
    options.exact_name_first = false;
    options.reranker = std::make_shared<const scout::Reranker>(late);
    auto reranked = catalog.searcher().search("remove record", options);
    REQUIRE(reranked.ok());
    REQUIRE_FALSE(reranked->hits.empty());
    CHECK(reranked->hits[0].tool == "delete_record");
}

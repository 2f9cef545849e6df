// document_cache_test.cpp: a rendered document's weighted terms equal those of the plain
// field-by-field reference (analyze each field, sum each term's weights in first-occurrence
// order), whether the parameters come from validation or from the schema, for documents of any
// size, servers repeated and alternated, and analyzers switched between calls.
#include "snapshot/document_cache.hpp"

#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "analysis/tool_action.hpp"
#include "analysis/word_pairs.hpp"
#include "document/tool_document.hpp"
#include "document/validate.hpp"

using scout::AnalyzerOptions;
using scout::FieldWeights;
using scout::ServerSpec;
using scout::ToolSpec;
using scout::detail::Analyzer;
using scout::detail::CachedDocument;
using scout::detail::DocumentCache;
using scout::detail::StagedTool;

namespace {

using WeightedTerms = std::vector<std::pair<std::string, float>>;

WeightedTerms reference_terms(const ServerSpec& server,
                              const ToolSpec& tool,
                              const Analyzer& analyzer,
                              const FieldWeights& weights) {
    auto doc = scout::detail::make_tool_document(server, tool);
    REQUIRE(doc.ok());
    WeightedTerms out;
    std::unordered_map<std::string, std::size_t> slot;
    const auto add = [&](const std::string& term, float weight) {
        auto [it, fresh] = slot.try_emplace(term, out.size());
        if (fresh) {
            out.emplace_back(term, 0.0f);
        }
        out[it->second].second += weight;
    };
    const std::pair<const std::string*, float> fields[] = {
        {&doc->name, weights.name},
        {&doc->server, weights.server},
        {&doc->server_description, weights.server_description},
        {&doc->description, weights.description},
        {&doc->parameters, weights.parameters}};
    for (const auto& [text, weight] : fields) {
        if (weight > 0.0f) {
            for (const std::string& term : analyzer.analyze(*text)) {
                add(term, weight);
            }
        }
    }
    const std::string action =
        scout::detail::action_term(scout::detail::action_of_tool(server.name, tool.name));
    if (weights.action > 0.0f && !action.empty()) {
        add(action, weights.action);
    }
    if (weights.word_pairs > 0.0f) {
        std::vector<std::string> pairs;
        scout::detail::append_word_pairs(tool.name, pairs);
        scout::detail::append_word_pairs(tool.description, pairs);
        for (const std::string& term : pairs) {
            add(term, weights.word_pairs);
        }
    }
    return out;
}

std::string random_words(std::mt19937& rng, std::size_t count, std::size_t vocabulary) {
    static const char* const kStarts[] = {"get",
                                          "List",
                                          "create",
                                          "Delete",
                                          "search",
                                          "HTTP",
                                          "user",
                                          "Repo",
                                          "file",
                                          "the",
                                          "and",
                                          "JSON"};
    std::uniform_int_distribution<std::size_t> word(0, vocabulary - 1);
    std::uniform_int_distribution<std::size_t> start(0, std::size(kStarts) - 1);
    std::string out;
    for (std::size_t i = 0; i < count; ++i) {
        out += out.empty() ? "" : (i % 7 == 0 ? ", " : " ");
        out += kStarts[start(rng)];
        out += 'w';  // a word of its own: many distinct terms
        out += std::to_string(word(rng));
    }
    return out;
}

ServerSpec random_server(std::mt19937& rng, int index) {
    ServerSpec server;
    server.name = "server-" + std::to_string(index) + "_Data";
    server.description = random_words(rng, 5 + static_cast<std::size_t>(index % 30), 300);
    server.category = index % 2 == 0 ? "analytics" : "";
    server.environment = index % 3 == 0 ? "prod" : "";
    return server;
}

ToolSpec random_tool(std::mt19937& rng, std::size_t description_words) {
    std::uniform_int_distribution<int> pick(0, 5);
    static const char* const kNames[] = {"create_pull_request",
                                         "getUserProfile",
                                         "deleteFile",
                                         "search-issues",
                                         "list.repos",
                                         "runQuery"};
    ToolSpec tool;
    tool.name = kNames[pick(rng)];
    tool.name += '_';
    tool.name += std::to_string(rng() % 1000);
    tool.title = pick(rng) == 0 ? "Open PR" : "";
    tool.description = random_words(rng, description_words, 5000);
    tool.input_schema = R"({"type":"object","properties":{"repo":{"type":"string","description":")";
    tool.input_schema += random_words(rng, 4, 200);
    tool.input_schema += R"("},"state":{"type":"string","enum":["open","closed"]},)";
    tool.input_schema += R"("limit":{"type":"integer"}},"required":["repo"]})";
    return tool;
}

StagedTool validated(const ServerSpec& server, const ToolSpec& tool) {
    std::optional<std::string> parameters;
    REQUIRE(scout::detail::validate_tool(server, tool, &parameters).ok());
    REQUIRE(parameters.has_value());
    return StagedTool(tool, std::move(parameters));
}

}  // namespace

TEST_CASE("rendered documents equal the field-by-field reference", "[document_cache]") {
    std::mt19937 rng(11);
    const Analyzer analyzer;  // the default chain: stop words, stems with surface, catenation
    const FieldWeights weights;
    std::vector<ServerSpec> servers;
    for (int s = 0; s < 12; ++s) {
        servers.push_back(random_server(rng, s));
    }
    // Tools server by server (as a commit renders them), then servers alternating, so the
    // remembered server fields are both reused and replaced; descriptions from empty to a few
    // thousand distinct words, past every growth of the term table.
    const std::size_t lengths[] = {0, 1, 3, 20, 60, 200, 900, 3000};
    for (int round = 0; round < 2; ++round) {
        for (std::size_t t = 0; t < 120; ++t) {
            const ServerSpec& server = servers[round == 0 ? t / 10 : t % servers.size()];
            const ToolSpec tool = random_tool(rng, lengths[t % std::size(lengths)]);
            const WeightedTerms expected = reference_terms(server, tool, analyzer, weights);
            INFO("round " << round << " tool " << t << " description words "
                          << lengths[t % std::size(lengths)]);
            auto from_schema = DocumentCache::render(server, StagedTool(tool), analyzer, weights);
            REQUIRE(from_schema.has_value());
            CHECK(from_schema->weighted_terms == expected);
            auto from_validation =
                DocumentCache::render(server, validated(server, tool), analyzer, weights);
            REQUIRE(from_validation.has_value());
            CHECK(from_validation->weighted_terms == expected);
            CHECK(from_validation->text == from_schema->text);
        }
    }
}

TEST_CASE("a server's remembered terms belong to the analyzer that made them", "[document_cache]") {
    std::mt19937 rng(5);
    const ServerSpec server = random_server(rng, 7);
    const Analyzer stemming;
    const Analyzer plain(AnalyzerOptions{.split_identifiers = true,
                                         .keep_joined_case = false,
                                         .remove_stop_words = false,
                                         .stem = false,
                                         .keep_surface = false,
                                         .max_token_bytes = 64});
    const FieldWeights weights;
    for (int i = 0; i < 6; ++i) {
        const Analyzer& analyzer = i % 2 == 0 ? stemming : plain;
        const ToolSpec tool = random_tool(rng, 10);
        auto doc = DocumentCache::render(server, StagedTool(tool), analyzer, weights);
        REQUIRE(doc.has_value());
        CHECK(doc->weighted_terms == reference_terms(server, tool, analyzer, weights));
    }
}

TEST_CASE("fields weighted zero add no terms", "[document_cache]") {
    std::mt19937 rng(9);
    const ServerSpec server = random_server(rng, 3);
    const Analyzer analyzer;
    FieldWeights weights;
    weights.server = 0.0f;
    weights.server_description = 0.0f;
    weights.word_pairs = 0.0f;
    for (int i = 0; i < 3; ++i) {
        const ToolSpec tool = random_tool(rng, 15);
        auto doc = DocumentCache::render(server, StagedTool(tool), analyzer, weights);
        REQUIRE(doc.has_value());
        CHECK(doc->weighted_terms == reference_terms(server, tool, analyzer, weights));
    }
}

TEST_CASE("caching a document interns its terms and releases their strings", "[document_cache]") {
    std::mt19937 rng(13);
    const ServerSpec server = random_server(rng, 2);
    const Analyzer analyzer;
    const FieldWeights weights;
    DocumentCache cache;
    for (int i = 0; i < 4; ++i) {
        const ToolSpec tool = random_tool(rng, 40);
        auto doc = DocumentCache::render(server, StagedTool(tool), analyzer, weights);
        REQUIRE(doc.has_value());
        const WeightedTerms terms = doc->weighted_terms;
        REQUIRE_FALSE(terms.empty());
        const CachedDocument* cached = cache.add(DocumentCache::key(server, tool), std::move(*doc));
        REQUIRE(cached != nullptr);
        CHECK(cached->weighted_terms.empty());
        CHECK(cached->term_hashes.empty());
        // The ids name the same terms, in the same order, with the same frequencies.
        const auto vocabulary = cache.vocabulary();
        REQUIRE(cached->term_ids.size() == terms.size());
        for (std::size_t t = 0; t < terms.size(); ++t) {
            const auto id = vocabulary->find(terms[t].first);
            REQUIRE(id.has_value());
            CHECK(cached->term_ids[t].first == *id);
            CHECK(cached->term_ids[t].second == terms[t].second);
        }
    }
}

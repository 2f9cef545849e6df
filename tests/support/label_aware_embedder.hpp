// label_aware_embedder.hpp: a strong dense stand-in for tests and benchmarks only, never shipped:
// an embedder built from a labelled query set that puts each query near the vector of its gold
// tool, for a seeded share `keep` of the queries; the other queries (and any text it was not
// built with) get a vector of their own, unrelated to every tool. Its dense-only Hit@1 is about
// `keep`, far above BM25's, which is what a strong embedder looks like to the fusion.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "scout/embedder.hpp"
#include "scout/types.hpp"

#include "document/tool_document.hpp"
#include "eval/evaluation.hpp"
#include "util/hash.hpp"

namespace scout::testing {

class LabelAwareEmbedder final : public Embedder {
public:
    LabelAwareEmbedder(const CatalogSpec& catalog,
                       const std::vector<eval::LabelledQuery>& queries,
                       double keep,
                       std::uint64_t seed,
                       std::size_t dim = 64)
        : keep_(keep), seed_(seed), dim_(dim) {
        for (const ServerSpec& server : catalog.servers) {
            for (const ToolSpec& tool : server.tools) {
                auto doc = detail::make_tool_document(server, tool);
                if (doc.ok()) {
                    // Tools of one text share the first one's vector, as with any embedder.
                    const auto placed =
                        tools_.emplace(doc->text(), key_text(server.name, tool.name));
                    vector_key_.emplace(key_text(server.name, tool.name), placed.first->second);
                }
            }
        }
        for (const eval::LabelledQuery& q : queries) {
            if (q.relevant.empty() || unit(hash(q.query) ^ seed_) >= keep_) {
                continue;
            }
            const auto gold = vector_key_.find(key_text(q.relevant[0].server, q.relevant[0].tool));
            if (gold != vector_key_.end()) {
                queries_.emplace(q.query, gold->second);
            }
        }
    }

    [[nodiscard]] std::string model_id() const override {
        // Independent of the data it was built from: calibrating on one labelled set and
        // searching another is the same "model".
        return "label-aware-stand-in-" + std::to_string(dim_) + "-keep" +
               std::to_string(static_cast<int>(keep_ * 100));
    }
    [[nodiscard]] std::size_t dim() const override { return dim_; }

    [[nodiscard]] Result<std::vector<float>> embed(std::span<const std::string> texts) override {
        std::vector<float> out;
        out.reserve(texts.size() * dim_);
        for (const std::string& text : texts) {
            std::vector<float> v;
            if (auto tool = tools_.find(text); tool != tools_.end()) {
                v = gaussian(hash(tool->second));
            } else if (auto gold = queries_.find(text); gold != queries_.end()) {
                // Near the gold tool, not on it: a little noise of the query's own.
                v = gaussian(hash(gold->second));
                const std::vector<float> noise = gaussian(hash(text) ^ 0x5bd1e995u);
                for (std::size_t i = 0; i < dim_; ++i) {
                    v[i] += 0.3f * noise[i];
                }
            } else {
                v = gaussian(hash(text) ^ 0x9e3779b97f4a7c15ull);
            }
            out.insert(out.end(), v.begin(), v.end());
        }
        return out;
    }

    /// How many labelled queries it places near their gold tool.
    [[nodiscard]] std::size_t placed_queries() const { return queries_.size(); }

private:
    static std::string key_text(const std::string& server, const std::string& tool) {
        return server + '\x1f' + tool;
    }
    [[nodiscard]] std::uint64_t hash(const std::string& text) const {
        return detail::fnv1a(text, detail::kFnvOffset ^ seed_);
    }
    static double unit(std::uint64_t h) {
        return static_cast<double>(h >> 11) / static_cast<double>(1ull << 53);
    }
    /// A unit-length random vector determined by `h`.
    [[nodiscard]] std::vector<float> gaussian(std::uint64_t h) const {
        std::mt19937_64 rng(h);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        std::vector<float> v(dim_);
        double norm = 0;
        for (float& x : v) {
            x = normal(rng);
            norm += static_cast<double>(x) * static_cast<double>(x);
        }
        const auto scale = static_cast<float>(1.0 / std::sqrt(norm > 0 ? norm : 1.0));
        for (float& x : v) {
            x *= scale;
        }
        return v;
    }

    double keep_;
    std::uint64_t seed_;
    std::size_t dim_;
    std::unordered_map<std::string, std::string> tools_;       ///< document text -> tool
    std::unordered_map<std::string, std::string> vector_key_;  ///< tool -> whose vector it has
    std::unordered_map<std::string, std::string> queries_;  ///< placed query -> gold's vector key
};

}  // namespace scout::testing

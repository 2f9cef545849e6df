// scope_authorization_test.cpp: property test of the scope filter over random (scope, query, k)
// cases on a generated catalog: no hit ever lies outside the caller's scope, and in-scope
// results equal brute force: BM25 recomputed from scratch (same analyzer, same formula, idf over
// the whole corpus) and an exact dense scan over the allowed vectors.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <unordered_map>

#include <catch2/catch.hpp>

#include "scout/scout.hpp"

#include "analysis/analyzer.hpp"
#include "document/tool_document.hpp"

namespace {

const char* const kWords[] = {"invoice",  "ticket",  "deploy",  "query",    "report", "user",
                              "alert",    "metric",  "bucket",  "pipeline", "schema", "refund",
                              "backup",   "cluster", "payment", "customer", "search", "upload",
                              "calendar", "message", "channel", "token"};
const char* const kEnvs[] = {"prod", "dev", "staging", ""};

std::string words(std::mt19937& rng, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) {
        if (!out.empty()) {
            out += ' ';
        }
        out += kWords[rng() % std::size(kWords)];
    }
    return out;
}

scout::CatalogSpec generate(std::mt19937& rng) {
    scout::CatalogSpec spec;
    for (int s = 0; s < 24; ++s) {
        scout::ServerSpec server{
            "srv" + std::to_string(s),
            words(rng, 4),
            "",
            kEnvs[rng() % 4],
            s % 7 == 6 ? scout::ServerStatus::inactive : scout::ServerStatus::active,
            {}};
        const int tools = 3 + static_cast<int>(rng() % 20);
        for (int t = 0; t < tools; ++t) {
            server.tools.push_back({words(rng, 1) + "_" + words(rng, 1) + "_" + std::to_string(t),
                                    "",
                                    words(rng, 3 + static_cast<int>(rng() % 8)),
                                    R"({"type":"object","properties":{")" + words(rng, 1) +
                                        R"(":{"type":"string","description":")" + words(rng, 2) +
                                        R"("}}})",
                                    ""});
        }
        spec.servers.push_back(std::move(server));
    }
    return spec;
}

struct Brute {
    std::vector<std::string> servers;  // per ToolId
    std::vector<std::string> envs;
    std::vector<std::unordered_map<std::string, float>> tf;
    std::vector<float> length;
    std::vector<std::vector<float>> vecs;
};

/// Independent re-implementation of the documented BM25F scoring over every indexed tool.
Brute brute_index(const scout::CatalogSpec& spec,
                  const scout::CatalogOptions& options,
                  scout::Embedder& embedder) {
    // Indexed tools in ToolId order: ACTIVE servers by name, tools by name.
    std::map<std::string, const scout::ServerSpec*> by_name;
    for (const auto& s : spec.servers) {
        by_name[s.name] = &s;
    }
    const scout::detail::Analyzer analyzer(options.analyzer);
    const auto& w = options.bm25.weights;
    Brute b;
    for (const auto& [name, server] : by_name) {
        if (server->status != scout::ServerStatus::active) {
            continue;
        }
        std::map<std::string, const scout::ToolSpec*> tools;
        for (const auto& t : server->tools) {
            tools[t.name] = &t;
        }
        for (const auto& [tname, tool] : tools) {
            auto doc = scout::detail::make_tool_document(*server, *tool);
            REQUIRE(doc.ok());
            std::unordered_map<std::string, float> tf;
            float len = 0;
            const std::pair<const std::string*, float> fields[] = {
                {&doc->name, w.name},
                {&doc->server, w.server},
                {&doc->server_description, w.server_description},
                {&doc->description, w.description},
                {&doc->parameters, w.parameters}};
            for (const auto& [text, weight] : fields) {
                for (const std::string& term : analyzer.analyze(*text)) {
                    tf[term] += weight;
                    len += weight;
                }
            }
            b.servers.push_back(name);
            b.envs.push_back(server->environment);
            b.tf.push_back(std::move(tf));
            b.length.push_back(len);
            const std::string text = doc->text();
            auto v = embedder.embed(std::span<const std::string>(&text, 1));
            REQUIRE(v.ok());
            b.vecs.push_back(v.value());
        }
    }
    return b;
}

std::vector<float> unit(std::vector<float> v) {
    double sum = 0;
    for (float x : v) {
        sum += static_cast<double>(x) * static_cast<double>(x);
    }
    const float inv = sum > 0 ? static_cast<float>(1.0 / std::sqrt(sum)) : 0.0f;
    for (float& x : v) {
        x *= inv;
    }
    return v;
}

std::vector<std::pair<float, scout::ToolId>> brute_bm25(const Brute& b,
                                                        const scout::CatalogOptions& options,
                                                        const std::string& query,
                                                        const std::vector<bool>& allowed) {
    const scout::detail::Analyzer analyzer(options.analyzer);
    std::vector<std::pair<std::string, float>> terms;  // distinct terms, first-appearance order
    for (const std::string& t : analyzer.analyze(query)) {
        auto it =
            std::find_if(terms.begin(), terms.end(), [&](const auto& p) { return p.first == t; });
        if (it == terms.end()) {
            terms.emplace_back(t, 1.0f);
        } else {
            it->second += 1.0f;
        }
    }
    const double n = static_cast<double>(b.tf.size());
    double total = 0;
    for (float l : b.length) {
        total += static_cast<double>(l);
    }
    const double avgdl = total / n;
    const auto k1 = static_cast<double>(options.bm25.k1);
    const auto bb = static_cast<double>(options.bm25.b);
    std::vector<float> score(b.tf.size(), 0.0f);
    for (const auto& [term, qtf] : terms) {
        double df = 0;
        for (const auto& tf : b.tf) {
            df += tf.count(term) != 0 ? 1 : 0;
        }
        if (df == 0) {
            continue;
        }
        const double idf = std::log(1.0 + (n - df + 0.5) / (df + 0.5));
        for (std::size_t d = 0; d < b.tf.size(); ++d) {
            auto it = b.tf[d].find(term);
            if (it == b.tf[d].end()) {
                continue;
            }
            const auto tf = static_cast<double>(it->second);
            const double norm = k1 * (1.0 - bb + bb * static_cast<double>(b.length[d]) / avgdl);
            score[d] += qtf * static_cast<float>(idf * tf * (k1 + 1.0) / (tf + norm));
        }
    }
    std::vector<std::pair<float, scout::ToolId>> out;
    for (std::size_t d = 0; d < score.size(); ++d) {
        if (allowed[d] && score[d] > 0.0f) {
            out.emplace_back(score[d], static_cast<scout::ToolId>(d));
        }
    }
    std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) {
        return x.first > y.first || (x.first == y.first && x.second < y.second);
    });
    return out;
}

std::vector<float> brute_dense(const Brute& b,
                               const std::vector<float>& q,
                               const std::vector<bool>& allowed) {
    std::vector<float> out;
    for (std::size_t d = 0; d < b.vecs.size(); ++d) {
        if (allowed[d]) {
            const std::vector<float> v = unit(b.vecs[d]);
            double dot = 0;
            for (std::size_t i = 0; i < v.size(); ++i) {
                dot += static_cast<double>(v[i]) * static_cast<double>(q[i]);
            }
            out.push_back(static_cast<float>(dot));
        }
    }
    std::sort(out.rbegin(), out.rend());
    return out;
}

}  // namespace

TEST_CASE("scoped search never leaves the scope and equals brute force", "[scope][property]") {
    std::mt19937 rng(20240611);
    const scout::CatalogSpec spec = generate(rng);
    auto embedder = std::make_shared<scout::HashingEmbedder>(48);
    const auto kind = GENERATE(scout::DenseIndexKind::flat, scout::DenseIndexKind::hnsw);
    // The brute force models plain BM25F; lexicon and compound expansion, word pairs and the
    // action term and boost change queries, documents and scores, so with them on only the
    // scope and ordering properties are checked.
    const bool expansion = GENERATE(false, true);
    scout::CatalogOptions options;
    options.dense.kind = kind;
    options.expansion.lexicon = expansion;
    if (!expansion) {
        options.bm25.weights.action = 0.0f;
        options.expansion.action_weight = 0.0f;
        options.expansion.action_boost = 0.0f;
        options.expansion.compound_weight = 0.0f;
        options.expansion.pair_weight = 0.0f;
        options.bm25.weights.word_pairs = 0.0f;
    }
    auto catalog = scout::Catalog::create(options, embedder);
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(spec).ok());
    REQUIRE(catalog->commit().ok());
    const scout::Searcher searcher = catalog->searcher();
    const Brute b = brute_index(spec, options, *embedder);
    REQUIRE(searcher.size() == b.servers.size());

    std::size_t checked_bm25 = 0;
    std::size_t checked_dense = 0;
    for (int c = 0; c < 1000; ++c) {
        scout::SearchOptions opt;
        opt.top_k = 1 + rng() % 20;
        opt.mode = static_cast<scout::Mode>(rng() % 3);
        std::set<std::string> scope;
        if (rng() % 5 != 0) {
            std::vector<std::string> list;
            const int n = static_cast<int>(rng() % 6);
            for (int i = 0; i < n; ++i) {
                list.push_back(rng() % 8 == 0 ? "unknown" + std::to_string(i)
                                              : "srv" + std::to_string(rng() % 24));
            }
            scope.insert(list.begin(), list.end());
            opt.servers = list;
        }
        if (rng() % 3 == 0) {
            opt.environment = kEnvs[rng() % 4];
        }
        const std::string query = words(rng, 1 + static_cast<int>(rng() % 4));
        std::vector<bool> allowed(b.servers.size());
        std::set<std::string> allowed_servers;
        for (std::size_t d = 0; d < allowed.size(); ++d) {
            allowed[d] = (!opt.servers || scope.count(b.servers[d]) != 0) &&
                         (!opt.environment || b.envs[d] == *opt.environment);
            if (allowed[d]) {
                allowed_servers.insert(b.servers[d]);
            }
        }
        INFO("case " << c << " query '" << query << "' k " << opt.top_k << " mode "
                     << scout::mode_name(opt.mode));
        auto r = searcher.search(query, opt);
        REQUIRE(r.ok());
        for (const scout::Hit& hit : r->hits) {
            REQUIRE(allowed_servers.count(hit.server) == 1);
            REQUIRE(allowed[hit.id]);
        }
        REQUIRE(r->hits.size() <= opt.top_k);
        if (opt.mode == scout::Mode::bm25 && expansion) {
            for (std::size_t i = 1; i < r->hits.size(); ++i) {
                REQUIRE(r->hits[i - 1].score >= r->hits[i].score);
            }
        } else if (opt.mode == scout::Mode::bm25) {
            const auto expect = brute_bm25(b, options, query, allowed);
            REQUIRE(r->hits.size() == std::min<std::size_t>(opt.top_k, expect.size()));
            for (std::size_t i = 0; i < r->hits.size(); ++i) {
                REQUIRE(r->hits[i].id == expect[i].second);
                REQUIRE(r->hits[i].score == Approx(expect[i].first).epsilon(1e-6));
            }
            ++checked_bm25;
        } else if (opt.mode == scout::Mode::dense) {
            auto qv = embedder->embed(std::span<const std::string>(&query, 1));
            REQUIRE(qv.ok());
            const auto expect = brute_dense(b, unit(qv.value()), allowed);
            if (!opt.servers && !opt.environment && kind == scout::DenseIndexKind::hnsw) {
                continue;  // unscoped HNSW is approximate by design; scoped queries scan exactly
            }
            REQUIRE(r->hits.size() == std::min<std::size_t>(opt.top_k, expect.size()));
            for (std::size_t i = 0; i < r->hits.size(); ++i) {
                // Same top-k scores up to float summation order (ties may swap ids).
                REQUIRE(r->hits[i].dense_score == Approx(expect[i]).margin(1e-5));
            }
            ++checked_dense;
        } else {
            for (const scout::Hit& hit : r->hits) {
                REQUIRE((hit.bm25_rank > 0 || hit.dense_rank > 0));
            }
        }
    }
    CHECK((expansion || checked_bm25 > 250));
    CHECK(checked_dense > 150);
}

TEST_CASE("list_tools honours the same scope", "[scope]") {
    std::mt19937 rng(5);
    const scout::CatalogSpec spec = generate(rng);
    auto catalog = scout::Catalog::create();
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(spec).ok());
    REQUIRE(catalog->commit().ok());
    const scout::Searcher s = catalog->searcher();
    scout::SearchOptions opt;
    opt.environment = "prod";
    for (const scout::Hit& h : s.list_tools(opt)) {
        const auto it = std::find_if(spec.servers.begin(), spec.servers.end(), [&](const auto& x) {
            return x.name == h.server;
        });
        REQUIRE(it != spec.servers.end());
        CHECK(it->environment == "prod");
        CHECK(it->status == scout::ServerStatus::active);
    }
    opt.servers = std::vector<std::string>{};
    CHECK(s.list_tools(opt).empty());
    auto r = s.search("invoice", opt);
    REQUIRE(r.ok());
    CHECK(r->hits.empty());
}

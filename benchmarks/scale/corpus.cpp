// corpus.cpp: the synthetic corpus (Zipfian words, random unit vectors) and the loader of a
// real catalog from the public datasets (read at run time, never copied).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "scout/catalog_loader.hpp"
#include "scout/embedder.hpp"
#include "scout/searcher.hpp"

#include "analysis/analyzer.hpp"
#include "bench_common.hpp"
#include "util/file_io.hpp"

namespace scout::bench {
namespace {

constexpr std::size_t kVocabulary = 50000;
constexpr std::size_t kStopRanks = 100;

/// A pronounceable, unique word per rank: base-100 digits of the rank as consonant-vowel pairs.
std::string word(std::size_t rank) {
    static const char* consonants = "bcdfghjklmnprstvwxyz";  // 20
    static const char* vowels = "aeiou";                     // 5
    std::string w;
    std::size_t r = rank;
    do {
        const std::size_t digit = r % 100;
        w += consonants[digit / 5];
        w += vowels[digit % 5];
        r /= 100;
    } while (r != 0);
    return w + "x";  // a closing consonant keeps stemmers from trimming the last syllable
}

template <class Rows>
void random_unit_rows(std::size_t rows, std::size_t dim, std::mt19937_64& rng, Rows& out) {
    std::normal_distribution<float> g(0.0f, 1.0f);
    out.resize(rows * dim);
    for (std::size_t i = 0; i < rows; ++i) {
        for (std::size_t d = 0; d < dim; ++d) {
            out[i * dim + d] = g(rng);
        }
        (void)normalize(out.data() + i * dim, dim);
    }
}

}  // namespace

std::string Corpus::text(std::size_t i) const {
    std::string t;
    for (std::uint32_t w : doc(i)) {
        if (!t.empty()) {
            t += ' ';
        }
        t += vocab[w];
    }
    return t;
}

std::vector<std::uint32_t> ids_of(const std::vector<ScoredDoc>& docs) {
    std::vector<std::uint32_t> ids;
    ids.reserve(docs.size());
    for (const ScoredDoc& d : docs) {
        ids.push_back(d.id);
    }
    return ids;
}

Corpus make_synthetic(std::size_t n, std::size_t queries, std::size_t dim, std::uint64_t seed) {
    Corpus c;
    c.name = "synthetic";
    for (std::size_t r = 0; r < kVocabulary; ++r) {
        c.vocab.push_back(word(r));
    }
    std::vector<double> cdf(kVocabulary);
    double sum = 0;
    for (std::size_t r = 0; r < kVocabulary; ++r) {
        sum += 1.0 / static_cast<double>(r + 1);
        cdf[r] = sum;
    }
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, sum);
    const auto draw = [&] {
        return static_cast<std::uint32_t>(std::upper_bound(cdf.begin(), cdf.end(), u(rng)) -
                                          cdf.begin());
    };
    std::uniform_int_distribution<std::size_t> length(40, 120);
    c.doc_offsets.reserve(n + 1);
    c.doc_words.reserve(n * 80);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t len = length(rng);
        for (std::size_t t = 0; t < len; ++t) {
            c.doc_words.push_back(std::min<std::uint32_t>(draw(), kVocabulary - 1));
        }
        c.doc_offsets.push_back(c.doc_words.size());
    }
    std::uniform_int_distribution<std::size_t> qlen(2, 4);
    for (std::size_t q = 0; q < queries; ++q) {
        std::vector<std::uint32_t> words;
        const std::size_t want = qlen(rng);
        while (words.size() < want) {
            const std::uint32_t w = std::min<std::uint32_t>(draw(), kVocabulary - 1);
            if (w >= kStopRanks && std::find(words.begin(), words.end(), w) == words.end()) {
                words.push_back(w);
            }
        }
        std::string text;
        for (std::uint32_t w : words) {
            text += (text.empty() ? "" : " ") + c.vocab[w];
        }
        c.queries.push_back(std::move(words));
        c.query_texts.push_back(std::move(text));
    }
    detail::PodVector<float> rows;
    random_unit_rows(n, dim, rng, rows);
    c.vectors = std::make_shared<VectorStore>(dim, std::move(rows));
    random_unit_rows(queries, dim, rng, c.query_vectors);
    return c;
}

Corpus load_real(const std::string& dir, std::size_t dim) {
    Corpus c;
    auto spec = load_catalog_file(dir + "/catalog.json");
    auto qtext = read_text_file(dir + "/queries.json");
    if (!spec || !qtext) {
        std::fprintf(stderr,
                     "real catalog skipped: %s\n",
                     (!spec ? spec.status() : qtext.status()).to_string().c_str());
        return c;
    }
    c.name = dir.substr(dir.find_last_of('/') + 1);
    const Analyzer analyzer;
    std::unordered_map<std::string, std::uint32_t> ids;
    std::vector<std::string> terms;
    const auto intern = [&](const std::string& t) {
        auto [it, added] = ids.emplace(t, static_cast<std::uint32_t>(c.vocab.size()));
        if (added) {
            c.vocab.push_back(t);
        }
        return it->second;
    };
    std::vector<std::string> texts;
    for (const ServerSpec& server : spec->servers) {
        for (const ToolSpec& tool : server.tools) {
            const std::string text = server.name + " " + tool.name + " " + tool.title + " " +
                                     tool.description + " " + tool.input_schema;
            terms.clear();
            analyzer.analyze(text, terms);
            for (const std::string& t : terms) {
                c.doc_words.push_back(intern(t));
            }
            c.doc_offsets.push_back(c.doc_words.size());
            texts.push_back(text);
        }
    }
    HashingEmbedder embedder(dim);
    detail::PodVector<float> rows;
    for (std::size_t i = 0; i < texts.size(); i += 256) {
        const std::span<const std::string> batch(texts.data() + i,
                                                 std::min<std::size_t>(256, texts.size() - i));
        auto embedded = embedder.embed(batch);
        rows.insert(rows.end(), embedded->begin(), embedded->end());
    }
    for (std::size_t i = 0; i < texts.size(); ++i) {
        (void)normalize(rows.data() + i * dim, dim);
    }
    c.vectors = std::make_shared<VectorStore>(dim, std::move(rows));
    c.spec = std::make_shared<const CatalogSpec>(std::move(*spec));
    const auto queries = nlohmann::json::parse(*qtext, nullptr, false);
    if (queries.is_discarded() || !queries.contains("queries")) {
        std::fprintf(stderr, "real catalog: queries.json is not valid\n");
        return {};
    }
    for (const auto& q : queries["queries"]) {
        const std::string text = q.value("query", "");
        terms.clear();
        analyzer.analyze(text, terms);
        std::vector<std::uint32_t> words;
        for (const std::string& t : terms) {
            if (auto it = ids.find(t);
                it != ids.end() &&
                std::find(words.begin(), words.end(), it->second) == words.end()) {
                words.push_back(it->second);
            }
        }
        if (text.empty() || words.empty() || text.size() > Searcher::kMaxQueryBytes) {
            continue;
        }
        auto v = embedder.embed(std::span<const std::string>(&text, 1));
        if (!v || !normalize(v->data(), dim)) {
            continue;
        }
        c.query_vectors.insert(c.query_vectors.end(), v->begin(), v->end());
        c.queries.push_back(std::move(words));
        c.query_texts.push_back(text);
    }
    return c;
}

CatalogSpec catalog_spec(const Corpus& c) {
    if (c.spec) {
        return *c.spec;
    }
    CatalogSpec spec;
    for (std::size_t i = 0; i < c.size(); ++i) {
        if (i % 50 == 0) {
            ServerSpec s;
            s.name = "server" + std::to_string(i / 50);
            s.description = "synthetic server";
            spec.servers.push_back(std::move(s));
        }
        ToolSpec t;
        t.name = "tool" + std::to_string(i);
        t.description = c.text(i);
        spec.servers.back().tools.push_back(std::move(t));
    }
    return spec;
}

}  // namespace scout::bench

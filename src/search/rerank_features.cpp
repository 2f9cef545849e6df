// rerank_features.cpp: see rerank_features.hpp. Words are compared by Porter stem, so "files"
// in a query meets "file" in a name; stop words are left out. Long fields are read up to a
// bound, which keeps a candidate's cost small whatever its schema holds.
#include "search/rerank_features.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "analysis/analyzer.hpp"
#include "analysis/stem_memo.hpp"
#include "analysis/term.hpp"
#include "search/rerank_maxsim.hpp"

namespace scout::detail {
namespace {

/// Bytes of a description or schema that the coverage features read.
constexpr std::size_t kMaxFieldBytes = 4096;
/// BM25's usual constants, for the per-field scores (not the index's tuned field mix).
constexpr double kFieldK1 = 1.2;
constexpr double kFieldB = 0.75;

enum Field : std::uint8_t { name_field, description_field, parameters_field, server_field };
constexpr std::size_t kFields = 4;

/// The stems of a text's words in order, stop words left out.
void append_stems(std::string_view text, std::vector<std::string>& out) {
    thread_local std::string arena;
    thread_local std::vector<RawToken> tokens;
    arena.clear();
    tokens.clear();
    Analyzer::raw_tokens(text.substr(0, kMaxFieldBytes), true, false, arena, tokens);
    for (const RawToken& t : tokens) {
        const std::string_view word(arena.data() + t.begin, t.size);
        if (!is_stop_word(word)) {
            out.push_back(memo_porter_stem(word));
        }
    }
}

double idf_of(const Snapshot& snap, const std::string& stem) {
    const auto n = static_cast<double>(snap.bm25.num_docs());
    std::optional<TermId> id = snap.bm25.term_id(make_term(TermKind::stem, stem));
    if (!id) {
        id = snap.bm25.term_id(stem);
    }
    const double df = id ? static_cast<double>(snap.bm25.doc_freq(*id)) : 0.0;
    return std::log(1.0 + (n - df + 0.5) / (df + 0.5));
}

RerankQueryWords query_words(const Snapshot& snap, std::string_view query) {
    RerankQueryWords q;
    std::string arena;
    std::vector<RawToken> tokens;
    Analyzer::raw_tokens(query.substr(0, kMaxFieldBytes), true, false, arena, tokens);
    for (const RawToken& t : tokens) {
        const std::string_view word(arena.data() + t.begin, t.size);
        if (is_stop_word(word)) {
            continue;
        }
        const std::string& s = memo_porter_stem(word);
        q.ordered.push_back(s);
        if (std::find(q.distinct.begin(), q.distinct.end(), s) == q.distinct.end()) {
            q.distinct.push_back(s);
            q.surface.emplace_back(word);
            q.idf.push_back(idf_of(snap, s));
            q.idf_sum += q.idf.back();
            if (!s.empty()) {
                q.first_bytes.push_back(s.front());
            }
        }
    }
    return q;
}

/// Adds to `tf` (one count per distinct query stem) the occurrences of the query's stems in
/// `text`, and returns the number of words it holds (stop words left out). Porter stemming only
/// rewrites a word's suffix, so a word whose first byte starts no query stem cannot match one
/// and is not stemmed.
std::size_t count_query_words(const RerankQueryWords& q, std::string_view text, float* tf) {
    thread_local std::string arena;
    thread_local std::vector<RawToken> tokens;
    arena.clear();
    tokens.clear();
    Analyzer::raw_tokens(text.substr(0, kMaxFieldBytes), true, false, arena, tokens);
    std::size_t length = 0;
    for (const RawToken& t : tokens) {
        const std::string_view word(arena.data() + t.begin, t.size);
        if (word.empty() || is_stop_word(word)) {
            continue;
        }
        ++length;
        if (q.first_bytes.find(word.front()) == std::string::npos) {
            continue;
        }
        const std::string& s = memo_porter_stem(word);
        for (std::size_t i = 0; i < q.distinct.size(); ++i) {
            if (q.distinct[i] == s) {
                tf[i] += 1.0f;
            }
        }
    }
    return length;
}

/// The IDF-weighted share of the query's stems that `tf` holds at least once.
double covered(const RerankQueryWords& q, const float* tf) {
    double sum = 0;
    for (std::size_t i = 0; i < q.distinct.size(); ++i) {
        sum += tf[i] > 0 ? q.idf[i] : 0.0;
    }
    return q.idf_sum > 0 ? sum / q.idf_sum : 0.0;
}

double field_bm25(const RerankQueryWords& q, const float* tf, double length, double mean_length) {
    const double norm = kFieldK1 * (1.0 - kFieldB + kFieldB * length / std::max(mean_length, 1.0));
    double sum = 0;
    for (std::size_t i = 0; i < q.distinct.size(); ++i) {
        const auto f = static_cast<double>(tf[i]);
        sum += f > 0 ? q.idf[i] * f * (kFieldK1 + 1.0) / (f + norm) : 0.0;
    }
    return sum;
}

/// True when `name` (stems in order) occurs as a contiguous run of `query`.
bool contains_run(const std::vector<std::string>& query, const std::vector<std::string>& name) {
    if (name.empty() || name.size() > query.size()) {
        return false;
    }
    return std::search(query.begin(), query.end(), name.begin(), name.end()) != query.end();
}

std::string_view server_description(const Snapshot& snap, const Hit& h) {
    if (h.id < snap.tools.size()) {
        const std::uint32_t s = snap.tools[h.id].server_index;
        if (s < snap.servers->records.size()) {
            return snap.servers->records[s].description;
        }
    }
    return {};
}

/// Each candidate's query-stem counts and word count per field, read once and shared by the
/// coverage and per-field BM25 features.
struct FieldCounts {
    std::size_t stems = 0;
    std::vector<float> tf;       // [candidate][field][stem]
    std::vector<double> length;  // [candidate][field]

    float* at(std::size_t c, std::size_t f) { return tf.data() + (c * kFields + f) * stems; }
};

FieldCounts count_fields(const Snapshot& snap,
                         const RerankQueryWords& q,
                         std::span<const Hit> hits) {
    FieldCounts counts;
    counts.stems = q.distinct.size();
    counts.tf.assign(hits.size() * kFields * counts.stems, 0.0f);
    counts.length.assign(hits.size() * kFields, 0.0);
    for (std::size_t c = 0; c < hits.size(); ++c) {
        const Hit& h = hits[c];
        const auto count = [&](Field f, std::string_view a, std::string_view b) {
            float* tf = counts.at(c, f);  // zeroed by assign above
            std::size_t length = count_query_words(q, a, tf);
            length += count_query_words(q, b, tf);
            counts.length[c * kFields + f] = static_cast<double>(length);
        };
        count(name_field, h.tool, h.title);
        count(description_field, h.description, {});
        count(parameters_field, h.input_schema, {});
        count(server_field, h.server, server_description(snap, h));
    }
    return counts;
}

}  // namespace

std::vector<RerankFeatures> rerank_features(const Snapshot& snap,
                                            std::string_view query,
                                            std::span<const Hit> hits,
                                            const WordVectors* word_vectors) {
    const RerankQueryWords q = query_words(snap, query);
    double best_bm25 = 0;
    double second_bm25 = 0;
    double best_fused = 0;
    double dense_low = 0;
    double dense_high = 0;
    bool any_dense = false;
    for (const Hit& h : hits) {
        if (h.bm25_rank != 0) {
            const auto score = static_cast<double>(h.bm25_score);
            second_bm25 = std::max(second_bm25, std::min(best_bm25, score));
            best_bm25 = std::max(best_bm25, score);
        }
        best_fused = std::max(best_fused, static_cast<double>(h.score));
        if (h.dense_rank != 0) {
            const auto cosine = static_cast<double>(h.dense_score);
            dense_low = any_dense ? std::min(dense_low, cosine) : cosine;
            dense_high = any_dense ? std::max(dense_high, cosine) : cosine;
            any_dense = true;
        }
    }
    FieldCounts counts = count_fields(snap, q, hits);
    std::array<double, kFields> mean_length{};
    for (std::size_t c = 0; c < hits.size(); ++c) {
        for (std::size_t f = 0; f < kFields; ++f) {
            mean_length[f] += counts.length[c * kFields + f] / static_cast<double>(hits.size());
        }
    }
    std::vector<std::array<double, kFields>> field_scores(hits.size());
    std::array<double, kFields> best_field{};
    for (std::size_t c = 0; c < hits.size(); ++c) {
        for (std::size_t f = 0; f < kFields; ++f) {
            field_scores[c][f] =
                field_bm25(q, counts.at(c, f), counts.length[c * kFields + f], mean_length[f]);
            best_field[f] = std::max(best_field[f], field_scores[c][f]);
        }
    }
    const std::vector<double> maxsims = maxsim_scores(q, hits, word_vectors);
    const double best_maxsim =
        maxsims.empty() ? 0.0 : *std::max_element(maxsims.begin(), maxsims.end());

    std::vector<RerankFeatures> rows;
    rows.reserve(hits.size());
    std::vector<std::string> name_stems;
    std::vector<float> any(q.distinct.size());
    for (std::size_t c = 0; c < hits.size(); ++c) {
        const Hit& h = hits[c];
        RerankFeatures f{};
        auto set = [&f](RerankFeature which, double value) {
            f[static_cast<std::size_t>(which)] = static_cast<float>(std::clamp(value, 0.0, 1.0));
        };
        if (h.bm25_rank != 0) {
            set(RerankFeature::bm25_relative,
                best_bm25 > 0 ? static_cast<double>(h.bm25_score) / best_bm25 : 0.0);
            set(RerankFeature::bm25_reciprocal_rank, 1.0 / h.bm25_rank);
            if (h.bm25_rank == 1 && best_bm25 > 0) {
                set(RerankFeature::bm25_top_margin, (best_bm25 - second_bm25) / best_bm25);
            }
        }
        if (h.dense_rank != 0) {
            set(RerankFeature::dense_cosine, static_cast<double>(h.dense_score));
            set(RerankFeature::dense_relative,
                dense_high > dense_low
                    ? (static_cast<double>(h.dense_score) - dense_low) / (dense_high - dense_low)
                    : 1.0);
            set(RerankFeature::dense_reciprocal_rank, 1.0 / h.dense_rank);
        }
        set(RerankFeature::fused_relative,
            best_fused > 0 ? static_cast<double>(h.score) / best_fused : 0.0);
        set(RerankFeature::in_both, h.bm25_rank != 0 && h.dense_rank != 0 ? 1.0 : 0.0);

        std::fill(any.begin(), any.end(), 0.0f);
        for (std::size_t field = 0; field < kFields; ++field) {
            const float* tf = counts.at(c, field);
            for (std::size_t i = 0; i < any.size(); ++i) {
                any[i] += tf[i];
            }
        }
        set(RerankFeature::cover_name, covered(q, counts.at(c, name_field)));
        set(RerankFeature::cover_description, covered(q, counts.at(c, description_field)));
        set(RerankFeature::cover_parameters, covered(q, counts.at(c, parameters_field)));
        set(RerankFeature::cover_server, covered(q, counts.at(c, server_field)));
        set(RerankFeature::cover_any, covered(q, any.data()));
        const auto relative = [&](Field field) {
            return best_field[field] > 0 ? field_scores[c][field] / best_field[field] : 0.0;
        };
        set(RerankFeature::bm25_name, relative(name_field));
        set(RerankFeature::bm25_description, relative(description_field));
        set(RerankFeature::bm25_parameters, relative(parameters_field));
        set(RerankFeature::bm25_server, relative(server_field));
        if (!maxsims.empty()) {
            set(RerankFeature::maxsim, maxsims[c]);
            set(RerankFeature::maxsim_relative, best_maxsim > 0 ? maxsims[c] / best_maxsim : 0.0);
        }

        name_stems.clear();
        append_stems(h.tool, name_stems);
        if (!name_stems.empty()) {
            std::size_t held = 0;
            for (const std::string& s : name_stems) {
                held += std::find(q.distinct.begin(), q.distinct.end(), s) != q.distinct.end();
            }
            set(RerankFeature::name_words_in_query,
                static_cast<double>(held) / static_cast<double>(name_stems.size()));
            set(RerankFeature::name_in_query, contains_run(q.ordered, name_stems) ? 1.0 : 0.0);
        }
        rows.push_back(f);
    }
    return rows;
}

}  // namespace scout::detail

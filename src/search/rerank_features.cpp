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

namespace scout::detail {
namespace {

/// Bytes of a description or schema that the coverage features read.
constexpr std::size_t kMaxFieldBytes = 4096;

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

/// The query's distinct stems with their BM25 IDF, and its stems in order.
struct RerankQueryWords {
    std::vector<std::string> ordered;
    std::vector<std::string> distinct;
    std::vector<double> idf;
    double idf_sum = 0;
    std::string first_bytes;  ///< the first byte of each distinct stem
};

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
    append_stems(query, q.ordered);
    for (const std::string& s : q.ordered) {
        if (std::find(q.distinct.begin(), q.distinct.end(), s) == q.distinct.end()) {
            q.distinct.push_back(s);
            q.idf.push_back(idf_of(snap, s));
            q.idf_sum += q.idf.back();
            if (!s.empty()) {
                q.first_bytes.push_back(s.front());
            }
        }
    }
    return q;
}

/// Marks in `found` (one flag per distinct query stem) the stems that occur in `text`. Porter
/// stemming only rewrites a word's suffix, so a word whose first byte starts no query stem
/// cannot match one and is not stemmed.
void mark_found(const RerankQueryWords& q, std::string_view text, std::vector<char>& found) {
    thread_local std::string arena;
    thread_local std::vector<RawToken> tokens;
    arena.clear();
    tokens.clear();
    Analyzer::raw_tokens(text.substr(0, kMaxFieldBytes), true, false, arena, tokens);
    for (const RawToken& t : tokens) {
        const std::string_view word(arena.data() + t.begin, t.size);
        if (word.empty() || q.first_bytes.find(word.front()) == std::string::npos ||
            is_stop_word(word)) {
            continue;
        }
        const std::string& s = memo_porter_stem(word);
        for (std::size_t i = 0; i < q.distinct.size(); ++i) {
            if (!found[i] && q.distinct[i] == s) {
                found[i] = 1;
            }
        }
    }
}

double covered(const RerankQueryWords& q, const std::vector<char>& found) {
    double sum = 0;
    for (std::size_t i = 0; i < found.size(); ++i) {
        sum += found[i] ? q.idf[i] : 0.0;
    }
    return q.idf_sum > 0 ? sum / q.idf_sum : 0.0;
}

/// True when `name` (stems in order) occurs as a contiguous run of `query`.
bool contains_run(const std::vector<std::string>& query, const std::vector<std::string>& name) {
    if (name.empty() || name.size() > query.size()) {
        return false;
    }
    return std::search(query.begin(), query.end(), name.begin(), name.end()) != query.end();
}

}  // namespace

std::vector<RerankFeatures> rerank_features(const Snapshot& snap,
                                            std::string_view query,
                                            std::span<const Hit> hits) {
    const RerankQueryWords q = query_words(snap, query);
    double best_bm25 = 0;
    double best_fused = 0;
    double dense_low = 0;
    double dense_high = 0;
    bool any_dense = false;
    for (const Hit& h : hits) {
        if (h.bm25_rank != 0) {
            best_bm25 = std::max(best_bm25, static_cast<double>(h.bm25_score));
        }
        best_fused = std::max(best_fused, static_cast<double>(h.score));
        if (h.dense_rank != 0) {
            const auto cosine = static_cast<double>(h.dense_score);
            dense_low = any_dense ? std::min(dense_low, cosine) : cosine;
            dense_high = any_dense ? std::max(dense_high, cosine) : cosine;
            any_dense = true;
        }
    }
    std::vector<RerankFeatures> rows;
    rows.reserve(hits.size());
    std::vector<std::string> name_stems;
    std::vector<char> in_field;
    std::vector<char> in_any;
    for (const Hit& h : hits) {
        RerankFeatures f{};
        auto set = [&f](RerankFeature which, double value) {
            f[static_cast<std::size_t>(which)] = static_cast<float>(std::clamp(value, 0.0, 1.0));
        };
        if (h.bm25_rank != 0) {
            set(RerankFeature::bm25_relative,
                best_bm25 > 0 ? static_cast<double>(h.bm25_score) / best_bm25 : 0.0);
            set(RerankFeature::bm25_reciprocal_rank, 1.0 / h.bm25_rank);
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

        in_any.assign(q.distinct.size(), 0);
        const auto field = [&](RerankFeature which, std::string_view a, std::string_view b) {
            in_field.assign(q.distinct.size(), 0);
            mark_found(q, a, in_field);
            mark_found(q, b, in_field);
            set(which, covered(q, in_field));
            for (std::size_t i = 0; i < in_field.size(); ++i) {
                in_any[i] = static_cast<char>(in_any[i] | in_field[i]);
            }
        };
        field(RerankFeature::cover_name, h.tool, h.title);
        field(RerankFeature::cover_description, h.description, {});
        field(RerankFeature::cover_parameters, h.input_schema, {});
        const ServerRecord* server = nullptr;
        if (h.id < snap.tools.size()) {
            const std::uint32_t s = snap.tools[h.id].server_index;
            if (s < snap.servers->records.size()) {
                server = &snap.servers->records[s];
            }
        }
        field(RerankFeature::cover_server,
              h.server,
              server != nullptr ? std::string_view(server->description) : std::string_view());
        set(RerankFeature::cover_any, covered(q, in_any));

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

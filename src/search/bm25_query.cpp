// bm25_query.cpp: see bm25_query.hpp. The query is tokenized once; its plain words (pairs,
// action, lexicon), its surface words (own terms, compounds, neighbours) and their stems all come
// from that one pass. The terms are made by the term pipeline (analysis/term_pipeline.hpp), as a
// document's are, and handed to a sink as they are made: the search's sink looks each up in the
// vocabulary at once, with the hash the stem memo kept, and keeps its id, so no term string is
// built to be kept and no word is hashed twice.
#include "search/bm25_query.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string>
#include <unordered_set>

#include "analysis/analyzer.hpp"
#include "analysis/term_pipeline.hpp"
#include "analysis/tool_action.hpp"
#include "search/compound_expander.hpp"
#include "search/lexicon.hpp"
#include "search/neighbour_expansion.hpp"
#include "util/thread_scratch.hpp"
#include "util/word_hash.hpp"

namespace scout::detail {

namespace {

bool wants_action(const Snapshot& snap) {
    const ExpansionOptions& expansion = snap.options.expansion;
    const bool term = expansion.action_weight > 0.0f && snap.options.bm25.weights.action > 0.0f;
    return term || expansion.action_boost > 0.0f;
}

bool wants_lexicon(const Snapshot& snap) {
    return snap.options.expansion.lexicon && snap.options.expansion.weight > 0.0f;
}

bool wants_neighbours(const Snapshot& snap) {
    return snap.neighbours && snap.options.expansion.neighbours > 0;
}

/// The words of one query, cut once for every signal, and stemmed once each: the stems and their
/// hashes are kept, so no word is stemmed or hashed twice. Every view is into one arena, taken
/// once the arena is complete.
class QueryWords {
public:
    /// Cuts `query` as the snapshot's analyzers and plain_words would.
    void cut(const Snapshot& snap, std::string_view query);

    std::vector<std::string_view> plain;          ///< plain_words(query)
    std::vector<MemoStem> plain_stems;            ///< the stem of each plain word (pairs)
    std::vector<std::string_view> lexicon_stems;  ///< stems of the words split_words gives
    std::vector<std::string_view> surface;  ///< the analyzer's kept words (surface_analyzer's)
    std::vector<MemoStem> surface_stems;    ///< the stem of each (when the index stems)

private:
    struct Span {
        std::size_t begin = 0;
        std::size_t size = 0;
    };
    /// A stem in the arena: its stem term, the stem being the term's tail, and the hashes.
    struct StemSpans {
        Span stem_term;
        std::uint64_t word_hash = 0, stem_hash = 0, stem_term_hash = 0;
    };
    /// Stems arena bytes `word`, appends the stem term and returns where it went.
    StemSpans add_stem(Span word);
    [[nodiscard]] std::string_view view(Span s) const {
        return std::string_view(arena_).substr(s.begin, s.size);
    }
    [[nodiscard]] MemoStem view(const StemSpans& s) const;

    std::string arena_;
    std::vector<RawToken> tokens_;
    std::vector<RawToken> surface_tokens_;  // only when the analyzer keeps joiners in tokens
    std::vector<Span> plain_, lexicon_stems_, surface_;
    std::vector<StemSpans> plain_stems_, surface_stems_;
};

QueryWords::StemSpans QueryWords::add_stem(Span word) {
    const MemoStem m = memo_stem(view(word));
    const StemSpans out{
        {arena_.size(), m.stem_term.size()}, m.word_hash, m.stem_hash, m.stem_term_hash};
    arena_ += m.stem_term;
    return out;
}

MemoStem QueryWords::view(const StemSpans& s) const {
    const std::string_view stem_term = view(s.stem_term);
    return {s.word_hash,
            stem_term.substr(term_prefix::kStem.size()),
            s.stem_hash,
            stem_term,
            s.stem_term_hash};
}

void QueryWords::cut(const Snapshot& snap, std::string_view query) {
    const AnalyzerOptions& a = snap.options.analyzer;
    const bool plain_stemmed = query_plain_word_weights(snap.options).any() || wants_lexicon(snap);
    arena_.clear();
    tokens_.clear();
    surface_tokens_.clear();
    for (std::vector<Span>* v : {&plain_, &lexicon_stems_, &surface_}) {
        v->clear();
    }
    plain_stems_.clear();
    surface_stems_.clear();
    // plain_words splits identifiers and joins nothing; the analyzer adds the joined words when
    // it splits identifiers, and otherwise keeps joiners inside tokens: one more pass then.
    Analyzer::raw_tokens(query, true, a.split_identifiers && a.keep_joined_case, arena_, tokens_);
    if (!a.split_identifiers) {
        Analyzer::raw_tokens(query, false, a.keep_joined_case, arena_, surface_tokens_);
    }
    const auto surface_word =
        [&](const RawToken& t, const StemSpans* plain_stem, std::size_t plain_size) {
            const std::string_view kept = kept_word(a, view(Span{t.begin, t.size}));
            if (kept.empty()) {
                return;
            }
            const Span word{t.begin, kept.size()};
            surface_.push_back(word);
            if (a.stem) {
                surface_stems_.push_back(plain_stem != nullptr && plain_size == word.size
                                             ? *plain_stem
                                             : add_stem(word));
            }
        };
    for (const RawToken& t : tokens_) {
        StemSpans plain_stem;
        std::size_t plain_size = 0;
        if (!t.joined) {
            const Span word{t.begin,
                            Analyzer::kept_bytes(view(Span{t.begin, t.size}), kPlainWordBytes)};
            if (word.size != 0) {
                plain_.push_back(word);
                plain_size = word.size;
            }
            if (plain_stemmed) {
                // The lexicon reads the words uncut (Lexicon::expansions splits the text itself).
                if (word.size != 0) {
                    plain_stem = add_stem(word);
                    plain_stems_.push_back(plain_stem);
                }
                const StemSpans whole = word.size == t.size && word.size != 0
                                            ? plain_stem
                                            : add_stem(Span{t.begin, t.size});
                const std::size_t prefix = term_prefix::kStem.size();
                lexicon_stems_.push_back(
                    {whole.stem_term.begin + prefix, whole.stem_term.size - prefix});
            }
        }
        if (a.split_identifiers) {
            surface_word(t, plain_stemmed && plain_size != 0 ? &plain_stem : nullptr, plain_size);
        }
    }
    for (const RawToken& t : surface_tokens_) {
        surface_word(t, nullptr, 0);
    }
    const auto view_all = [&](const auto& spans, auto& out) {
        out.clear();
        for (const auto& s : spans) {
            out.push_back(view(s));
        }
    };
    view_all(plain_, plain);
    view_all(plain_stems_, plain_stems);
    view_all(lexicon_stems_, lexicon_stems);
    view_all(surface_, surface);
    view_all(surface_stems_, surface_stems);
}

/// The analyzed terms of every lexicon phrase, with their hashes, for one analyzer's options:
/// made once per thread (and again when the options change), instead of analyzing a phrase for
/// every query that expands to it.
struct LexiconTerms {
    struct Term {
        std::string text;
        std::uint64_t hash = 0;
    };
    bool ready = false;
    AnalyzerOptions options;
    std::vector<std::vector<Term>> by_phrase;
};

const LexiconTerms& lexicon_terms(const Analyzer& analyzer) {
    LexiconTerms& cache = thread_scratch<LexiconTerms>();
    if (!cache.ready || !(cache.options == analyzer.options())) {
        const Lexicon& lexicon = default_lexicon();
        cache.by_phrase.assign(lexicon.phrase_count(), {});
        for (std::size_t p = 0; p < lexicon.phrase_count(); ++p) {
            for (std::string& t : analyzer.analyze(lexicon.phrase_text(p))) {
                const std::uint64_t hash = word_hash(t);
                cache.by_phrase[p].push_back({std::move(t), hash});
            }
        }
        cache.options = analyzer.options();
        cache.ready = true;
    }
    return cache;
}

/// The index term of each action with its hash, made once.
struct ActionTerm {
    std::string text;
    std::uint64_t hash = 0;
};

const ActionTerm& action_term_of(ToolAction action) {
    static const auto terms = [] {
        std::array<ActionTerm, static_cast<std::size_t>(ToolAction::download) + 1> t;
        for (std::size_t a = 0; a < t.size(); ++a) {
            t[a].text = action_term(static_cast<ToolAction>(a));
            t[a].hash = word_hash(t[a].text);
        }
        return t;
    }();
    return terms[static_cast<std::size_t>(action)];
}

/// Whether the catalog knows `word` (lowercase, unstemmed): all its terms are in the index.
bool known_word(const Snapshot& snap, std::string_view word) {
    const auto known_term = [&](const PrehashedTerm& term) {
        const std::optional<TermId> id = snap.bm25.term_id(term);
        return id && snap.bm25.doc_freq(*id) > 0;
    };
    // When the index keeps surface forms, the word is known iff it is a term itself, which
    // spares analyzing every candidate half of a compound.
    const AnalyzerOptions& a = snap.options.analyzer;
    if (!a.stem || a.keep_surface) {
        return known_term({word, word_hash(word)});
    }
    // A word of lowercase ASCII letters is one token to the analyzer, so its one term is its
    // stem (or none for a stop word): no tokenizing, no vector, for every candidate half.
    if (!word.empty() && word.size() <= a.max_token_bytes &&
        std::all_of(word.begin(), word.end(), [](char c) { return c >= 'a' && c <= 'z'; })) {
        if (a.remove_stop_words && is_stop_word(word)) {
            return false;
        }
        const MemoStem stem = memo_stem(word);
        return known_term({stem.stem, stem.stem_hash});
    }
    const std::vector<std::string> terms = snap.analyzer.analyze(word);
    return !terms.empty() && std::all_of(terms.begin(), terms.end(), [&](const std::string& t) {
        return known_term({t, word_hash(t)});
    });
}

/// What building a query reuses from one search to the next.
struct QueryScratch {
    QueryWords words;
    CompoundPhrases compounds;
    std::vector<std::size_t> phrases;
    PlainWordTerms plain_terms;
    std::vector<WeightedTermId> ids;
};

/// The query's terms as strings (neighbour expansion and bm25_query need them).
struct TermStrings {
    std::vector<QueryTerm>& out;
    void add(std::string_view term, float weight) { out.push_back({std::string(term), weight}); }
    void add(std::string_view term, std::uint64_t /*hash*/, float weight) { add(term, weight); }
};

/// The query's terms looked up as they come: only the ids the index knows are kept. A term that
/// comes with its hash is not hashed again.
struct TermIds {
    const Bm25Index& index;
    std::vector<WeightedTermId>& out;
    void add(std::string_view term, float weight) { add(term, word_hash(term), weight); }
    void add(std::string_view term, std::uint64_t hash, float weight) {
        if (const std::optional<TermId> id = index.term_id(PrehashedTerm{term, hash})) {
            out.push_back({*id, weight});
        }
    }
};

/// The analyzer's terms of a compound phrase: one word of lowercase ASCII letters, or two
/// separated by a space, each of which the analyzer keeps as one token.
template <class Sink>
void add_compound_terms(const AnalyzerOptions& a,
                        std::string_view phrase,
                        float weight,
                        Sink& sink) {
    std::size_t start = 0;
    while (start < phrase.size()) {
        const std::size_t space = std::min(phrase.find(' ', start), phrase.size());
        const std::string_view word = phrase.substr(start, space - start);
        start = space + 1;
        emit_word_terms(a, kept_word(a, word), weight, sink);
    }
}

/// Every term of the query, in the order bm25_query lists them, neighbours aside.
template <class Sink>
void build_terms(const Snapshot& snap, ToolAction action, QueryScratch& s, Sink& sink) {
    const ExpansionOptions& expansion = snap.options.expansion;
    const AnalyzerOptions& a = snap.options.analyzer;
    const QueryWords& w = s.words;
    // The query's own terms, as the analyzer gives them, from the stems cut once.
    for (std::size_t i = 0; i < w.surface.size(); ++i) {
        emit_word_terms(a, w.surface[i], a.stem ? w.surface_stems[i] : MemoStem{}, 1.0f, sink);
    }
    if (wants_lexicon(snap)) {
        s.phrases.clear();
        default_lexicon().expansion_phrases(w.lexicon_stems, s.phrases);
        if (!s.phrases.empty()) {
            const LexiconTerms& terms = lexicon_terms(snap.analyzer);
            for (const std::size_t p : s.phrases) {
                for (const LexiconTerms::Term& t : terms.by_phrase[p]) {
                    sink.add(t.text, t.hash, expansion.weight);
                }
            }
        }
    }
    // The signals documents share (word pairs), from the plain words and their stems.
    if (const PlainWordWeights plain = query_plain_word_weights(snap.options); plain.any()) {
        s.plain_terms.restart(plain);
        for (std::size_t i = 0; i < w.plain.size(); ++i) {
            s.plain_terms.add(w.plain[i], w.plain_stems[i].stem, sink);
        }
    }
    if (expansion.compound_weight > 0.0f) {
        s.compounds.find(std::span<const std::string_view>(w.surface),
                         [&](std::string_view word) { return known_word(snap, word); });
        for (std::size_t i = 0; i < s.compounds.size(); ++i) {
            add_compound_terms(a, s.compounds[i], expansion.compound_weight, sink);
        }
    }
    if (expansion.action_weight > 0.0f && snap.options.bm25.weights.action > 0.0f) {
        if (const ActionTerm& term = action_term_of(action); !term.text.empty()) {
            sink.add(term.text, term.hash, expansion.action_weight);
        }
    }
}

/// bm25_query from words already cut.
std::vector<QueryTerm> query_terms(const Snapshot& snap, ToolAction action, QueryScratch& s) {
    std::vector<QueryTerm> terms;
    TermStrings sink{terms};
    build_terms(snap, action, s, sink);
    if (wants_neighbours(snap)) {
        std::unordered_set<std::string> present;
        for (const QueryTerm& t : terms) {
            present.insert(t.term);
        }
        const std::vector<std::string> surface(s.words.surface.begin(), s.words.surface.end());
        expand_neighbours(*snap.neighbours, surface, snap.options.expansion, present, terms);
    }
    return terms;
}

/// bm25_query_ids from words already cut, into s.ids.
void query_ids(const Snapshot& snap, ToolAction action, QueryScratch& s) {
    s.ids.clear();
    if (wants_neighbours(snap)) {
        for (const QueryTerm& t : query_terms(snap, action, s)) {
            if (const std::optional<TermId> id = snap.bm25.term_id(t.term)) {
                s.ids.push_back({*id, t.weight});
            }
        }
        return;
    }
    TermIds sink{snap.bm25, s.ids};
    build_terms(snap, action, s, sink);
}

}  // namespace

std::vector<QueryTerm> bm25_query(const Snapshot& snap, std::string_view query, ToolAction action) {
    QueryScratch s;
    s.words.cut(snap, query);
    return query_terms(snap, action, s);
}

void bm25_query_ids(const Snapshot& snap,
                    std::string_view query,
                    ToolAction action,
                    std::vector<WeightedTermId>& out) {
    QueryScratch s;
    s.words.cut(snap, query);
    query_ids(snap, action, s);
    out = std::move(s.ids);
}

void boost_action(const Snapshot& snap, ToolAction action, std::vector<ScoredDoc>& docs) {
    const float boost = snap.options.expansion.action_boost;
    if (!(boost > 0.0f) || action == ToolAction::none || docs.size() < 2) {
        return;
    }
    bool changed = false;
    for (ScoredDoc& d : docs) {
        if (snap.tools[d.id].action == action) {
            d.score *= 1.0f + boost;
            changed = true;
        }
    }
    if (changed) {
        // A stable insertion sort by score, descending: the list is short and nearly sorted, and
        // std::stable_sort would allocate its buffer for every search.
        for (std::size_t i = 1; i < docs.size(); ++i) {
            const ScoredDoc d = docs[i];
            std::size_t j = i;
            for (; j > 0 && docs[j - 1].score < d.score; --j) {
                docs[j] = docs[j - 1];
            }
            docs[j] = d;
        }
    }
}

void run_bm25_branch(const Snapshot& snap,
                     std::string_view query,
                     std::size_t fetch,
                     const Bitset* filter,
                     std::vector<ScoredDoc>& out) {
    QueryScratch& s = thread_scratch<QueryScratch>();
    s.words.cut(snap, query);
    const ToolAction action =
        wants_action(snap) ? action_of_words(std::span<const std::string_view>(s.words.plain))
                           : ToolAction::none;
    query_ids(snap, action, s);
    snap.bm25.search(std::span<const WeightedTermId>(s.ids), fetch, filter, out);
    boost_action(snap, action, out);
}

}  // namespace scout::detail

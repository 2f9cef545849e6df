// document_cache.cpp: see document_cache.hpp.
#include "snapshot/document_cache.hpp"

#include <algorithm>
#include <functional>
#include <iterator>
#include <stdexcept>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "analysis/term_pipeline.hpp"
#include "analysis/tool_action.hpp"
#include "analysis/word_pairs.hpp"
#include "document/tool_document.hpp"
#include "util/hash.hpp"
#include "util/thread_scratch.hpp"
#include "util/word_hash.hpp"

namespace scout::detail {
namespace {

/// retain() sweeps once dead entries exceed 1/kDeadEntryFraction of the live ones.
constexpr std::size_t kDeadEntryFraction = 8;

std::uint64_t combine(std::uint64_t h, std::string_view field) noexcept {
    // Length first, so ("ab", "c") and ("a", "bc") differ.
    h = mix64(h ^ field.size());
    return mix64(h ^ std::hash<std::string_view>{}(field));
}

}  // namespace

std::uint64_t DocumentCache::key(const ServerSpec& server, const ToolSpec& tool) noexcept {
    std::uint64_t h = kFnvOffset;
    for (std::string_view f : {std::string_view(server.name),
                               std::string_view(server.description),
                               std::string_view(server.category),
                               std::string_view(server.environment),
                               std::string_view(tool.name),
                               std::string_view(tool.title),
                               std::string_view(tool.description),
                               std::string_view(tool.input_schema),
                               std::string_view(tool.annotations)}) {
        h = combine(h, f);
    }
    return h;
}

CachedDocument* DocumentCache::find(std::uint64_t key) {
    auto it = entries_.find(key);
    if (it == entries_.end() || is_stale(it->second)) {
        return nullptr;  // a stale seeded document's terms are in no index any more
    }
    return &it->second;
}

CachedDocument* DocumentCache::get(std::uint64_t key,
                                   const ServerSpec& server,
                                   const StagedTool& tool,
                                   const Analyzer& analyzer,
                                   const FieldWeights& weights,
                                   std::size_t& rendered) {
    if (CachedDocument* cached = find(key)) {
        return cached;
    }
    std::optional<CachedDocument> doc = render(server, tool, analyzer, weights);
    if (!doc) {
        return nullptr;  // validated at upsert; unreachable in practice
    }
    ++rendered;
    return add(key, std::move(*doc));
}

namespace {

/// Collects a document's distinct terms in first-occurrence order with their summed weights.
/// The table maps a term to its place in the list; it lives on between documents (a slot is
/// in use only when it carries the current document's stamp), so a document costs no map of
/// its own and no copy of a term.
class TermCollector {
public:
    void start() {
        terms_.clear();
        hashes_.clear();
        if (++stamp_ == 0) {  // wrapped: no slot may look in use
            std::fill(slots_.begin(), slots_.end(), Slot{});
            stamp_ = 1;
        }
        if (slots_.empty()) {
            slots_.resize(kInitialSlots);
        }
    }

    /// Adds `weight` to `term`'s sum; a new term is moved into the list when passed as an
    /// rvalue, copied otherwise.
    template <class Term>
    void add(Term&& term, float weight) {
        const std::string_view view(term);
        const std::size_t hash = word_hash(view);
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t pos = hash & mask;; pos = (pos + 1) & mask) {
            Slot& slot = slots_[pos];
            if (slot.stamp != stamp_) {
                slot = Slot{stamp_, static_cast<std::uint32_t>(terms_.size()), hash};
                terms_.emplace_back(std::forward<Term>(term), 0.0f);
                hashes_.push_back(hash);
                // Per-term sums keep occurrence order, so term frequencies are bit-identical to
                // adding occurrence by occurrence.
                terms_.back().second += weight;
                if (terms_.size() * 2 > slots_.size()) {
                    grow();
                }
                return;
            }
            if (slot.hash == hash && terms_[slot.index].first == view) {
                terms_[slot.index].second += weight;
                return;
            }
        }
    }

    /// Moves the collected terms, and their hashes, into lists of their exact size.
    void finish(std::vector<std::pair<std::string, float>>& terms,
                std::vector<std::size_t>& hashes) {
        terms.reserve(terms_.size());
        std::move(terms_.begin(), terms_.end(), std::back_inserter(terms));
        terms_.clear();
        hashes.assign(hashes_.begin(), hashes_.end());
    }

private:
    static constexpr std::size_t kInitialSlots = 512;

    struct Slot {
        std::uint32_t stamp = 0;
        std::uint32_t index = 0;
        std::size_t hash = 0;
    };

    void grow() {
        std::vector<Slot> bigger(slots_.size() * 2);
        const std::size_t mask = bigger.size() - 1;
        for (std::size_t i = 0; i < hashes_.size(); ++i) {
            std::size_t pos = hashes_[i] & mask;
            while (bigger[pos].stamp == stamp_) {
                pos = (pos + 1) & mask;
            }
            bigger[pos] = Slot{stamp_, static_cast<std::uint32_t>(i), hashes_[i]};
        }
        slots_ = std::move(bigger);
    }

    std::vector<Slot> slots_;
    std::vector<std::size_t> hashes_;  // of each listed term, for growing
    std::uint32_t stamp_ = 0;
    // The current document's list; its capacity is kept for the next document, and finish()
    // hands out an exact-size copy.
    std::vector<std::pair<std::string, float>> terms_;
};

/// The terms of one field text, remembered while consecutive tools share it: tools arrive in
/// ToolId order, server by server, so every tool of a server repeats its server fields.
struct FieldMemo {
    AnalyzerOptions options;
    std::string text;
    std::vector<std::string> terms;
    bool valid = false;

    const std::vector<std::string>& terms_of(const std::string& field, const Analyzer& analyzer) {
        if (!valid || text != field || !(options == analyzer.options())) {
            valid = false;  // stays invalid if analyze throws
            terms.clear();
            analyzer.analyze(field, terms);
            text = field;
            options = analyzer.options();
            valid = true;
        }
        return terms;
    }
};

struct RenderScratch {
    TermCollector collector;
    std::vector<std::string> terms;
    FieldMemo server;
    FieldMemo server_description;
    PlainWordTerms plain_terms;
};

/// The term pipeline's sink into a document's terms.
struct CollectorSink {
    TermCollector& collector;
    void add(std::string_view term, float weight) { collector.add(term, weight); }
};

}  // namespace

std::optional<CachedDocument> DocumentCache::render(const ServerSpec& server,
                                                    const StagedTool& tool,
                                                    const Analyzer& analyzer,
                                                    const FieldWeights& weights) {
    auto doc = make_tool_document(server, tool, tool.parameters ? &*tool.parameters : nullptr);
    if (!doc) {
        return std::nullopt;
    }
    RenderScratch& scratch = thread_scratch<RenderScratch>();
    CachedDocument entry;
    TermCollector& collector = scratch.collector;
    collector.start();
    std::vector<std::string>& terms = scratch.terms;
    const auto add_own = [&](const std::string& text, float weight) {
        if (weight <= 0.0f) {
            return;  // the BM25 builder ignores such occurrences too
        }
        terms.clear();
        analyzer.analyze(text, terms);
        for (std::string& term : terms) {
            collector.add(std::move(term), weight);
        }
    };
    const auto add_shared = [&](FieldMemo& memo, const std::string& text, float weight) {
        if (weight <= 0.0f) {
            return;
        }
        for (const std::string& term : memo.terms_of(text, analyzer)) {
            collector.add(term, weight);
        }
    };
    add_own(doc->name, weights.name);
    add_shared(scratch.server, doc->server, weights.server);
    add_shared(scratch.server_description, doc->server_description, weights.server_description);
    add_own(doc->description, weights.description);
    add_own(doc->parameters, weights.parameters);
    entry.action = action_of_tool(server.name, tool.name);
    if (weights.action > 0.0f) {
        if (std::string term = action_term(entry.action); !term.empty()) {
            collector.add(std::move(term), weights.action);
        }
    }
    if (const PlainWordWeights plain = document_plain_word_weights(weights); plain.any()) {
        // The signals queries share (word pairs) within the name and within the description,
        // never across the two.
        CollectorSink sink{collector};
        for (const std::string* text : {&tool.name, &tool.description}) {
            scratch.plain_terms.restart(plain);
            for (const std::string& word : plain_words(*text)) {
                scratch.plain_terms.add(word, sink);
            }
        }
    }
    collector.finish(entry.weighted_terms, entry.term_hashes);
    entry.text = doc->text();
    return entry;
}

CachedDocument* DocumentCache::add(std::uint64_t key, CachedDocument document) {
    const auto existing = entries_.find(key);
    if (existing != entries_.end() && !is_stale(existing->second)) {
        return &existing->second;
    }
    const bool hashed = document.term_hashes.size() == document.weighted_terms.size();
    document.term_ids.clear();
    document.term_ids.reserve(document.weighted_terms.size());
    document.length = 0.0f;
    for (std::size_t i = 0; i < document.weighted_terms.size(); ++i) {
        const auto& [term, weighted_tf] = document.weighted_terms[i];
        document.term_ids.emplace_back(
            intern(term, hashed ? document.term_hashes[i] : word_hash(term)), weighted_tf);
        document.length += weighted_tf;  // in order, as Bm25Index::Builder::add sums it
    }
    // Only needed until now: the index and the neighbours read term ids. Released, the strings
    // of a whole catalog's documents are never resident at once (render_missing adds them as
    // each window of documents is rendered).
    std::vector<std::size_t>().swap(document.term_hashes);
    std::vector<std::pair<std::string, float>>().swap(document.weighted_terms);
    if (existing != entries_.end()) {
        // A stale seeded document: replaced in place (no build remembers it).
        if (existing->second.text_tool != nullptr && --pending_texts_ == 0) {
            seeded_source_.reset();
        }
        existing->second = std::move(document);
        return &existing->second;
    }
    return &entries_.emplace(key, std::move(document)).first->second;
}

TermId DocumentCache::intern(const std::string& term, std::size_t hash) {
    if (const std::optional<TermId> id = vocabulary_->find(term, hash)) {
        return *id;
    }
    if (writable_ == nullptr) {
        // Shared with an index: extended, not copied (the shared terms stay where they are).
        std::shared_ptr<Bm25Vocabulary> extended = Bm25Vocabulary::extending(vocabulary_);
        writable_ = extended.get();
        vocabulary_ = std::move(extended);
    }
    return writable_->add(term, hash);
}

std::shared_ptr<const Bm25Vocabulary> DocumentCache::vocabulary() {
    writable_ = nullptr;
    return vocabulary_;
}

void DocumentCache::remember(std::uint64_t generation,
                             std::vector<CachedDocument*> docs,
                             std::vector<std::uint64_t> keys,
                             std::vector<Bm25DocumentTerms> terms) {
    // Entries whose keys are live survive retain() in place, so these pointers stay valid until
    // the next retain() or clear().
    if (seeded_) {
        // The seeded documents this build kept: their postings are now at their new ToolIds in
        // this build's index (patched or laid out from the same terms). Those it left out keep
        // the older generation and are stale from here on.
        std::size_t kept = 0;
        for (std::size_t id = 0; id < docs.size(); ++id) {
            CachedDocument* doc = docs[id];
            if (terms_in_postings(*doc)) {
                doc->seeded_generation = generation;
                doc->seeded_id = static_cast<ToolId>(id);
                ++kept;
            }
        }
        seeded_ = kept != 0;
    }
    last_generation_ = generation;
    last_docs_ = std::move(docs);
    last_keys_ = std::move(keys);
    last_terms_ = std::move(terms);
}

const std::vector<std::string>& DocumentCache::corpus(std::span<CachedDocument* const> docs,
                                                      std::span<const std::uint64_t> keys) {
    if (corpus_keys_.size() != keys.size()) {
        corpus_.clear();
        corpus_keys_.clear();
        corpus_.reserve(docs.size());
        for (CachedDocument* doc : docs) {
            corpus_.push_back(text_of(*doc));
        }
        corpus_keys_.assign(keys.begin(), keys.end());
        return corpus_;
    }
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (corpus_keys_[i] != keys[i]) {  // equal keys: equal contents, equal texts
            corpus_[i] = text_of(*docs[i]);
            corpus_keys_[i] = keys[i];
        }
    }
    return corpus_;
}

void DocumentCache::clear() {
    last_generation_ = 0;
    last_docs_.clear();
    last_keys_.clear();
    last_terms_.clear();
    corpus_.clear();
    corpus_keys_.clear();
    entries_.clear();
    seeded_source_.reset();
    pending_texts_ = 0;
    seeded_ = false;
    auto fresh = std::make_shared<Bm25Vocabulary>();
    writable_ = fresh.get();
    vocabulary_ = std::move(fresh);
}

void DocumentCache::seed(std::uint64_t generation,
                         std::shared_ptr<const Bm25Vocabulary> vocabulary,
                         std::vector<std::uint64_t> keys,
                         std::vector<CachedDocument> docs,
                         std::shared_ptr<const StagedCatalog> source) {
    clear();
    if (generation == 0) {
        throw std::invalid_argument("seeding the document cache needs a build generation");
    }
    vocabulary_ = std::move(vocabulary);
    writable_ = nullptr;  // the index's own: extended before a term is added
    entries_.reserve(docs.size());
    std::vector<CachedDocument*> pointers;
    std::vector<Bm25DocumentTerms> terms;
    pointers.reserve(docs.size());
    terms.reserve(docs.size());
    for (std::size_t i = 0; i < docs.size(); ++i) {
        auto [it, inserted] = entries_.try_emplace(keys[i], std::move(docs[i]));
        CachedDocument* doc = &it->second;
        if (inserted && doc->text_tool != nullptr) {
            ++pending_texts_;
        }
        if (inserted) {
            // Its terms stay in the index's postings, at its ToolId.
            doc->term_ids.clear();
            doc->seeded_generation = generation;
            doc->seeded_id = static_cast<ToolId>(i);
        }
        pointers.push_back(doc);
        terms.push_back({doc->term_ids, doc->length});
    }
    if (pending_texts_ != 0) {
        seeded_source_ = std::move(source);
    }
    remember(generation, std::move(pointers), std::move(keys), std::move(terms));
    seeded_ = !entries_.empty();  // after remember(): its documents are at their ids already
}

void DocumentCache::retain(const std::vector<std::uint64_t>& live) {
    // Keys are distinct per entry, so this bounds the dead entries: a few replaced documents
    // wait for the next sweep instead of costing every commit a pass over the whole cache.
    if (entries_.size() <= live.size() + live.size() / kDeadEntryFraction) {
        return;
    }
    // Erasing in place keeps the surviving entries where they are (one hash per live key).
    std::unordered_set<std::uint64_t> keep(live.begin(), live.end());
    for (auto it = entries_.begin(); it != entries_.end();) {
        if (keep.count(it->first) != 0) {
            ++it;
            continue;
        }
        if (it->second.text_tool != nullptr) {
            --pending_texts_;
        }
        it = entries_.erase(it);
    }
    if (pending_texts_ == 0) {
        seeded_source_.reset();
    }
}

const std::string& DocumentCache::text_of(CachedDocument& doc) {
    if (doc.text_tool == nullptr) {
        return doc.text;
    }
    const StagedTool& tool = *doc.text_tool;
    auto rendered =
        make_tool_document(*doc.text_server, tool, tool.parameters ? &*tool.parameters : nullptr);
    if (!rendered) {
        throw std::runtime_error("tool '" + tool.name + "' of an opened index does not render");
    }
    doc.text = rendered->text();
    doc.text_server = nullptr;
    doc.text_tool = nullptr;
    if (--pending_texts_ == 0) {
        seeded_source_.reset();
    }
    return doc.text;
}

}  // namespace scout::detail

// document_cache.cpp: see document_cache.hpp.
#include "snapshot/document_cache.hpp"

#include <functional>
#include <iterator>
#include <string_view>
#include <unordered_set>

#include "analysis/tool_action.hpp"
#include "analysis/word_pairs.hpp"
#include "document/tool_document.hpp"
#include "util/hash.hpp"

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
    return it == entries_.end() ? nullptr : &it->second;
}

CachedDocument* DocumentCache::get(std::uint64_t key,
                                   const ServerSpec& server,
                                   const ToolSpec& tool,
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

std::optional<CachedDocument> DocumentCache::render(const ServerSpec& server,
                                                    const ToolSpec& tool,
                                                    const Analyzer& analyzer,
                                                    const FieldWeights& weights) {
    auto doc = make_tool_document(server, tool);
    if (!doc) {
        return std::nullopt;
    }
    CachedDocument entry;
    const std::pair<const std::string*, float> fields[5] = {
        {&doc->name, weights.name},
        {&doc->server, weights.server},
        {&doc->server_description, weights.server_description},
        {&doc->description, weights.description},
        {&doc->parameters, weights.parameters}};
    std::unordered_map<std::string, std::size_t> slot;  // term -> index in weighted_terms
    const auto add_term = [&](std::string term, float weight) {
        auto [it, fresh] = slot.try_emplace(std::move(term), entry.weighted_terms.size());
        if (fresh) {
            entry.weighted_terms.emplace_back(it->first, 0.0f);
        }
        // Per-term sums keep occurrence order, so term frequencies are bit-identical to adding
        // occurrence by occurrence.
        entry.weighted_terms[it->second].second += weight;
    };
    std::vector<std::string> terms;
    for (const auto& [text, weight] : fields) {
        terms.clear();
        analyzer.analyze(*text, terms);
        if (weight <= 0.0f) {
            continue;  // the BM25 builder ignores such occurrences too
        }
        for (std::string& term : terms) {
            add_term(std::move(term), weight);
        }
    }
    entry.action = action_of_tool(server.name, tool.name);
    if (weights.action > 0.0f) {
        if (std::string term = action_term(entry.action); !term.empty()) {
            add_term(std::move(term), weights.action);
        }
    }
    if (weights.word_pairs > 0.0f) {
        // Pairs within the name and within the description, never across the two.
        terms.clear();
        append_word_pairs(tool.name, terms);
        append_word_pairs(tool.description, terms);
        for (std::string& term : terms) {
            add_term(std::move(term), weights.word_pairs);
        }
    }
    entry.text = doc->text();
    return entry;
}

CachedDocument* DocumentCache::add(std::uint64_t key, CachedDocument document) {
    if (CachedDocument* cached = find(key)) {
        return cached;
    }
    document.term_ids.clear();
    document.term_ids.reserve(document.weighted_terms.size());
    document.length = 0.0f;
    for (const auto& [term, weighted_tf] : document.weighted_terms) {
        document.term_ids.emplace_back(intern(term), weighted_tf);
        document.length += weighted_tf;  // in order, as Bm25Index::Builder::add sums it
    }
    return &entries_.emplace(key, std::move(document)).first->second;
}

TermId DocumentCache::intern(const std::string& term) {
    if (auto it = vocabulary_->find(term); it != vocabulary_->end()) {
        return it->second;
    }
    if (vocabulary_shared_) {
        vocabulary_ = std::make_shared<Bm25Vocabulary>(*vocabulary_);
        vocabulary_shared_ = false;
    }
    const auto id = static_cast<TermId>(vocabulary_->size());
    vocabulary_->emplace(term, id);
    return id;
}

std::shared_ptr<const Bm25Vocabulary> DocumentCache::vocabulary() {
    vocabulary_shared_ = true;
    return vocabulary_;
}

void DocumentCache::remember(std::uint64_t generation,
                             std::vector<CachedDocument*> docs,
                             std::vector<std::uint64_t> keys) {
    // Entries whose keys are live survive retain() in place, so these pointers stay valid until
    // the next retain() or clear().
    last_generation_ = generation;
    last_docs_ = std::move(docs);
    last_keys_ = std::move(keys);
}

void DocumentCache::clear() {
    last_generation_ = 0;
    last_docs_.clear();
    last_keys_.clear();
    entries_.clear();
    vocabulary_ = std::make_shared<Bm25Vocabulary>();
    vocabulary_shared_ = false;
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
        it = keep.count(it->first) != 0 ? std::next(it) : entries_.erase(it);
    }
}

}  // namespace scout::detail

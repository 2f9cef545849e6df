// build_bm25.cpp: the BM25 phase of a snapshot build (the postings, patched or laid out in
// full), the document cache's vocabulary upkeep, and the catalog words neighbour expansion
// draws from the index terms.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/term.hpp"
#include "snapshot/build_context.hpp"

namespace scout::detail {

namespace {

/// A build patches the previous build's BM25 postings while at most this fraction of the
/// documents changed; past it, laying them out in full costs about the same.
constexpr std::size_t kPatchOneIn = 4;

/// A build renders afresh once the vocabulary holds this many times more terms than the index
/// uses (terms of replaced documents stay interned until then).
constexpr std::size_t kDeadTermFactor = 2;
constexpr std::size_t kDeadTermSlack = 4096;

/// The terms of the documents the cache keeps in the postings of the build it remembers
/// (DocumentCache::terms_in_postings: seeded from an index file, not analyzed since), read back
/// for the documents a build needs them of: want() each, read() once (one pass over the
/// postings for all of them), then fill() their term lists.
class PostedTerms {
public:
    explicit PostedTerms(const BuildContext& ctx)
        : documents_(ctx.documents),
          index_(ctx.previous != nullptr && ctx.documents.remembers(ctx.previous->generation)
                     ? &ctx.previous->bm25
                     : nullptr) {}

    /// Asks for `doc`'s terms when it keeps them in the postings (nothing otherwise).
    void want(const CachedDocument* doc) {
        if (doc == nullptr || !documents_.terms_in_postings(*doc)) {
            return;
        }
        if (index_ == nullptr || doc->seeded_id >= index_->num_docs()) {
            throw std::logic_error("a seeded document's terms are in no index at hand");
        }
        if (slot_.empty()) {
            slot_.assign(index_->num_docs(), kNotWanted);
        }
        if (slot_[doc->seeded_id] == kNotWanted) {
            slot_[doc->seeded_id] = wanted_++;
        }
    }
    [[nodiscard]] bool any() const noexcept { return wanted_ != 0; }

    /// Reads the wanted documents' terms, in TermId order (a build lists them in first-occurrence
    /// order; only the length depends on that order, and it is stored).
    void read() {
        starts_.assign(static_cast<std::size_t>(wanted_) + 1, 0);
        if (wanted_ == 0) {
            return;
        }
        const std::span<const std::uint32_t> offsets = index_->offsets();
        const std::span<const ToolId> docids = index_->docids();
        const std::span<const float> tfs = index_->tfs();
        for (const ToolId d : docids) {
            if (slot_[d] != kNotWanted) {
                ++starts_[slot_[d] + 1];
            }
        }
        for (std::size_t s = 0; s < wanted_; ++s) {
            starts_[s + 1] += starts_[s];
        }
        terms_.resize(starts_.back());
        std::vector<std::size_t> next(starts_.begin(), starts_.end() - 1);
        for (std::size_t t = 0; t + 1 < offsets.size(); ++t) {
            for (std::uint32_t p = offsets[t]; p < offsets[t + 1]; ++p) {
                if (const std::uint32_t s = slot_[docids[p]]; s != kNotWanted) {
                    terms_[next[s]++] = {static_cast<TermId>(t), tfs[p]};
                }
            }
        }
    }

    /// Points `terms` at `doc`'s terms read back, when it keeps them in the postings (after
    /// want(doc) and read()).
    void fill(const CachedDocument* doc, Bm25DocumentTerms& terms) const {
        if (doc == nullptr || !documents_.terms_in_postings(*doc)) {
            return;
        }
        const std::uint32_t s = slot_.empty() ? kNotWanted : slot_[doc->seeded_id];
        if (s == kNotWanted || starts_.size() <= s + 1) {
            throw std::logic_error("a seeded document's terms were not read back");
        }
        terms.terms = {terms_.data() + starts_[s], starts_[s + 1] - starts_[s]};
    }

private:
    static constexpr std::uint32_t kNotWanted = std::numeric_limits<std::uint32_t>::max();

    const DocumentCache& documents_;
    const Bm25Index* index_;
    std::vector<std::uint32_t> slot_;  ///< by ToolId of index_: where its terms go, or kNotWanted
    std::uint32_t wanted_ = 0;
    std::vector<std::size_t> starts_;
    std::vector<std::pair<TermId, float>> terms_;
};

}  // namespace

Bm25Index layout_bm25(const BuildContext& ctx, const Collected& collected) {
    DocumentCache& documents = ctx.documents;
    const Snapshot* reuse = ctx.reuse;
    const Bm25Options& options = ctx.options.bm25;
    const std::size_t n = collected.doc_keys.size();
    if (reuse != nullptr && documents.remembers(reuse->generation) && reuse->bm25.num_docs() == n) {
        std::vector<ToolId> changed;
        std::vector<Bm25DocumentTerms> previous_terms;
        for (std::size_t id = 0; id < n && changed.size() * kPatchOneIn <= n; ++id) {
            if (collected.doc_keys[id] != documents.remembered_key(id)) {
                changed.push_back(static_cast<ToolId>(id));
                // The remembered build's terms (they view its document, cached until this build
                // retains).
                previous_terms.push_back(documents.remembered_terms()[id]);
            }
        }
        if (changed.size() * kPatchOneIn <= n) {
            // Only the changed documents' terms are read, old and new: those of a seeded
            // document come back from the remembered build's postings.
            PostedTerms posted(ctx);
            bool posted_new = false;
            for (const ToolId id : changed) {
                posted.want(documents.remembered(id));
                posted.want(collected.docs[id]);
                posted_new = posted_new || documents.terms_in_postings(*collected.docs[id]);
            }
            posted.read();
            for (std::size_t i = 0; i < changed.size(); ++i) {
                posted.fill(documents.remembered(changed[i]), previous_terms[i]);
            }
            std::vector<Bm25DocumentTerms> filled;
            if (posted_new) {
                filled = collected.terms;
                for (const ToolId id : changed) {
                    posted.fill(collected.docs[id], filled[id]);
                }
            }
            auto patched =
                Bm25Index::patched(reuse->bm25,
                                   documents.vocabulary(),
                                   posted_new ? std::span<const Bm25DocumentTerms>(filled)
                                              : std::span<const Bm25DocumentTerms>(collected.terms),
                                   changed,
                                   previous_terms,
                                   options);
            if (patched != nullptr) {
                return std::move(*patched);
            }
        }
    }
    // Laid out in full: every document's terms, the seeded ones' read back from the postings.
    PostedTerms posted(ctx);
    for (const CachedDocument* doc : collected.docs) {
        posted.want(doc);
    }
    if (!posted.any()) {
        return Bm25Index::from_documents(documents.vocabulary(), collected.terms, options);
    }
    posted.read();
    std::vector<Bm25DocumentTerms> filled = collected.terms;
    for (std::size_t id = 0; id < filled.size(); ++id) {
        posted.fill(collected.docs[id], filled[id]);
    }
    return Bm25Index::from_documents(documents.vocabulary(), filled, options);
}

void compact_vocabulary(const Bm25Index& bm25, DocumentCache& documents) {
    const std::span<const std::uint32_t> offsets = bm25.offsets();
    std::size_t live = 0;
    for (std::size_t t = 0; t + 1 < offsets.size(); ++t) {
        live += offsets[t + 1] > offsets[t] ? 1U : 0U;
    }
    if (bm25.num_terms() > kDeadTermFactor * live + kDeadTermSlack) {
        documents.clear();
    }
}

/// The terms with postings, so a commit analyzes nothing again. Words under 3 bytes or with digits
/// are left out (their vectors relate them to little of use).
std::shared_ptr<const WordNeighbours> build_neighbours(const Analyzer& index_analyzer,
                                                       const AnalyzerOptions& analyzer_options,
                                                       std::shared_ptr<const WordVectors> vectors,
                                                       const Bm25Index& bm25) {
    std::set<std::string> words;
    const std::vector<std::string_view> terms = bm25.terms();
    const std::span<const std::uint32_t> offsets = bm25.offsets();
    for (std::size_t t = 0; t < terms.size(); ++t) {
        if (offsets[t + 1] > offsets[t] && !terms[t].empty() &&
            term_kind(terms[t]) == TermKind::word) {
            words.emplace(terms[t]);
        }
    }
    // Stems without their surface forms: a term is its own (only) index term.
    const bool stems_only = analyzer_options.stem && !analyzer_options.keep_surface;
    std::vector<CatalogWord> entries;
    for (const std::string& w : words) {
        if (w.size() < 3 ||
            std::any_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; })) {
            continue;
        }
        entries.push_back(
            {w, stems_only ? std::vector<std::string>{w} : index_analyzer.analyze(w)});
    }
    return WordNeighbours::build(std::move(vectors), std::move(entries));
}

}  // namespace scout::detail

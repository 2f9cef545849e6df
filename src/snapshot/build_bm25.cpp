// build_bm25.cpp: the BM25 phase of a snapshot build (the postings, patched or laid out in
// full), the document cache's vocabulary upkeep, and the catalog words neighbour expansion
// draws from the index terms.
#include <algorithm>
#include <set>
#include <span>
#include <string>

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
            auto patched = Bm25Index::patched(reuse->bm25,
                                              documents.vocabulary(),
                                              collected.terms,
                                              changed,
                                              previous_terms,
                                              options);
            if (patched != nullptr) {
                return std::move(*patched);
            }
        }
    }
    return Bm25Index::from_documents(documents.vocabulary(), collected.terms, options);
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

// document_cache.hpp: rendered and analyzed tool documents by content hash, so a commit only
// renders (JSON schema walk) and analyzes the tools whose server or tool fields changed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scout/options.hpp"
#include "scout/types.hpp"

#include "analysis/analyzer.hpp"
#include "analysis/tool_action.hpp"
#include "snapshot/staged_catalog.hpp"
#include "sparse/bm25_index.hpp"
#include "util/hash.hpp"

namespace scout::detail {

/// One tool document, ready to index: its distinct analyzed terms with their field-weighted
/// frequencies (in first-occurrence order; one Bm25Index::Builder::add per term instead of one
/// per occurrence) and the dense text.
struct CachedDocument {
    /// The analyzed terms with their weighted frequencies, from rendering until add() interns
    /// them (then released).
    std::vector<std::pair<std::string, float>> weighted_terms;
    /// The same terms interned in the cache's vocabulary, and their summed frequency: what the
    /// BM25 index is built from without hashing a term again. Empty for a document seeded from
    /// an index file (seeded_generation below): its terms are the postings of document
    /// seeded_id in the index of that build.
    std::vector<std::pair<TermId, float>> term_ids;
    /// word_hash of each of weighted_terms, from rendering until add() interns them (then
    /// released): hashed on the rendering threads, not again on the committing one.
    std::vector<std::size_t> term_hashes;
    float length = 0.0f;
    /// The dense text; empty until DocumentCache::text_of renders it while `text_tool` is set.
    std::string text;
    /// Set on a document seeded from an index file whose text is not rendered yet: the tool and
    /// its server to render it from (the cache keeps them alive). Null once rendered.
    const ServerSpec* text_server = nullptr;
    const StagedTool* text_tool = nullptr;
    ToolAction action = ToolAction::none;  ///< read off the tool's name
    std::uint64_t embed_key = 0;           ///< EmbeddingCache key for embed_model below
    std::uint64_t embed_model_hash = 0;    ///< 0: embed_key not computed yet
    /// Set on a document seeded from an index file (DocumentCache::seed): the generation of the
    /// last build it was part of, where it is ToolId seeded_id, and whose BM25 postings hold its
    /// terms. 0 for a rendered document. Moved on by every build that keeps the document
    /// (DocumentCache::remember); a seeded document left out of a build is stale and never
    /// handed out again (find() misses it, add() replaces it).
    std::uint64_t seeded_generation = 0;
    ToolId seeded_id = 0;
};

/// In-memory only (keys use std::hash, which need not be stable across builds). Not thread-safe:
/// owned by the writer and used under its lock. The analyzer and field weights must be the same
/// for every call (they are fixed per Catalog), since they are not part of the key.
class DocumentCache {
public:
    /// Content key of a tool as served by a server: every field that the document depends on.
    [[nodiscard]] static std::uint64_t key(const ServerSpec& server, const ToolSpec& tool) noexcept;

    /// The cached document of `key`, rendering and analyzing it on a miss; nullptr when the
    /// tool does not render (its schema is not a JSON object). `rendered` counts misses.
    [[nodiscard]] CachedDocument* get(std::uint64_t key,
                                      const ServerSpec& server,
                                      const StagedTool& tool,
                                      const Analyzer& analyzer,
                                      const FieldWeights& weights,
                                      std::size_t& rendered);
    /// The cached document of `key`, or nullptr.
    [[nodiscard]] CachedDocument* find(std::uint64_t key);
    /// Renders and analyzes a tool without touching any cache (its terms are not interned
    /// yet), so documents can be rendered on several threads at once; nullopt when the tool
    /// does not render. Takes the parameters field validation rendered, when the tool has it.
    [[nodiscard]] static std::optional<CachedDocument> render(const ServerSpec& server,
                                                              const StagedTool& tool,
                                                              const Analyzer& analyzer,
                                                              const FieldWeights& weights);
    /// Interns the terms of a rendered document and caches it under `key` (keeping the entry
    /// already there, if any). Term ids follow the order of the calls, so adding documents in
    /// ToolId order gives the ids a sequential build gives.
    CachedDocument* add(std::uint64_t key, CachedDocument document);
    /// Drops every entry whose key is not in `live` once they are more than an eighth of those
    /// in it (until then they are only memory).
    void retain(const std::vector<std::uint64_t>& live);
    [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

    /// `doc`'s dense text, rendered now when seed() left it for later. Throws when a seeded
    /// tool does not render (it did when the file was written).
    const std::string& text_of(CachedDocument& doc);
    /// Seeded documents whose text is not rendered yet (and not dropped since).
    [[nodiscard]] std::size_t pending_texts() const noexcept { return pending_texts_; }

    /// Every term interned so far (terms of dropped documents included), for an index to share:
    /// later documents intern new terms into a copy, never into what was handed out.
    [[nodiscard]] std::shared_ptr<const Bm25Vocabulary> vocabulary();
    /// Forgets every document and term, so the next build renders and interns afresh (drops the
    /// terms no document uses any more).
    void clear();
    /// Replaces the cache with the documents of build `generation` (> 0) as an index file stored
    /// them (ToolId order, `keys` their keys, their term ids those of `vocabulary`), remembered
    /// like a build's, so the next build renders only the tools that changed. Their terms are
    /// left in the index's postings (terms_in_postings): a build reads them from there only for
    /// the documents it needs them of. Documents with `text_tool` set point into `source`,
    /// which the cache keeps until their texts are rendered or they are dropped.
    void seed(std::uint64_t generation,
              std::shared_ptr<const Bm25Vocabulary> vocabulary,
              std::vector<std::uint64_t> keys,
              std::vector<CachedDocument> docs,
              std::shared_ptr<const StagedCatalog> source);

    /// The documents of build `generation`, their keys and their terms (which view the
    /// documents), in ToolId order, kept so that the next build takes the documents of servers
    /// it shares with that one by position instead of hashing their tools. Call after
    /// retain(keys). Seeded documents among `docs` move on to `generation` at their new ToolId
    /// (the build's index has their postings there).
    void remember(std::uint64_t generation,
                  std::vector<CachedDocument*> docs,
                  std::vector<std::uint64_t> keys,
                  std::vector<Bm25DocumentTerms> terms);
    /// Whether `doc`'s terms are not in term_ids but in the postings of the remembered build's
    /// index (document doc.seeded_id there): a seeded document no build has analyzed.
    [[nodiscard]] bool terms_in_postings(const CachedDocument& doc) const noexcept {
        return doc.seeded_generation != 0 && doc.seeded_generation == last_generation_;
    }
    /// Whether remember() was told about `generation` (and nothing was cleared since).
    [[nodiscard]] bool remembers(std::uint64_t generation) const noexcept {
        return last_generation_ == generation && last_generation_ != 0;
    }
    [[nodiscard]] CachedDocument* remembered(std::size_t id) const { return last_docs_[id]; }
    [[nodiscard]] std::uint64_t remembered_key(std::size_t id) const { return last_keys_[id]; }
    [[nodiscard]] std::size_t remembered_count() const noexcept { return last_docs_.size(); }
    /// The dense texts of `docs` (with their `keys`), in order, for the embedder: kept between
    /// builds, so a build copies only the texts whose key changed at their position. Renders
    /// the texts seed() left for later.
    [[nodiscard]] const std::vector<std::string>& corpus(std::span<CachedDocument* const> docs,
                                                         std::span<const std::uint64_t> keys);
    /// All of the remembered build's documents, keys and terms, by ToolId.
    [[nodiscard]] std::span<CachedDocument* const> remembered_docs() const noexcept {
        return last_docs_;
    }
    [[nodiscard]] std::span<const std::uint64_t> remembered_keys() const noexcept {
        return last_keys_;
    }
    [[nodiscard]] std::span<const Bm25DocumentTerms> remembered_terms() const noexcept {
        return last_terms_;
    }

private:
    /// A seeded document a build left out: its postings are in no index the cache remembers.
    [[nodiscard]] bool is_stale(const CachedDocument& doc) const noexcept {
        return doc.seeded_generation != 0 && doc.seeded_generation != last_generation_;
    }
    TermId intern(const std::string& term, std::size_t hash);

    std::unordered_map<std::uint64_t, CachedDocument> entries_;
    std::shared_ptr<const Bm25Vocabulary> vocabulary_ = std::make_shared<Bm25Vocabulary>();
    /// vocabulary_ while this cache alone holds it; null once vocabulary() handed it out or it
    /// came from an index: extend (Bm25Vocabulary::extending) before adding.
    Bm25Vocabulary* writable_ = nullptr;
    std::uint64_t last_generation_ = 0;
    std::vector<CachedDocument*> last_docs_;
    std::vector<std::uint64_t> last_keys_;
    std::vector<Bm25DocumentTerms> last_terms_;
    std::vector<std::string> corpus_;
    std::vector<std::uint64_t> corpus_keys_;
    /// What seeded documents render their texts from, while any of them has not.
    std::shared_ptr<const StagedCatalog> seeded_source_;
    std::size_t pending_texts_ = 0;
    /// Whether seed() put documents in since the last clear(): remember() then moves them on.
    bool seeded_ = false;
};

/// CachedDocument::embed_model_hash of a model id: never 0, which means "not computed".
[[nodiscard]] inline std::uint64_t embed_model_hash(std::string_view model) noexcept {
    return fnv1a(model) | 1U;
}

}  // namespace scout::detail

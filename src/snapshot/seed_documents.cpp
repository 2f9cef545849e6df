// seed_documents.cpp: see seed_documents.hpp.
#include "snapshot/seed_documents.hpp"

#include <cstdint>
#include <memory>
#include <vector>

#include "analysis/tool_action.hpp"

namespace scout::detail {

bool seed_documents(const Snapshot& opened, DocumentCache& documents) {
    const Bm25Index& bm25 = opened.bm25;
    const std::size_t n = bm25.num_docs();
    if (!bm25.has_weights() || opened.tools.size() != n || !opened.source ||
        opened.generation == 0) {
        return false;
    }
    const std::shared_ptr<const StagedCatalog> staged = opened.source.get();
    std::vector<CachedDocument> docs(n);
    std::vector<std::uint64_t> keys;
    keys.reserve(n);
    // A document's vector key is the snapshot's (the key of its model and text), so a commit
    // that embeds with that model needs no text of a document that did not change: the texts
    // are rendered when asked for (DocumentCache::text_of), not here.
    const bool keyed = opened.embed_keys.size() == n && !opened.embedder_model.empty();
    const std::uint64_t model_hash = keyed ? embed_model_hash(opened.embedder_model) : 0;
    // ToolId order: the ACTIVE servers by name, their tools by name (collect_tools' order).
    for (const auto& [server_name, server] : *staged) {
        if (server->meta.status != ServerStatus::active) {
            continue;
        }
        for (const auto& [tool_name, tool] : server->tools) {
            const std::size_t id = keys.size();
            if (id == n) {
                return false;
            }
            docs[id].text_server = &server->meta;
            docs[id].text_tool = tool.get();
            if (keyed) {
                docs[id].embed_key = opened.embed_keys[id];
                docs[id].embed_model_hash = model_hash;
            }
            const ToolRecord& record = opened.tools[id];
            if (record.tool != tool->name || record.server != server->meta.name) {
                return false;  // not the snapshot's ToolId order
            }
            docs[id].action = record.action;  // read off the names when the file was opened
            docs[id].length = bm25.lengths()[id];
            keys.push_back(DocumentCache::key(server->meta, *tool));
        }
    }
    if (keys.size() != n) {
        return false;
    }
    // The documents' terms stay in the postings: a later build reads those of the documents it
    // needs (layout_bm25), so none is listed per document here.
    documents.seed(opened.generation, bm25.vocabulary(), std::move(keys), std::move(docs), staged);
    return true;
}

}  // namespace scout::detail

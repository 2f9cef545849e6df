// seed_documents.hpp: the document cache of an opened index file's snapshot, made from what the
// file stores (postings, weighted tfs, lengths) instead of rendering and analyzing every tool, so
// the first commit after an open renders only the tools that changed.
#pragma once

#include "snapshot/document_cache.hpp"
#include "snapshot/snapshot.hpp"

namespace scout::detail {

/// Seeds `documents` with `opened`'s documents (DocumentCache::seed): their terms left in the
/// BM25 postings until a commit needs them (DocumentCache::terms_in_postings), their vector keys
/// from the snapshot's, their texts left to be rendered when a commit asks for them
/// (DocumentCache::text_of). False, leaving `documents` as it is, when the snapshot's BM25 index
/// keeps no weighted tfs (a file without a BMTF section), has no generation, or its documents
/// are not the staged catalog's ACTIVE tools.
bool seed_documents(const Snapshot& opened, DocumentCache& documents);

}  // namespace scout::detail

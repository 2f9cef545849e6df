// index_reader_fuzz.cpp: libFuzzer target for the index file reader. Any byte string must give
// a clean Status (corrupt, version_unsupported) or a verified index, never a crash, a leak or
// undefined behaviour; and the BM25 postings (with their weights, BMTF) and HNSW graph of a
// verified index must be safe to search. Built with -DSCOUT_FUZZ=ON and clang
// (scripts/fuzz.sh); the target skips checksum comparisons so mutations reach the JSON,
// postings, weights, graph and vector parsers behind them.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "scout/catalog.hpp"

#include "persist/index_codec.hpp"
#include "util/fuzzing_mode.hpp"

// Mutated inputs get past the checksums to the parsers behind them.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
    scout::detail::skip_checksums_for_fuzzing();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::uint8_t> bytes(data, size);
    auto info = scout::inspect_index(bytes);
    if (info.ok() && info->file_bytes != size) {
        __builtin_trap();  // a verified index must describe exactly the bytes it was given
    }
    auto stored = scout::detail::decode_index(bytes);
    if (stored.ok() != info.ok()) {
        __builtin_trap();  // one verdict for one file
    }
    if (!stored.ok()) {
        return 0;
    }
    std::vector<scout::detail::ScoredDoc> hits;
    if (stored->bm25) {
        // Every stored term, so each posting list is walked.
        std::vector<std::string> terms;
        for (std::string_view t : stored->bm25->terms()) {
            terms.emplace_back(t);
        }
        stored->bm25->search(std::span<const std::string>(terms), 10, nullptr, hits);
        // Adopted BM25 weights (BMTF) are what a patch reads: one per posting and per document.
        const scout::detail::Bm25Index& bm25 = *stored->bm25;
        if (!bm25.tfs().empty() && !bm25.has_weights()) {
            __builtin_trap();
        }
    }
    if (stored->dense && stored->vectors && stored->vectors->size() > 0) {
        // Each stored row as the query: the graph walk starts from the entry point and reaches
        // what its links reach.
        for (std::size_t r = 0; r < stored->vectors->size() && r < 8; ++r) {
            stored->dense->search(stored->vectors->row(r), 5, nullptr, hits);
        }
    }
    return 0;
}

// search_json_fuzz.cpp: libFuzzer target for Catalog::open on any bytes, then searches and the
// `scout search --json` rendering of their results. Whatever opens must search without a crash
// and render as valid JSON. The target skips checksum comparisons so mutations reach the catalog
// inside the file.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "scout/catalog.hpp"
#include "scout/embedder.hpp"

#include "cli/search_json.hpp"
#include "fuzz_check.hpp"
#include "util/fuzzing_mode.hpp"

using scout::fuzz::check;

namespace {

const std::filesystem::path& scratch() {
    static const std::filesystem::path path =
        std::filesystem::temp_directory_path() /
        ("scout-fuzz-" + std::to_string(::getpid()) + ".scoutidx");
    return path;
}

void search_and_render(const scout::Catalog& catalog) {
    const scout::Searcher searcher = catalog.searcher();
    for (const char* query : {"read a file", "send mail", "files_read_file", "?!", "検索"}) {
        for (scout::Mode mode : {scout::Mode::hybrid, scout::Mode::bm25}) {
            scout::SearchOptions options;
            options.mode = mode;
            auto result = searcher.search(query, options);
            if (!result) {
                continue;
            }
            const std::string out = scout::cli::search_json(query, result.value());
            const auto parsed = nlohmann::json::parse(out, nullptr, false);
            check(!parsed.is_discarded() && parsed["matches"].size() == result->hits.size());
        }
    }
}

}  // namespace

// Mutated inputs get past the checksums to the parsers behind them.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
    scout::detail::skip_checksums_for_fuzzing();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    {
        std::ofstream out(scratch(), std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    if (auto catalog = scout::Catalog::open(scratch(), nullptr)) {
        search_and_render(catalog.value());
    }
    if (auto catalog =
            scout::Catalog::open(scratch(), std::make_shared<scout::HashingEmbedder>(4))) {
        search_and_render(catalog.value());
    }
    return 0;
}

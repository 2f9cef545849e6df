// c_abi_json_fuzz.cpp: libFuzzer target for the JSON the C ABI (scout.h) reads: search options,
// servers in the catalog file format, and catalog options. The first byte picks the reader, the
// rest is the text. Any bytes must give SCOUT_OK or a clean error with a message: never a crash,
// an escaping exception or SCOUT_INTERNAL.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "scout/scout.h"

#include "fuzz_check.hpp"

using scout::fuzz::check;

namespace {

void check_error(scout_status status) {
    check(status != SCOUT_INTERNAL);
    if (status != SCOUT_OK) {
        check(scout_last_error()[0] != '\0');
    }
}

/// A committed catalog of one server, BM25 only, shared by every search-options input.
scout_catalog* searchable_catalog() {
    static scout_catalog* catalog = [] {
        scout_catalog* made = nullptr;
        check(scout_catalog_create(R"({"embedder": "none"})", &made) == SCOUT_OK);
        check(scout_catalog_upsert_servers(
                  made,
                  R"({"servers": [{"name": "files", "description": "file store",
                      "environment": "prod", "tools": [{"name": "read_file",
                      "description": "read a file", "inputSchema": {"type": "object"}}]}]})") ==
              SCOUT_OK);
        check(scout_catalog_commit(made, nullptr) == SCOUT_OK);
        return made;
    }();
    return catalog;
}

/// Embedders that load files or reach the network are left out: they would make each input slow
/// and depend on the machine, and their specs are read by the same code as the ones kept.
bool cheap_embedder(std::string_view text) {
    for (const char* slow : {"static", "glove", "http", "transformer"}) {
        if (text.find(slow) != std::string_view::npos) {
            return false;
        }
    }
    return text.find("\"embedder\"") != std::string_view::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    switch (data[0] % 3) {
        case 0: {
            char* result = nullptr;
            const scout_status status =
                scout_catalog_search(searchable_catalog(), "read a file", text.c_str(), &result);
            check_error(status);
            check((status == SCOUT_OK) == (result != nullptr));
            scout_string_free(result);
            break;
        }
        case 1: {
            scout_catalog* catalog = nullptr;
            check(scout_catalog_create(R"({"embedder": "none"})", &catalog) == SCOUT_OK);
            const scout_status status = scout_catalog_upsert_servers(catalog, text.c_str());
            check_error(status);
            if (status == SCOUT_OK) {
                char* info = nullptr;
                check(scout_catalog_commit(catalog, &info) == SCOUT_OK);
                scout_string_free(info);
                char* result = nullptr;
                check(scout_catalog_search(catalog, "file", nullptr, &result) == SCOUT_OK);
                scout_string_free(result);
            }
            scout_catalog_free(catalog);
            break;
        }
        default: {
            if (!cheap_embedder(text)) {
                return 0;
            }
            scout_catalog* catalog = nullptr;
            const scout_status status = scout_catalog_create(text.c_str(), &catalog);
            check_error(status);
            check((status == SCOUT_OK) == (catalog != nullptr));
            scout_catalog_free(catalog);
            break;
        }
    }
    return 0;
}

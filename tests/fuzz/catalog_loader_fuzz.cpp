// catalog_loader_fuzz.cpp: libFuzzer target for the catalog JSON loader and the tools/list
// reader. Any bytes must give a clean invalid_argument or servers whose every entry a Catalog
// accepts or refuses with a Status: never a crash, a hang or a stack overflow.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "scout/catalog.hpp"
#include "scout/catalog_loader.hpp"

#include "fuzz_check.hpp"

using scout::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto spec = scout::parse_catalog_json(text);
    if (!spec) {
        check(spec.status().code() == scout::Errc::invalid_argument);
        check(!spec.status().message().empty() && spec.status().message().size() < 4096);
    } else {
        auto catalog = scout::Catalog::create();
        check(catalog.ok());
        const scout::Status s = catalog->upsert_servers(spec.value());
        check(s.ok() || s.message().size() < 4096);
        if (s.ok()) {
            check(catalog->commit().ok());
        }
    }
    auto tools = scout::parse_tools_list(text);
    check(tools.ok() || tools.status().code() == scout::Errc::invalid_argument);
    return 0;
}

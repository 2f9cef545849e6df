// gateway_embedder_config_fuzz.cpp: libFuzzer target for the parser of scout-gateway's config
// "embedder" (embedder_options.hpp). Any bytes must give a clean invalid_argument or settings
// whose headers are "Name: value" lines the HTTP embedder can check.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "scout/http/http_embedder.hpp"

#include "built_components.hpp"
#include "embedder_options.hpp"
#include "fuzz_check.hpp"

using scout::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    scout::gateway::EmbedderSettings settings;
    const auto status = scout::gateway::parse_embedder_config(
        std::string_view(reinterpret_cast<const char*>(data), size), settings);
    if (!status.ok()) {
        check(status.code() == scout::Errc::invalid_argument);
        check(!status.message().empty());
        return 0;
    }
    check(settings.http.dimensions <= 65536);
    for (const auto& header : settings.http.headers) {
        check(header.find(": ") != std::string::npos);
    }
    // (A build without scout::http has no embedder to hand them to.)
    if (SCOUT_WITH_HTTP && settings.spec == "http" && !settings.http.base_url.empty()) {
        // The embedder validates what the parser let through; it must not crash on it either.
        auto options = settings.http;
        options.dimensions = options.dimensions == 0 ? 4 : options.dimensions;  // never probe
        options.base_url = "https://127.0.0.1:1/v1";  // never leave the machine
#if SCOUT_WITH_HTTP
        (void)scout::HttpEmbedder::create(options);
#endif
    }
    return 0;
}

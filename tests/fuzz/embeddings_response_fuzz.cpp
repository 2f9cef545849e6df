// embeddings_response_fuzz.cpp: libFuzzer target for the HTTP embedder's response parser. Any
// body must give a clean Status or exactly texts x dim floats with dim within the cap.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "http/embeddings_response.hpp"

using scout::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    // The first byte picks how many texts the request held (1..4) and whether dim is known.
    const std::size_t texts = (data[0] & 3U) + 1U;
    const bool probe = (data[0] & 4U) != 0;
    const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
    std::size_t dim = probe ? 0 : 3;
    auto parsed = scout::detail::parse_embeddings_response(body, texts, dim);
    if (parsed) {
        check(dim > 0 && dim <= scout::detail::kMaxHttpEmbeddingDim);
        check(parsed->size() == texts * dim);
    } else {
        check(!parsed.status().message().empty() && parsed.status().message().size() < 1024);
    }
    return 0;
}

// embedder_choice.cpp: see embedder_choice.hpp. Mirrors the CLI's --embedder option.
#include "embedder_choice.hpp"

#include <charconv>

namespace scout::gateway {

Result<std::shared_ptr<Embedder>> make_embedder(const std::string& spec) {
    if (spec == "none") {
        return std::shared_ptr<Embedder>();
    }
    if (spec.rfind("hashing", 0) == 0) {
        std::size_t dim = 256;
        if (spec.size() > 7) {
            const char* first = spec.data() + 8;
            const char* last = spec.data() + spec.size();
            auto [ptr, ec] = std::from_chars(first, last, dim);
            if (spec[7] != ':' || ec != std::errc() || ptr != last || dim == 0 || dim > 65536) {
                return Status{Errc::invalid_argument, "--embedder hashing:DIM needs 1 <= DIM <= 65536"};
            }
        }
        return std::shared_ptr<Embedder>(std::make_shared<HashingEmbedder>(dim));
    }
    return Status{Errc::invalid_argument,
                  "unknown embedder '" + spec + "' (expected hashing[:DIM] or none)"};
}

}  // namespace scout::gateway

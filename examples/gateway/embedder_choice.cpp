// embedder_choice.cpp: see embedder_choice.hpp. Mirrors the CLI's --embedder defaults: the static
// word-vector model when it is installed, else BM25 alone (said on stderr, never an error).
#include "embedder_choice.hpp"

#include <charconv>

#include "log.hpp"
#include "scout/caching_embedder.hpp"
#include "scout/static_embedder.hpp"

namespace scout::gateway {
namespace {

/// Repeated queries (an agent often retries a search) skip the model.
constexpr std::size_t kQueryCache = 4096;

std::shared_ptr<Embedder> cached(std::shared_ptr<Embedder> inner) {
    return std::make_shared<CachingEmbedder>(std::move(inner), kQueryCache);
}

}  // namespace

Result<std::shared_ptr<Embedder>> make_embedder(const std::string& spec) {
    if (spec == "none") {
        return std::shared_ptr<Embedder>();
    }
    if (spec == "static" || spec.rfind("static:", 0) == 0) {
        const std::string path = spec.size() > 7 ? spec.substr(7) : std::string();
        auto loaded = path.empty() ? StaticEmbedder::load_default() : StaticEmbedder::load(path);
        if (!loaded) {
            log_line("static embedding model unavailable (" + loaded.status().message() +
                     "); dense search is off, answering with BM25 only");
            return std::shared_ptr<Embedder>();
        }
        return cached(std::move(loaded.value()));
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
        return cached(std::make_shared<HashingEmbedder>(dim));
    }
    return Status{Errc::invalid_argument,
                  "unknown embedder '" + spec + "' (expected static[:PATH], hashing[:DIM] or none)"};
}

}  // namespace scout::gateway

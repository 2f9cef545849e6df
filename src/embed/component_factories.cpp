// component_factories.cpp: the core's door to the embedders of the components scout::http and
// scout::transformer. The core never links them; a program that does registers them explicitly
// (a static initialiser in a component would be dropped by a static link that names none of its
// symbols), and until then asking for one says which component it needs.
#include <atomic>

#include "scout/embedder.hpp"

namespace scout {

namespace {

std::atomic<HttpEmbedderFactory> g_http_factory{nullptr};
std::atomic<TransformerEmbedderFactory> g_transformer_factory{nullptr};

}  // namespace

void set_http_embedder_factory(HttpEmbedderFactory factory) noexcept {
    g_http_factory.store(factory, std::memory_order_release);
}

void set_transformer_embedder_factory(TransformerEmbedderFactory factory) noexcept {
    g_transformer_factory.store(factory, std::memory_order_release);
}

Result<std::shared_ptr<Embedder>> make_http_embedder(HttpEmbedderOptions options) {
    HttpEmbedderFactory factory = g_http_factory.load(std::memory_order_acquire);
    if (factory == nullptr) {
        return Status{Errc::invalid_argument,
                      "the http embedder needs scout::http: link it (find_package(scout "
                      "COMPONENTS http), target scout::http; pkg-config scout-http) and call "
                      "scout::register_http_embedder() (C: scout_http_register()) first"};
    }
    return factory(std::move(options));
}

Result<std::shared_ptr<Embedder>> make_transformer_embedder(const std::string& dir,
                                                            TransformerEmbedderOptions options) {
    TransformerEmbedderFactory factory = g_transformer_factory.load(std::memory_order_acquire);
    if (factory == nullptr) {
        return Status{
            Errc::invalid_argument,
            "the transformer embedder needs scout::transformer: link it (find_package(scout "
            "COMPONENTS transformer), target scout::transformer; pkg-config scout-transformer) "
            "and call scout::register_transformer_embedder() (C: scout_transformer_register()) "
            "first"};
    }
    return factory(dir, options);
}

}  // namespace scout

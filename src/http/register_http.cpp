// register_http.cpp: installs HttpEmbedder::create as the core's HTTP embedder factory.
#include "scout/http/http_embedder.hpp"

namespace scout {

namespace {

Result<std::shared_ptr<Embedder>> create_http_embedder(HttpEmbedderOptions options) {
    auto made = HttpEmbedder::create(std::move(options));
    if (!made) {
        return made.status();
    }
    return std::shared_ptr<Embedder>(made.value());
}

}  // namespace

void register_http_embedder() noexcept {
    set_http_embedder_factory(&create_http_embedder);
}

}  // namespace scout

extern "C" void scout_http_register(void) {
    scout::register_http_embedder();
}

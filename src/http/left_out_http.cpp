// left_out_http.cpp: scout::http's registration in a build configured without it
// (SCOUT_WITH_HTTP=OFF): the factory it installs refuses the http embedder, saying why, so the
// programs and bindings that register every component still build and explain the refusal.
#include "scout/http/http_embedder.hpp"

#include "built_components.hpp"

namespace scout {
namespace {

// NOLINTNEXTLINE(performance-unnecessary-value-param): the factory type takes it by value
Result<std::shared_ptr<Embedder>> refuse_http_embedder(HttpEmbedderOptions /*options*/) {
    return Status{Errc::invalid_argument, SCOUT_HTTP_LEFT_OUT};
}

}  // namespace

void register_http_embedder() noexcept {
    set_http_embedder_factory(&refuse_http_embedder);
}

}  // namespace scout

extern "C" void scout_http_register(void) {
    scout::register_http_embedder();
}

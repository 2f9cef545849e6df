// left_out_transformer.cpp: scout::transformer's registration in a build configured without it
// (SCOUT_WITH_TRANSFORMER=OFF): the factory it installs refuses the transformer embedder, saying
// why, so the programs and bindings that register every component still build and explain the
// refusal.
#include "scout/transformer/transformer_embedder.hpp"

#include "built_components.hpp"

namespace scout {
namespace {

Result<std::shared_ptr<Embedder>> refuse_transformer_embedder(
    const std::string& /*dir*/, TransformerEmbedderOptions /*options*/) {
    return Status{Errc::invalid_argument, SCOUT_TRANSFORMER_LEFT_OUT};
}

}  // namespace

void register_transformer_embedder() noexcept {
    set_transformer_embedder_factory(&refuse_transformer_embedder);
}

}  // namespace scout

extern "C" void scout_transformer_register(void) {
    scout::register_transformer_embedder();
}

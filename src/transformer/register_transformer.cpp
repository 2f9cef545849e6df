// register_transformer.cpp: installs TransformerEmbedder::load as the core's transformer
// embedder factory.
#include "scout/transformer/transformer_embedder.hpp"

namespace scout {

namespace {

Result<std::shared_ptr<Embedder>> load_transformer_embedder(const std::string& dir,
                                                            TransformerEmbedderOptions options) {
    auto loaded = TransformerEmbedder::load(dir, options);
    if (!loaded) {
        return loaded.status();
    }
    return std::shared_ptr<Embedder>(loaded.value());
}

}  // namespace

void register_transformer_embedder() noexcept {
    set_transformer_embedder_factory(&load_transformer_embedder);
}

}  // namespace scout

extern "C" void scout_transformer_register(void) {
    scout::register_transformer_embedder();
}

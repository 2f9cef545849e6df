// The components from outside scout's tree: before registration the core names the component
// an embedder needs; after it, the core's settings reach the components' own embedders.
// Usage: components MODEL_DIR (a BERT-style model folder: tests/fixtures/transformer/tiny-bert).
#include <iostream>
#include <string>

#include "scout/embedder.hpp"
#include "scout/http/http_embedder.hpp"
#include "scout/scout.h"
#include "scout/transformer/transformer_embedder.hpp"

namespace {

int failed(const std::string& what) {
    std::cerr << "components: " << what << "\n";
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        return failed("usage: components MODEL_DIR");
    }
    const std::string model = argv[1];
    scout::HttpEmbedderOptions http;
    http.base_url = "ftp://127.0.0.1/v1";  // refused by the component, before any connection
    http.model = "m";
    http.dimensions = 8;

    auto before = scout::make_transformer_embedder(model);
    if (before.ok() || before.status().message().find("scout::transformer") == std::string::npos) {
        return failed("an unregistered transformer was not reported as missing");
    }
    scout::register_http_embedder();
    scout_transformer_register();  // the C registration, as a C program calls it

    auto loaded = scout::make_transformer_embedder(model);
    if (!loaded) {
        return failed("transformer: " + loaded.status().to_string());
    }
    const std::string texts[1] = {"create a pull request"};
    auto vectors = loaded.value()->embed(texts);
    if (!vectors || vectors.value().size() != loaded.value()->dim()) {
        return failed("the transformer embedded nothing");
    }
    auto refused = scout::make_http_embedder(http);
    if (refused.ok() || refused.status().message().find("scout::http") != std::string::npos) {
        return failed("the http component did not check its own settings");
    }
    scout_catalog* catalog = nullptr;
    const std::string config = R"({"embedder": "transformer:)" + model + R"("})";
    if (scout_catalog_create(config.c_str(), &catalog) != SCOUT_OK) {
        return failed(std::string("the C ABI's transformer: ") + scout_last_error());
    }
    scout_catalog_free(catalog);
    std::cout << "components: " << loaded.value()->model_id() << " (" << loaded.value()->dim()
              << "d), http checked its settings\n";
    return 0;
}

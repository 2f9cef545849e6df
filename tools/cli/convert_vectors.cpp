// convert_vectors.cpp: `scout-convert-vectors IN [OUT]` reads word vectors in any format the
// static embedder accepts and writes scout's compact binary (default OUT: the default model path).
#include <chrono>
#include <cstdio>
#include <string>

#include "scout/embedder.hpp"

int main(int argc, char** argv) {
    if (argc < 2 || argc > 3 || std::string(argv[1]) == "--help") {
        std::fprintf(stderr,
                     "usage: scout-convert-vectors IN [OUT]\n"
                     "  IN:  word2vec (text or binary), fastText .vec, GloVe text, wink-embeddings "
                     "JSON, or .scout\n"
                     "  OUT: default %s\n",
                     scout::StaticEmbedder::glove_model_path().c_str());
        return 2;
    }
    const std::string out = argc == 3 ? argv[2] : scout::StaticEmbedder::glove_model_path();
    const auto started = std::chrono::steady_clock::now();
    auto embedder = scout::StaticEmbedder::load(argv[1]);
    if (!embedder) {
        std::fprintf(stderr, "scout-convert-vectors: %s\n", embedder.status().to_string().c_str());
        return 1;
    }
    if (scout::Status s = embedder.value()->save(out); !s.ok()) {
        std::fprintf(stderr, "scout-convert-vectors: %s\n", s.to_string().c_str());
        return 1;
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    std::printf("%s: %zu words x %zu dims -> %s (%.0f ms)\n",
                argv[1],
                embedder.value()->vocabulary_size(),
                embedder.value()->dim(),
                out.c_str(),
                ms);
    return 0;
}

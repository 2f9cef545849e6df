// embeddings_response.cpp: see embeddings_response.hpp.
#include "http/embeddings_response.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "util/json_limits.hpp"
#include "util/printable.hpp"

namespace scout::detail {

Result<std::vector<float>> parse_embeddings_response(const std::string& body,
                                                     std::size_t texts,
                                                     std::size_t& dim) {
    auto parsed = parse_json(body);
    if (!parsed || !parsed->is_object() || !parsed->contains("data") ||
        !(*parsed)["data"].is_array()) {
        return Status{Errc::unavailable, "malformed embeddings response: " + clipped(body, 200)};
    }
    const auto& data = (*parsed)["data"];
    if (data.size() != texts) {
        return Status{Errc::unavailable,
                      "embeddings response holds " + std::to_string(data.size()) + " vectors for " +
                          std::to_string(texts) + " texts"};
    }
    std::vector<float> out;
    std::vector<bool> seen(texts, false);
    for (std::size_t i = 0; i < data.size(); ++i) {
        const auto& item = data[i];
        if (!item.is_object() || !item.contains("embedding") || !item["embedding"].is_array()) {
            return Status{Errc::unavailable,
                          "embeddings response item without an \"embedding\" array"};
        }
        std::size_t index = i;
        if (item.contains("index")) {
            if (!item["index"].is_number_unsigned() || item["index"].get<std::size_t>() >= texts) {
                return Status{Errc::unavailable, "embeddings response has a bad \"index\""};
            }
            index = item["index"].get<std::size_t>();
        }
        if (seen[index]) {
            return Status{Errc::unavailable,
                          "embeddings response repeats index " + std::to_string(index)};
        }
        seen[index] = true;
        const auto& vec = item["embedding"];
        if (dim == 0) {
            if (vec.size() > kMaxHttpEmbeddingDim) {
                return Status{Errc::dimension_mismatch,
                              "embedding service returned " + std::to_string(vec.size()) +
                                  " dimensions, over the limit of " +
                                  std::to_string(kMaxHttpEmbeddingDim)};
            }
            dim = vec.size();
        }
        if (vec.size() != dim || dim == 0) {
            return Status{Errc::dimension_mismatch,
                          "embedding service returned " + std::to_string(vec.size()) +
                              " dimensions, expected " + std::to_string(dim)};
        }
        out.resize(texts * dim);
        for (std::size_t j = 0; j < dim; ++j) {
            if (!vec[j].is_number()) {
                return Status{Errc::unavailable, "embeddings response holds a non-number"};
            }
            out[index * dim + j] = vec[j].get<float>();
        }
    }
    return out;
}

}  // namespace scout::detail

// pq_table.cpp: decoding product-quantized rows into the int8 table.
#include "embed/pq_table.hpp"

#include <algorithm>
#include <cmath>

#include "util/half.hpp"

namespace scout::detail {

Result<VectorTable> decode_pq(const PqRows& pq, std::string words) {
    const auto corrupt = [](const std::string& why) { return Status{Errc::corrupt, why}; };
    if (pq.dim == 0 || pq.dim > 65536 || pq.subvectors == 0 || pq.subvectors > pq.dim ||
        pq.dim % pq.subvectors != 0 || pq.centroids == 0 || pq.centroids > 256) {
        return corrupt("bad product quantizer (dimension, sub-vectors or centroids)");
    }
    const std::size_t sub = pq.dim / pq.subvectors;
    if (pq.codebooks.size() != pq.centroids * pq.dim || pq.codes.size() % pq.subvectors != 0) {
        return corrupt("codebook or code sizes disagree with the quantizer");
    }
    std::vector<float> centroids(pq.codebooks.size());
    for (std::size_t i = 0; i < centroids.size(); ++i) {
        centroids[i] = half_to_float(pq.codebooks[i]);
        if (!std::isfinite(centroids[i])) {
            return corrupt("non-finite centroid");
        }
    }
    const std::size_t rows = pq.codes.size() / pq.subvectors;
    std::vector<float> scales(rows);
    std::vector<std::int8_t> values(rows * pq.dim);
    std::vector<float> row(pq.dim);
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t s = 0; s < pq.subvectors; ++s) {
            const std::size_t code = pq.codes[r * pq.subvectors + s];
            if (code >= pq.centroids) {
                return corrupt("code " + std::to_string(code) + " out of range");
            }
            const float* c = centroids.data() + (s * pq.centroids + code) * sub;
            std::copy(c, c + sub, row.begin() + static_cast<std::ptrdiff_t>(s * sub));
        }
        // The same symmetric int8 quantization as VectorTable::add.
        float max_abs = 0.0f;
        for (float x : row) {
            max_abs = std::max(max_abs, std::fabs(x));
        }
        const float scale = max_abs > 0.0f ? max_abs / 127.0f : 1.0f;
        scales[r] = scale;
        for (std::size_t i = 0; i < pq.dim; ++i) {
            values[r * pq.dim + i] = static_cast<std::int8_t>(std::lround(row[i] / scale));
        }
    }
    return VectorTable::from_quantized(
        pq.dim, std::move(words), std::move(scales), std::move(values));
}

}  // namespace scout::detail

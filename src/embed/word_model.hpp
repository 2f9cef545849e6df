// word_model.hpp: a static embedding model as the embedder uses it: the word table, one pooling
// weight per word (learned, or none for plain word vectors), and the default exponent of the
// catalog IDF that multiplies those weights. Also the compact file format that stores all of it:
// version 1 with int8 rows, version 2 with product-quantized rows (docs/FORMAT.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scout/status.hpp"

#include "embed/pq_table.hpp"
#include "embed/vector_table.hpp"

namespace scout::detail {

struct WordModel {
    VectorTable table;
    /// Pooling weight of each row; empty for plain word vectors (the embedder then uses SIF
    /// weights from the frequency rank).
    std::vector<float> weights;
    /// The word weight is multiplied by catalog IDF to this power (1 = full IDF, 0 = none).
    double idf_power = 1.0;
    std::string name;
};

/// Magic bytes that open a static word model file (.swm).
inline constexpr char kWordModelMagic[8] = {'S', 'C', 'O', 'U', 'T', 'S', 'W', 'M'};
/// 1: header, name, words, scales, weights, int8 rows, checksum (docs/FORMAT.md).
inline constexpr std::uint32_t kWordModelVersion = 1;
/// 2: header, quantizer shape, name, words, fp16 weights, fp16 codebooks, codes, checksum.
inline constexpr std::uint32_t kWordModelPqVersion = 2;
/// Header flag: one float32 pooling weight per row follows the scales.
inline constexpr std::uint32_t kWordModelHasWeights = 1;

/// A version 2 model as stored: serialize_pq_word_model() writes it (the training pipeline's
/// export writes the same bytes); parse_word_model() decodes it into a WordModel.
struct PqWordModel {
    std::string name;
    double idf_power = 1.0;
    std::string words;                   ///< each word followed by '\0'
    std::vector<std::uint16_t> weights;  ///< fp16 bits, one per row; empty for none
    PqRows rows;
};

/// Parses the bytes of a .swm file of version 1 or 2; `origin` names it in errors. corrupt when
/// any size, scale, weight, code, centroid or the checksum is wrong, version_unsupported for
/// another version. Never reads past `bytes`.
[[nodiscard]] Result<WordModel> parse_word_model(std::string_view bytes, const std::string& origin);

/// The version 1 .swm bytes of `model` (weights written when present).
[[nodiscard]] std::string serialize_word_model(const WordModel& model);

/// The version 2 .swm bytes of `model`.
[[nodiscard]] std::string serialize_pq_word_model(const PqWordModel& model);

/// Reads a .swm file, or any word-vector format read_vectors() accepts (no weights, IDF power 1).
[[nodiscard]] Result<WordModel> read_word_model(const std::string& path);

/// Writes `model` as version 1 .swm (to path + ".tmp", then renamed).
[[nodiscard]] Status save_word_model(const WordModel& model, const std::string& path);

}  // namespace scout::detail

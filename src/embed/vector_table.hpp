// vector_table.hpp: an immutable word -> vector table (int8 rows with one scale per row) with
// an open-addressing vocabulary index, plus the readers of the vector file formats it accepts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scout/status.hpp"

namespace scout::detail {

/// Rows are kept in file order, which for GloVe, word2vec and fastText files is descending
/// corpus frequency, so a row's index doubles as its frequency rank (0 = most frequent).
/// Immutable after construction; safe to read from any number of threads.
class VectorTable {
public:
    /// Appends one word. Words already present are ignored (the first, more frequent, wins);
    /// vectors of the wrong size or with non-finite values are rejected with invalid_argument.
    Status add(std::string_view word, const float* values, std::size_t dim);

    /// Must follow the last add(); builds the lookup index and the content checksum.
    void finish();

    [[nodiscard]] std::size_t dim() const noexcept { return dim_; }
    [[nodiscard]] std::size_t size() const noexcept { return scales_.size(); }
    /// Checksum of words and quantized values: names the model in cache keys.
    [[nodiscard]] std::uint64_t checksum() const noexcept { return checksum_; }

    /// Row index of `word`, or nullopt.
    [[nodiscard]] std::optional<std::uint32_t> find(std::string_view word) const noexcept;
    /// out[i] += weight * row[i].
    void accumulate(std::uint32_t row, float weight, float* out) const noexcept;
    [[nodiscard]] std::string_view word(std::uint32_t row) const noexcept;

    /// A table from rows already quantized (the static word model's file): `words` holds each
    /// word followed by '\0', `scales` one positive finite scale per row, `values` rows x dim.
    /// corrupt when the sizes disagree, a scale is bad or a word repeats (a model's per-row
    /// weights must stay aligned with its rows, so duplicates are not dropped silently).
    [[nodiscard]] static Result<VectorTable> from_quantized(std::size_t dim,
                                                            std::string words,
                                                            std::vector<float> scales,
                                                            std::vector<std::int8_t> values);
    [[nodiscard]] const std::string& words_blob() const noexcept { return words_; }
    [[nodiscard]] const std::vector<float>& scales() const noexcept { return scales_; }
    [[nodiscard]] const std::vector<std::int8_t>& values() const noexcept { return values_; }

    /// The compact binary format (see docs/embedders.md): header, words, scales,
    /// int8 rows, a 64-bit checksum. Written to `path` + ".tmp" then renamed, so a reader never
    /// sees half a file.
    [[nodiscard]] Status save(const std::string& path) const;

private:
    friend Result<VectorTable> read_scout_vectors(const std::string& path);

    std::size_t dim_ = 0;
    std::string words_;                   // words joined, each followed by '\0'
    std::vector<std::uint32_t> offsets_;  // start of each word in words_
    std::vector<float> scales_;           // value = int8 * scale
    std::vector<std::int8_t> values_;     // size() * dim_
    std::vector<std::uint32_t> slots_;    // open addressing: row + 1, 0 = empty
    std::uint64_t checksum_ = 0;
};

/// Magic bytes that open a .scout vector file.
inline constexpr char kScoutVectorMagic[8] = {'S', 'C', 'O', 'U', 'T', 'V', 'E', 'C'};
/// 2: four-lane checksum (1, never released, used byte-serial FNV-1a).
inline constexpr std::uint32_t kScoutVectorVersion = 2;

/// Reads any supported format, chosen by content: the .scout binary; the wink-embeddings JSON
/// package; word2vec binary; word2vec / fastText .vec text (with a "count dim" header line);
/// GloVe text (no header). io_error when unreadable, corrupt / invalid_argument when malformed.
[[nodiscard]] Result<VectorTable> read_vectors(const std::string& path);
[[nodiscard]] Result<VectorTable> read_scout_vectors(const std::string& path);

/// A model or vector file's read error as these readers report it: io_error, also for a file
/// that does not exist (the file readers' not_found), with the message naming the file.
[[nodiscard]] inline Status model_file_error(const Status& read_error) {
    return read_error.code() == Errc::not_found ? Status{Errc::io_error, read_error.message()}
                                                : read_error;
}

/// The checksum that closes .scout vector and static word model files.
[[nodiscard]] std::uint64_t checksum64(std::string_view data) noexcept;

}  // namespace scout::detail

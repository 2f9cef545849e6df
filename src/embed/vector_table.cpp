// vector_table.cpp: VectorTable storage, lookup, and the .scout binary reader and writer.
#include "embed/vector_table.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>

#include "util/byte_io.hpp"
#include "util/file_io.hpp"
#include "util/hash.hpp"

namespace scout::detail {
namespace {

static_assert(std::endian::native == std::endian::little, "the .scout format is little-endian");

constexpr std::size_t kTableHeaderBytes = 8 + 4 * 4 + 8;

std::uint64_t table_word_hash(std::string_view word) noexcept {
    return mix64(fnv1a(word));
}

/// Checksum of the .scout format: four independent lanes of (h ^ w) * prime over 8-byte
/// little-endian words (so the multiplies pipeline; byte-serial FNV-1a is ~10x slower on tens
/// of megabytes), the tail bytes zero-padded, then the lanes and the length mixed together.
std::uint64_t checksum64_seeded(std::string_view data, std::uint64_t seed) noexcept {
    constexpr std::uint64_t kPrime = 1099511628211ULL;
    std::uint64_t lane[4] = {seed, seed ^ 1U, seed ^ 2U, seed ^ 3U};
    std::size_t i = 0;
    for (; i + 32 <= data.size(); i += 32) {
        for (std::size_t k = 0; k < 4; ++k) {
            std::uint64_t w;
            std::memcpy(&w, data.data() + i + 8 * k, 8);
            lane[k] = (lane[k] ^ w) * kPrime;
        }
    }
    for (int k = 0; i < data.size(); i += 8, ++k) {
        std::uint64_t w = 0;
        std::memcpy(&w, data.data() + i, std::min<std::size_t>(8, data.size() - i));
        lane[k % 4] = (lane[k % 4] ^ w) * kPrime;
    }
    return mix64(mix64(mix64(mix64(lane[0]) ^ lane[1]) ^ lane[2]) ^ lane[3] ^ data.size());
}

}  // namespace

std::uint64_t checksum64(std::string_view data) noexcept {
    return checksum64_seeded(data, kFnvOffset);
}

Result<VectorTable> VectorTable::from_quantized(std::size_t dim,
                                                std::string words,
                                                std::vector<float> scales,
                                                std::vector<std::int8_t> values) {
    const auto corrupt = [](const std::string& why) { return Status{Errc::corrupt, why}; };
    if (dim == 0 || dim > 65536 || scales.empty() || values.size() / dim != scales.size() ||
        values.size() % dim != 0) {
        return corrupt("row sizes disagree with the dimension");
    }
    if (words.empty() || words.back() != '\0') {
        return corrupt("unterminated vocabulary");
    }
    VectorTable table;
    table.dim_ = dim;
    table.words_ = std::move(words);
    for (std::size_t i = 0; i < table.words_.size();) {
        const std::size_t end = table.words_.find('\0', i);
        if (end == i) {
            return corrupt("empty word in the vocabulary");
        }
        table.offsets_.push_back(static_cast<std::uint32_t>(i));
        i = end + 1;
    }
    if (table.offsets_.size() != scales.size()) {
        return corrupt("vocabulary holds " + std::to_string(table.offsets_.size()) + " words for " +
                       std::to_string(scales.size()) + " rows");
    }
    for (float s : scales) {
        if (!std::isfinite(s) || s <= 0.0f) {
            return corrupt("bad row scale");
        }
    }
    table.scales_ = std::move(scales);
    table.values_ = std::move(values);
    const std::size_t rows = table.size();
    table.finish();
    if (table.size() != rows) {
        return corrupt("a word appears twice in the vocabulary");
    }
    return table;
}

Status VectorTable::add(std::string_view word, const float* values, std::size_t dim) {
    if (dim == 0 || (dim_ != 0 && dim != dim_)) {
        return {Errc::invalid_argument,
                "vector of dimension " + std::to_string(dim) + " where " + std::to_string(dim_) +
                    " was expected"};
    }
    if (word.empty() || word.find('\0') != std::string_view::npos || word.size() > 1024) {
        return {};  // unusable as a vocabulary entry; skipping it keeps the rest of the file
    }
    if (scales_.size() >= 0x7fffffffU) {
        return {Errc::invalid_argument, "too many words"};
    }
    dim_ = dim;
    float max_abs = 0.0f;
    for (std::size_t i = 0; i < dim; ++i) {
        if (!std::isfinite(values[i])) {
            return {Errc::invalid_argument,
                    "non-finite value in the vector of '" + std::string(word) + "'"};
        }
        max_abs = std::max(max_abs, std::fabs(values[i]));
    }
    // Symmetric per-row int8 quantization: the error is at most scale / 2 per component, well
    // below the noise of the vectors themselves, at a quarter of the memory of fp32.
    const float scale = max_abs > 0.0f ? max_abs / 127.0f : 1.0f;
    offsets_.push_back(static_cast<std::uint32_t>(words_.size()));
    words_.append(word);
    words_.push_back('\0');
    scales_.push_back(scale);
    for (std::size_t i = 0; i < dim; ++i) {
        values_.push_back(static_cast<std::int8_t>(std::lround(values[i] / scale)));
    }
    return {};
}

void VectorTable::finish() {
    // Drop duplicates (keep the first) while building the index.
    std::size_t capacity = 16;
    while (capacity < scales_.size() * 2) {
        capacity *= 2;
    }
    slots_.assign(capacity, 0);
    std::vector<bool> keep(scales_.size(), true);
    bool any_dropped = false;
    for (std::uint32_t row = 0; row < scales_.size(); ++row) {
        const std::string_view w = word(row);
        std::size_t s = table_word_hash(w) & (capacity - 1);
        bool duplicate = false;
        while (slots_[s] != 0) {
            if (word(slots_[s] - 1) == w) {
                duplicate = true;
                break;
            }
            s = (s + 1) & (capacity - 1);
        }
        if (duplicate) {
            keep[row] = false;
            any_dropped = true;
        } else {
            slots_[s] = row + 1;
        }
    }
    if (any_dropped) {
        VectorTable compact;
        std::vector<float> row_values(dim_);
        for (std::uint32_t row = 0; row < scales_.size(); ++row) {
            if (keep[row]) {
                compact.offsets_.push_back(static_cast<std::uint32_t>(compact.words_.size()));
                compact.words_.append(word(row));
                compact.words_.push_back('\0');
                compact.scales_.push_back(scales_[row]);
                compact.values_.insert(
                    compact.values_.end(),
                    values_.begin() + static_cast<std::ptrdiff_t>(row * dim_),
                    values_.begin() + static_cast<std::ptrdiff_t>((row + 1) * dim_));
            }
        }
        compact.dim_ = dim_;
        *this = std::move(compact);
        finish();
        return;
    }
    std::uint64_t h = checksum64(std::string_view(words_));
    h = checksum64_seeded(
        std::string_view(reinterpret_cast<const char*>(values_.data()), values_.size()), h);
    h = checksum64_seeded(std::string_view(reinterpret_cast<const char*>(scales_.data()),
                                           scales_.size() * sizeof(float)),
                          h);
    checksum_ = h;
}

std::optional<std::uint32_t> VectorTable::find(std::string_view w) const noexcept {
    if (slots_.empty()) {
        return std::nullopt;
    }
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t s = table_word_hash(w) & mask; slots_[s] != 0; s = (s + 1) & mask) {
        if (word(slots_[s] - 1) == w) {
            return slots_[s] - 1;
        }
    }
    return std::nullopt;
}

void VectorTable::accumulate(std::uint32_t row, float weight, float* out) const noexcept {
    const std::int8_t* v = values_.data() + static_cast<std::size_t>(row) * dim_;
    const float k = weight * scales_[row];
    for (std::size_t i = 0; i < dim_; ++i) {
        out[i] += k * static_cast<float>(v[i]);
    }
}

std::string_view VectorTable::word(std::uint32_t row) const noexcept {
    return std::string_view(words_.data() + offsets_[row]);
}

Status VectorTable::save(const std::string& path) const {
    std::string out;
    out.reserve(kTableHeaderBytes + words_.size() + scales_.size() * 4 + values_.size() + 8);
    out.append(kScoutVectorMagic, sizeof(kScoutVectorMagic));
    put_bytes<std::uint32_t>(out, kScoutVectorVersion);
    put_bytes<std::uint32_t>(out, static_cast<std::uint32_t>(dim_));
    put_bytes<std::uint32_t>(out, static_cast<std::uint32_t>(scales_.size()));
    put_bytes<std::uint32_t>(out, 0);  // reserved: quantization kind, 0 = int8 + fp32 scale per row
    put_bytes<std::uint64_t>(out, words_.size());
    out += words_;
    out.append(reinterpret_cast<const char*>(scales_.data()), scales_.size() * sizeof(float));
    out.append(reinterpret_cast<const char*>(values_.data()), values_.size());
    put_bytes<std::uint64_t>(out, checksum64(out));

    return write_file_atomically(path, out);
}

Result<VectorTable> read_scout_vectors(const std::string& path) {
    // The values are copied into the table, so the file is read whole (a regular file only).
    auto bytes = read_text_file(path);
    if (!bytes) {
        return model_file_error(bytes.status());
    }
    const std::string& data = bytes.value();
    const auto corrupt = [&](const std::string& why) {
        return Status{Errc::corrupt, path + ": " + why};
    };
    if (data.size() < kTableHeaderBytes + 8 ||
        std::memcmp(data.data(), kScoutVectorMagic, 8) != 0) {
        return corrupt("not a .scout vector file");
    }
    const auto version = get_bytes<std::uint32_t>(data.data() + 8);
    if (version != kScoutVectorVersion) {
        return Status{Errc::version_unsupported,
                      path + ": format version " + std::to_string(version)};
    }
    const std::uint64_t dim = get_bytes<std::uint32_t>(data.data() + 12);
    const std::uint64_t count = get_bytes<std::uint32_t>(data.data() + 16);
    const auto kind = get_bytes<std::uint32_t>(data.data() + 20);
    const auto words_bytes = get_bytes<std::uint64_t>(data.data() + 24);
    if (kind != 0 || dim == 0 || dim > 65536 || words_bytes > data.size()) {
        return corrupt("bad header");
    }
    const std::uint64_t expected = kTableHeaderBytes + words_bytes + count * 4 + count * dim + 8;
    if (expected != data.size()) {
        return corrupt("size " + std::to_string(data.size()) + " differs from the header's " +
                       std::to_string(expected));
    }
    const std::size_t body = data.size() - 8;
    if (get_bytes<std::uint64_t>(data.data() + body) !=
        checksum64(std::string_view(data.data(), body))) {
        return corrupt("checksum mismatch");
    }
    VectorTable table;
    table.dim_ = dim;
    table.words_.assign(data.data() + kTableHeaderBytes, words_bytes);
    if (!table.words_.empty() && table.words_.back() != '\0') {
        return corrupt("unterminated vocabulary");
    }
    for (std::size_t i = 0; i < table.words_.size();) {
        table.offsets_.push_back(static_cast<std::uint32_t>(i));
        i = table.words_.find('\0', i) + 1;
    }
    if (table.offsets_.size() != count) {
        return corrupt("vocabulary holds " + std::to_string(table.offsets_.size()) +
                       " words, header says " + std::to_string(count));
    }
    const char* p = data.data() + kTableHeaderBytes + words_bytes;
    table.scales_.resize(count);
    std::memcpy(table.scales_.data(), p, count * 4);
    for (float s : table.scales_) {
        if (!std::isfinite(s) || s <= 0.0f) {
            return corrupt("bad row scale");
        }
    }
    table.values_.resize(count * dim);
    std::memcpy(table.values_.data(), p + count * 4, count * dim);
    table.finish();
    return table;
}

}  // namespace scout::detail

// word_model.cpp: the static word model file (.swm): reader, writer, and the dispatch that
// reads plain word-vector files as models without learned weights. Every size in the header is
// checked against the bytes that are really there before anything is read.
#include "embed/word_model.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <span>

#include "util/byte_io.hpp"
#include "util/file_io.hpp"
#include "util/fuzzing_mode.hpp"
#include "util/half.hpp"

namespace scout::detail {
namespace {

// magic, version, dim, count, flags, idf_power (f32), name bytes, words bytes (u64)
constexpr std::size_t kModelHeaderBytes = 8 + 4 + 4 + 4 + 4 + 4 + 4 + 8;
// Version 2 adds: sub-vectors, centroids per codebook (u32 each).
constexpr std::size_t kPqHeaderBytes = kModelHeaderBytes + 4 + 4;
constexpr std::size_t kMaxName = 256;
constexpr std::uint64_t kModelMaxDim = 65536;
constexpr std::uint64_t kMaxRows = 0x7fffffffULL;
constexpr std::uint64_t kMaxCentroids = 256;

/// True when the stored checksum matches (or a fuzz target asked to skip checksums).
bool model_checksum_ok(std::uint64_t stored, std::string_view body) {
    return checksums_skipped_for_fuzzing() || stored == checksum64(body);
}

/// The fields both versions share, read from the first kModelHeaderBytes.
struct Header {
    std::uint64_t dim = 0;
    std::uint64_t rows = 0;
    bool has_weights = false;
    float idf_power = 0.0f;
    std::uint64_t name_bytes = 0;
    std::uint64_t words_bytes = 0;
};

using Corrupt = std::function<Status(const std::string&)>;

Result<Header> read_header(std::string_view data, const Corrupt& corrupt) {
    Header h;
    h.dim = get_bytes<std::uint32_t>(data.data() + 12);
    h.rows = get_bytes<std::uint32_t>(data.data() + 16);
    const auto flags = get_bytes<std::uint32_t>(data.data() + 20);
    h.idf_power = get_bytes<float>(data.data() + 24);
    h.name_bytes = get_bytes<std::uint32_t>(data.data() + 28);
    h.words_bytes = get_bytes<std::uint64_t>(data.data() + 32);
    if (h.dim == 0 || h.dim > kModelMaxDim || h.rows == 0 || h.rows > kMaxRows ||
        (flags & ~kWordModelHasWeights) != 0) {
        return corrupt("bad header (dimension, rows or flags)");
    }
    if (!std::isfinite(h.idf_power) || h.idf_power < 0.0f || h.idf_power > 4.0f) {
        return corrupt("bad IDF exponent");
    }
    if (h.name_bytes > kMaxName || h.words_bytes > data.size()) {
        return corrupt("bad header (name or vocabulary size)");
    }
    h.has_weights = (flags & kWordModelHasWeights) != 0;
    return h;
}

/// The size the header promises against the real one, then the checksum.
Status check_size_and_sum(std::string_view data, std::uint64_t expected, const Corrupt& corrupt) {
    if (expected != data.size()) {
        return corrupt("size " + std::to_string(data.size()) + " differs from the header's " +
                       std::to_string(expected));
    }
    const std::size_t body = data.size() - 8;
    if (!model_checksum_ok(get_bytes<std::uint64_t>(data.data() + body), data.substr(0, body))) {
        return corrupt("checksum mismatch");
    }
    return {};
}

Status check_weights(const std::vector<float>& weights, const Corrupt& corrupt) {
    for (float w : weights) {
        if (!std::isfinite(w) || w < 0.0f) {
            return corrupt("bad word weight");
        }
    }
    return {};
}

Result<WordModel> parse_v1(std::string_view data, const Header& h, const Corrupt& corrupt) {
    // All terms are bounded above (dim <= 2^16, rows < 2^31, words_bytes <= file size), so the
    // sum cannot overflow 64 bits.
    const std::uint64_t expected = kModelHeaderBytes + h.name_bytes + h.words_bytes + h.rows * 4 +
                                   (h.has_weights ? h.rows * 4 : 0) + h.rows * h.dim + 8;
    if (Status s = check_size_and_sum(data, expected, corrupt); !s.ok()) {
        return s;
    }
    const char* p = data.data() + kModelHeaderBytes;
    WordModel model;
    model.name.assign(p, h.name_bytes);
    p += h.name_bytes;
    std::string words(p, h.words_bytes);
    p += h.words_bytes;
    std::vector<float> scales(h.rows);
    std::memcpy(scales.data(), p, h.rows * 4);
    p += h.rows * 4;
    if (h.has_weights) {
        model.weights.resize(h.rows);
        std::memcpy(model.weights.data(), p, h.rows * 4);
        p += h.rows * 4;
        if (Status s = check_weights(model.weights, corrupt); !s.ok()) {
            return s;
        }
    }
    std::vector<std::int8_t> values(h.rows * h.dim);
    std::memcpy(values.data(), p, h.rows * h.dim);
    auto table =
        VectorTable::from_quantized(h.dim, std::move(words), std::move(scales), std::move(values));
    if (!table) {
        return corrupt(table.status().message());
    }
    model.table = std::move(table.value());
    model.idf_power = static_cast<double>(h.idf_power);
    return model;
}

Result<WordModel> parse_v2(std::string_view data, const Header& h, const Corrupt& corrupt) {
    if (data.size() < kPqHeaderBytes + 8) {
        return corrupt("truncated header");
    }
    PqRows pq;
    pq.dim = h.dim;
    pq.subvectors = get_bytes<std::uint32_t>(data.data() + kModelHeaderBytes);
    pq.centroids = get_bytes<std::uint32_t>(data.data() + kModelHeaderBytes + 4);
    if (pq.subvectors == 0 || pq.subvectors > h.dim || h.dim % pq.subvectors != 0 ||
        pq.centroids == 0 || pq.centroids > kMaxCentroids) {
        return corrupt("bad product quantizer (sub-vectors or centroids)");
    }
    // Bounded as in version 1 (centroids <= 256, sub-vectors <= dim): no overflow.
    const std::uint64_t expected = kPqHeaderBytes + h.name_bytes + h.words_bytes +
                                   (h.has_weights ? h.rows * 2 : 0) + pq.centroids * h.dim * 2 +
                                   h.rows * pq.subvectors + 8;
    if (Status s = check_size_and_sum(data, expected, corrupt); !s.ok()) {
        return s;
    }
    const char* p = data.data() + kPqHeaderBytes;
    WordModel model;
    model.name.assign(p, h.name_bytes);
    p += h.name_bytes;
    std::string words(p, h.words_bytes);
    p += h.words_bytes;
    if (h.has_weights) {
        model.weights.resize(h.rows);
        for (float& w : model.weights) {
            w = half_to_float(get_bytes<std::uint16_t>(p));
            p += 2;
        }
        if (Status s = check_weights(model.weights, corrupt); !s.ok()) {
            return s;
        }
    }
    pq.codebooks.resize(pq.centroids * h.dim);
    std::memcpy(pq.codebooks.data(), p, pq.codebooks.size() * 2);
    p += pq.codebooks.size() * 2;
    pq.codes.assign(p, p + h.rows * pq.subvectors);
    auto table = decode_pq(pq, std::move(words));
    if (!table) {
        return corrupt(table.status().message());
    }
    model.table = std::move(table.value());
    model.idf_power = static_cast<double>(h.idf_power);
    return model;
}

}  // namespace

Result<WordModel> parse_word_model(std::string_view data, const std::string& origin) {
    const Corrupt corrupt = [&](const std::string& why) {
        return Status{Errc::corrupt, origin + ": " + why};
    };
    if (data.size() < kModelHeaderBytes + 8 || std::memcmp(data.data(), kWordModelMagic, 8) != 0) {
        return corrupt("not a static word model file");
    }
    const auto version = get_bytes<std::uint32_t>(data.data() + 8);
    if (version != kWordModelVersion && version != kWordModelPqVersion) {
        return Status{Errc::version_unsupported,
                      origin + ": static word model version " + std::to_string(version) +
                          " (this scout reads " + std::to_string(kWordModelVersion) + " and " +
                          std::to_string(kWordModelPqVersion) + ")"};
    }
    auto header = read_header(data, corrupt);
    if (!header) {
        return header.status();
    }
    return version == kWordModelVersion ? parse_v1(data, header.value(), corrupt)
                                        : parse_v2(data, header.value(), corrupt);
}

std::string serialize_word_model(const WordModel& model) {
    const VectorTable& t = model.table;
    const bool has_weights = !model.weights.empty();
    const std::string name = model.name.substr(0, kMaxName);
    std::string out;
    out.reserve(kModelHeaderBytes + name.size() + t.words_blob().size() + t.size() * 8 +
                t.values().size() + 8);
    out.append(kWordModelMagic, sizeof(kWordModelMagic));
    put_bytes<std::uint32_t>(out, kWordModelVersion);
    put_bytes<std::uint32_t>(out, static_cast<std::uint32_t>(t.dim()));
    put_bytes<std::uint32_t>(out, static_cast<std::uint32_t>(t.size()));
    put_bytes<std::uint32_t>(out, has_weights ? kWordModelHasWeights : 0U);
    put_bytes<float>(out, static_cast<float>(model.idf_power));
    put_bytes<std::uint32_t>(out, static_cast<std::uint32_t>(name.size()));
    put_bytes<std::uint64_t>(out, t.words_blob().size());
    out += name;
    out += t.words_blob();
    out.append(reinterpret_cast<const char*>(t.scales().data()), t.scales().size() * sizeof(float));
    if (has_weights) {
        out.append(reinterpret_cast<const char*>(model.weights.data()),
                   model.weights.size() * sizeof(float));
    }
    out.append(reinterpret_cast<const char*>(t.values().data()), t.values().size());
    put_bytes<std::uint64_t>(out, checksum64(out));
    return out;
}

std::string serialize_pq_word_model(const PqWordModel& model) {
    const PqRows& pq = model.rows;
    const std::string name = model.name.substr(0, kMaxName);
    const std::size_t rows = pq.subvectors == 0 ? 0 : pq.codes.size() / pq.subvectors;
    std::string out;
    out.reserve(kPqHeaderBytes + name.size() + model.words.size() + model.weights.size() * 2 +
                pq.codebooks.size() * 2 + pq.codes.size() + 8);
    out.append(kWordModelMagic, sizeof(kWordModelMagic));
    put_bytes<std::uint32_t>(out, kWordModelPqVersion);
    put_bytes<std::uint32_t>(out, static_cast<std::uint32_t>(pq.dim));
    put_bytes<std::uint32_t>(out, static_cast<std::uint32_t>(rows));
    put_bytes<std::uint32_t>(out, model.weights.empty() ? 0U : kWordModelHasWeights);
    put_bytes<float>(out, static_cast<float>(model.idf_power));
    put_bytes<std::uint32_t>(out, static_cast<std::uint32_t>(name.size()));
    put_bytes<std::uint64_t>(out, model.words.size());
    put_bytes<std::uint32_t>(out, static_cast<std::uint32_t>(pq.subvectors));
    put_bytes<std::uint32_t>(out, static_cast<std::uint32_t>(pq.centroids));
    out += name;
    out += model.words;
    out.append(reinterpret_cast<const char*>(model.weights.data()), model.weights.size() * 2);
    out.append(reinterpret_cast<const char*>(pq.codebooks.data()), pq.codebooks.size() * 2);
    out.append(reinterpret_cast<const char*>(pq.codes.data()), pq.codes.size());
    put_bytes<std::uint64_t>(out, checksum64(out));
    return out;
}

Result<WordModel> read_word_model(const std::string& path) {
    {
        // Mapped, never streamed: a FIFO or a device is refused before a byte is read.
        auto file = MappedFile::open(path);
        if (!file) {
            return model_file_error(file.status());
        }
        const std::span<const std::uint8_t> bytes = file->bytes();
        const std::string_view data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        if (data.size() >= 8 && std::memcmp(data.data(), kWordModelMagic, 8) == 0) {
            return parse_word_model(data, path);
        }
    }
    auto table = read_vectors(path);
    if (!table) {
        return table.status();
    }
    WordModel model;
    model.table = std::move(table.value());
    return model;
}

Status save_word_model(const WordModel& model, const std::string& path) {
    const std::string out = serialize_word_model(model);
    const std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f || !f.write(out.data(), static_cast<std::streamsize>(out.size())) || !f.flush()) {
            std::remove(tmp.c_str());
            return {Errc::io_error, "cannot write " + tmp};
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        return {Errc::io_error, "cannot rename " + tmp + " to " + path};
    }
    return {};
}

}  // namespace scout::detail

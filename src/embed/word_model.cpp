// word_model.cpp: the static word model file (.swm): reader, writer, and the dispatch that
// reads plain word-vector files as models without learned weights. Every size in the header is
// checked against the bytes that are really there before anything is read.
#include "embed/word_model.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "util/byte_io.hpp"
#include "util/fuzzing_mode.hpp"

namespace scout::detail {
namespace {

// magic, version, dim, count, flags, idf_power (f32), name bytes, words bytes (u64)
constexpr std::size_t kHeaderBytes = 8 + 4 + 4 + 4 + 4 + 4 + 4 + 8;
constexpr std::size_t kMaxName = 256;
constexpr std::uint64_t kMaxDim = 65536;
constexpr std::uint64_t kMaxRows = 0x7fffffffULL;

/// True when the stored checksum matches (or a fuzz target asked to skip checksums).
bool checksum_ok(std::uint64_t stored, std::string_view body) {
    return checksums_skipped_for_fuzzing() || stored == checksum64(body);
}

}  // namespace

Result<WordModel> parse_word_model(std::string_view data, const std::string& origin) {
    const auto corrupt = [&](const std::string& why) {
        return Status{Errc::corrupt, origin + ": " + why};
    };
    if (data.size() < kHeaderBytes + 8 || std::memcmp(data.data(), kWordModelMagic, 8) != 0) {
        return corrupt("not a static word model file");
    }
    const auto version = get_bytes<std::uint32_t>(data.data() + 8);
    if (version != kWordModelVersion) {
        return Status{Errc::version_unsupported,
                      origin + ": static word model version " + std::to_string(version) +
                          " (this scout reads " + std::to_string(kWordModelVersion) + ")"};
    }
    const std::uint64_t dim = get_bytes<std::uint32_t>(data.data() + 12);
    const std::uint64_t rows = get_bytes<std::uint32_t>(data.data() + 16);
    const auto flags = get_bytes<std::uint32_t>(data.data() + 20);
    const auto idf_power = get_bytes<float>(data.data() + 24);
    const std::uint64_t name_bytes = get_bytes<std::uint32_t>(data.data() + 28);
    const auto words_bytes = get_bytes<std::uint64_t>(data.data() + 32);
    if (dim == 0 || dim > kMaxDim || rows == 0 || rows > kMaxRows ||
        (flags & ~kWordModelHasWeights) != 0) {
        return corrupt("bad header (dimension, rows or flags)");
    }
    if (!std::isfinite(idf_power) || idf_power < 0.0f || idf_power > 4.0f) {
        return corrupt("bad IDF exponent");
    }
    if (name_bytes > kMaxName || words_bytes > data.size()) {
        return corrupt("bad header (name or vocabulary size)");
    }
    const bool has_weights = (flags & kWordModelHasWeights) != 0;
    // All terms are bounded above (dim <= 2^16, rows < 2^31, words_bytes <= file size), so the
    // sum cannot overflow 64 bits.
    const std::uint64_t expected = kHeaderBytes + name_bytes + words_bytes + rows * 4 +
                                   (has_weights ? rows * 4 : 0) + rows * dim + 8;
    if (expected != data.size()) {
        return corrupt("size " + std::to_string(data.size()) + " differs from the header's " +
                       std::to_string(expected));
    }
    const std::size_t body = data.size() - 8;
    if (!checksum_ok(get_bytes<std::uint64_t>(data.data() + body), data.substr(0, body))) {
        return corrupt("checksum mismatch");
    }
    const char* p = data.data() + kHeaderBytes;
    WordModel model;
    model.name.assign(p, name_bytes);
    p += name_bytes;
    std::string words(p, words_bytes);
    p += words_bytes;
    std::vector<float> scales(rows);
    std::memcpy(scales.data(), p, rows * 4);
    p += rows * 4;
    if (has_weights) {
        model.weights.resize(rows);
        std::memcpy(model.weights.data(), p, rows * 4);
        p += rows * 4;
        for (float w : model.weights) {
            if (!std::isfinite(w) || w < 0.0f) {
                return corrupt("bad word weight");
            }
        }
    }
    std::vector<std::int8_t> values(rows * dim);
    std::memcpy(values.data(), p, rows * dim);
    auto table =
        VectorTable::from_quantized(dim, std::move(words), std::move(scales), std::move(values));
    if (!table) {
        return corrupt(table.status().message());
    }
    model.table = std::move(table.value());
    model.idf_power = static_cast<double>(idf_power);
    return model;
}

std::string serialize_word_model(const WordModel& model) {
    const VectorTable& t = model.table;
    const bool has_weights = !model.weights.empty();
    const std::string name = model.name.substr(0, kMaxName);
    std::string out;
    out.reserve(kHeaderBytes + name.size() + t.words_blob().size() + t.size() * 8 +
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

Result<WordModel> read_word_model(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        return Status{Errc::io_error, "cannot open " + path};
    }
    char magic[8] = {};
    f.read(magic, sizeof(magic));
    if (f.gcount() == 8 && std::memcmp(magic, kWordModelMagic, 8) == 0) {
        f.seekg(0, std::ios::beg);
        const std::string data{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
        if (f.bad()) {
            return Status{Errc::io_error, "cannot read " + path};
        }
        return parse_word_model(data, path);
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

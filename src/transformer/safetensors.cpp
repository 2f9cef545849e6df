// safetensors.cpp: see safetensors.hpp. Every size is checked for overflow before use, and every
// tensor's byte range must lie inside the data section and match its dtype and shape.
#include "transformer/safetensors.hpp"

#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "util/half.hpp"

namespace scout::detail::bert {
namespace {

using nlohmann::json;

struct DTypeName {
    const char* name;
    DType dtype;
    std::size_t bytes;
};
constexpr DTypeName kDTypes[] = {
    {"F64", DType::f64, 8},
    {"F32", DType::f32, 4},
    {"F16", DType::f16, 2},
    {"BF16", DType::bf16, 2},
    {"I64", DType::i64, 8},
    {"I32", DType::i32, 4},
    {"I16", DType::i16, 2},
    {"I8", DType::i8, 1},
    {"U8", DType::u8, 1},
    {"BOOL", DType::boolean, 1},
};

std::size_t dtype_bytes(DType d) {
    for (const DTypeName& n : kDTypes) {
        if (n.dtype == d) {
            return n.bytes;
        }
    }
    return 0;
}

Status corrupt_tensors(const std::string& what) {
    return {Errc::corrupt, "safetensors: " + what};
}

/// a * b, or false on overflow.
bool mul(std::size_t a, std::size_t b, std::size_t& out) {
    if (a != 0 && b > std::numeric_limits<std::size_t>::max() / a) {
        return false;
    }
    out = a * b;
    return true;
}

Status parse_entry(const std::string& name,
                   const json& entry,
                   std::size_t data_size,
                   TensorInfo& info) {
    if (!entry.is_object()) {
        return corrupt_tensors("tensor '" + name.substr(0, 128) + "' is not an object");
    }
    auto dtype = entry.find("dtype");
    auto shape = entry.find("shape");
    auto offsets = entry.find("data_offsets");
    if (dtype == entry.end() || !dtype->is_string() || shape == entry.end() || !shape->is_array() ||
        offsets == entry.end() || !offsets->is_array() || offsets->size() != 2) {
        return corrupt_tensors("tensor '" + name.substr(0, 128) +
                               "' lacks dtype, shape or data_offsets");
    }
    bool known = false;
    for (const DTypeName& n : kDTypes) {
        if (dtype->get<std::string>() == n.name) {
            info.dtype = n.dtype;
            known = true;
        }
    }
    if (!known) {
        return corrupt_tensors("tensor '" + name.substr(0, 128) + "' has unknown dtype '" +
                               dtype->get<std::string>().substr(0, 16) + "'");
    }
    if (shape->size() > 8) {
        return corrupt_tensors("tensor '" + name.substr(0, 128) + "' has more than 8 dimensions");
    }
    std::size_t bytes = dtype_bytes(info.dtype);
    for (const json& d : *shape) {
        if (!d.is_number_unsigned()) {
            return corrupt_tensors("tensor '" + name.substr(0, 128) +
                                   "' has a non-integer dimension");
        }
        const std::uint64_t v = d.get<std::uint64_t>();
        if (v > std::numeric_limits<std::size_t>::max() ||
            !mul(bytes, static_cast<std::size_t>(v), bytes)) {
            return corrupt_tensors("tensor '" + name.substr(0, 128) + "' is too large");
        }
        info.shape.push_back(static_cast<std::size_t>(v));
    }
    const json& b = (*offsets)[0];
    const json& e = (*offsets)[1];
    if (!b.is_number_unsigned() || !e.is_number_unsigned()) {
        return corrupt_tensors("tensor '" + name.substr(0, 128) + "' has non-integer offsets");
    }
    const std::uint64_t begin = b.get<std::uint64_t>();
    const std::uint64_t end = e.get<std::uint64_t>();
    if (begin > end || end > data_size) {
        return corrupt_tensors("tensor '" + name.substr(0, 128) +
                               "' lies outside the data (file truncated?)");
    }
    if (end - begin != bytes) {
        return corrupt_tensors("tensor '" + name.substr(0, 128) + "' has " +
                               std::to_string(end - begin) + " bytes, its dtype and shape need " +
                               std::to_string(bytes));
    }
    info.begin = static_cast<std::size_t>(begin);
    info.end = static_cast<std::size_t>(end);
    return {};
}

}  // namespace

std::size_t TensorInfo::elements() const noexcept {
    std::size_t n = 1;
    for (std::size_t d : shape) {
        n *= d;  // checked against the byte range when parsed
    }
    return n;
}

Result<SafeTensors> parse_safetensors(std::string_view file) {
    if (file.size() < 8) {
        return corrupt_tensors("file shorter than its 8-byte header length");
    }
    std::uint64_t header_size = 0;
    for (int i = 7; i >= 0; --i) {
        header_size =
            (header_size << 8U) | static_cast<unsigned char>(file[static_cast<std::size_t>(i)]);
    }
    if (header_size > kMaxSafetensorsHeader || header_size > file.size() - 8) {
        return corrupt_tensors("header length " + std::to_string(header_size) +
                               " exceeds the file (" + std::to_string(file.size()) +
                               " bytes) or the 100 MB limit");
    }
    const std::string_view header = file.substr(8, static_cast<std::size_t>(header_size));
    json doc = json::parse(header.begin(), header.end(), nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
        return Status{Errc::invalid_argument, "safetensors: the header is not a JSON object"};
    }
    SafeTensors out;
    out.data = file.substr(8 + static_cast<std::size_t>(header_size));
    for (const auto& item : doc.items()) {
        if (item.key() == "__metadata__") {
            continue;
        }
        TensorInfo info;
        if (Status s = parse_entry(item.key(), item.value(), out.data.size(), info); !s.ok()) {
            return s;
        }
        out.tensors.emplace(item.key(), std::move(info));
    }
    return out;
}

Result<std::vector<float>> SafeTensors::floats(
    std::string_view name, const std::vector<std::size_t>& expected_shape) const {
    auto it = tensors.find(name);
    if (it == tensors.end()) {
        return Status{Errc::invalid_argument, "safetensors: no tensor '" + std::string(name) + "'"};
    }
    const TensorInfo& info = it->second;
    if (!expected_shape.empty() && info.shape != expected_shape) {
        auto dims = [](const std::vector<std::size_t>& s) {
            std::string t = "[";
            for (std::size_t i = 0; i < s.size(); ++i) {
                t += (i ? ", " : "") + std::to_string(s[i]);
            }
            return t + "]";
        };
        return Status{Errc::invalid_argument,
                      "safetensors: tensor '" + std::string(name) + "' has shape " +
                          dims(info.shape) + ", the config needs " + dims(expected_shape)};
    }
    const std::size_t n = info.elements();
    const char* src = data.data() + info.begin;
    std::vector<float> out(n);
    switch (info.dtype) {
        case DType::f32:
            std::memcpy(out.data(), src, n * 4);  // little-endian hosts only (x86-64, aarch64)
            break;
        case DType::f16:
        case DType::bf16:
            for (std::size_t i = 0; i < n; ++i) {
                std::uint16_t h;
                std::memcpy(&h, src + 2 * i, 2);
                if (info.dtype == DType::f16) {
                    out[i] = half_to_float(h);
                } else {
                    const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
                    std::memcpy(&out[i], &bits, 4);
                }
            }
            break;
        default:
            return Status{Errc::invalid_argument,
                          "safetensors: tensor '" + std::string(name) +
                              "' is not a floating-point tensor (F32, F16, BF16)"};
    }
    return out;
}

std::string write_safetensors(
    const std::map<std::string, std::pair<std::vector<std::size_t>, std::vector<float>>>& tensors) {
    json header = json::object();
    std::size_t offset = 0;
    for (const auto& [name, tensor] : tensors) {
        const std::size_t bytes = tensor.second.size() * 4;
        header[name] = {
            {"dtype", "F32"}, {"shape", tensor.first}, {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    std::string text = header.dump();
    while ((text.size() + 8) % 8 != 0) {
        text.push_back(' ');  // the format pads the header with spaces to 8-byte alignment
    }
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) {
        out[static_cast<std::size_t>(i)] = static_cast<char>((text.size() >> (8 * i)) & 0xFFU);
    }
    out += text;
    for (const auto& [name, tensor] : tensors) {
        out.append(reinterpret_cast<const char*>(tensor.second.data()), tensor.second.size() * 4);
    }
    return out;
}

}  // namespace scout::detail::bert

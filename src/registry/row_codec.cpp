// row_codec.cpp: servers through the catalog loader (the one parser of the catalog format, with
// its limits), vectors as fixed-size little-endian floats.
#include "registry/row_codec.hpp"

#include <bit>
#include <cmath>
#include <cstring>

#include <nlohmann/json.hpp>
#include <openssl/evp.h>

#include "scout/catalog_loader.hpp"

namespace scout::detail {

namespace {

nlohmann::json json_text(const std::string& text) {
    return text.empty() ? nlohmann::json() : nlohmann::json::parse(text, nullptr, false);
}

nlohmann::json tool_object(const ToolSpec& tool) {
    nlohmann::json t = {{"name", tool.name}, {"description", tool.description}};
    if (!tool.title.empty()) {
        t["title"] = tool.title;
    }
    if (!tool.input_schema.empty()) {
        t["inputSchema"] = json_text(tool.input_schema);
    }
    if (!tool.annotations.empty()) {
        t["annotations"] = json_text(tool.annotations);
    }
    return t;
}

}  // namespace

std::string content_hash(std::string_view bytes) {
    std::string digest(32, '\0');
    unsigned int size = 0;
    if (EVP_Digest(bytes.data(),
                   bytes.size(),
                   reinterpret_cast<unsigned char*>(digest.data()),
                   &size,
                   EVP_sha256(),
                   nullptr) != 1 ||
        size != digest.size()) {
        return {};
    }
    return digest;
}

std::string to_hex(std::string_view bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (const char c : bytes) {
        const auto b = static_cast<unsigned char>(c);
        out.push_back(kDigits[b >> 4U]);
        out.push_back(kDigits[b & 15U]);
    }
    return out;
}

std::string tool_json(const ToolSpec& tool) {
    return tool_object(tool).dump();
}

std::string server_json(const ServerSpec& server) {
    nlohmann::json s = {{"name", server.name},
                        {"description", server.description},
                        {"status", server_status_name(server.status)},
                        {"tools", nlohmann::json::array()}};
    if (!server.category.empty()) {
        s["category"] = server.category;
    }
    if (!server.environment.empty()) {
        s["environment"] = server.environment;
    }
    for (const ToolSpec& tool : server.tools) {
        s["tools"].push_back(tool_object(tool));
    }
    return nlohmann::json{{"servers", nlohmann::json::array({s})}}.dump();
}

Result<ServerSpec> parse_server_row(std::string_view spec, std::string_view name) {
    auto catalog = parse_catalog_json(spec);
    if (!catalog.ok()) {
        return Status{Errc::invalid_argument,
                      "malformed server spec: " + catalog.status().message()};
    }
    if (catalog->servers.size() != 1) {
        return Status{
            Errc::invalid_argument,
            "server spec holds " + std::to_string(catalog->servers.size()) + " servers, not 1"};
    }
    if (catalog->servers[0].name != name) {
        return Status{Errc::invalid_argument, "server spec names another server"};
    }
    return std::move(catalog->servers[0]);
}

std::string encode_vector(std::span<const float> vector) {
    static_assert(std::endian::native == std::endian::little, "the vector rows are little-endian");
    std::string out(vector.size() * sizeof(float), '\0');
    if (!vector.empty()) {
        std::memcpy(out.data(), vector.data(), out.size());
    }
    return out;
}

Result<std::vector<float>> decode_vector(std::string_view bytes, std::size_t dim) {
    if (bytes.size() % sizeof(float) != 0 || bytes.size() / sizeof(float) != dim) {
        return Status{Errc::dimension_mismatch,
                      "vector of " + std::to_string(bytes.size()) + " bytes, expected " +
                          std::to_string(dim) + " float32 components"};
    }
    std::vector<float> out(dim);
    if (dim > 0) {
        std::memcpy(out.data(), bytes.data(), bytes.size());
    }
    for (const float v : out) {
        if (!std::isfinite(v)) {
            return Status{Errc::corrupt, "vector has a NaN or infinite component"};
        }
    }
    return out;
}

}  // namespace scout::detail

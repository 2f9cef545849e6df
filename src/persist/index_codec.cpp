// index_codec.cpp: META (JSON), CATL (JSON: the committed catalog, every server and status) and
// VECS (raw little-endian float32 rows) sections; decoding validates every invariant a snapshot
// build relies on, so a file that decodes can be opened.
#include <bit>
#include <cmath>
#include <cstring>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "catalog/validate.hpp"
#include "persist/container.hpp"
#include "persist/index_codec.hpp"
#include "persist/options_json.hpp"

namespace scout::detail {
namespace {

static_assert(std::endian::native == std::endian::little,
              "VECS rows are copied as raw little-endian float32; add byte swapping for this host");

using nlohmann::json;

constexpr std::uint32_t kMeta = fourcc("META");
constexpr std::uint32_t kCatalog = fourcc("CATL");
constexpr std::uint32_t kVectors = fourcc("VECS");
constexpr std::size_t kVecsHeader = 16;  // u64 count, u32 dim, u32 reserved

struct Bad : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string text(const json& obj, const char* key) {
    if (!obj.is_object() || !obj.contains(key) || !obj[key].is_string()) {
        throw Bad(std::string("'") + key + "' must be a string");
    }
    return obj[key].get<std::string>();
}

std::uint64_t count(const json& obj, const char* key) {
    if (!obj.is_object() || !obj.contains(key) || !obj[key].is_number_unsigned()) {
        throw Bad(std::string("'") + key + "' must be a non-negative integer");
    }
    return obj[key].get<std::uint64_t>();
}

json catalog_json(const StagedCatalog* staged) {
    json servers = json::array();
    if (staged == nullptr) {
        return {{"servers", servers}};
    }
    for (const auto& [name, server] : *staged) {
        json tools = json::array();
        for (const auto& [tool_name, t] : server.tools) {
            tools.push_back({{"name", t.name},
                             {"title", t.title},
                             {"description", t.description},
                             {"input_schema", t.input_schema},
                             {"annotations", t.annotations}});
        }
        servers.push_back({{"name", server.meta.name},
                           {"description", server.meta.description},
                           {"category", server.meta.category},
                           {"environment", server.meta.environment},
                           {"status", std::string(server_status_name(server.meta.status))},
                           {"tools", std::move(tools)}});
    }
    return {{"servers", std::move(servers)}};
}

std::string dump(const json& j) {
    // Strings were validated as UTF-8 on the way in; strict dumping would throw otherwise.
    return j.dump();
}

CatalogSpec parse_catalog(std::span<const std::uint8_t> bytes, std::size_t& indexed) {
    const json j = json::parse(bytes.begin(), bytes.end());
    if (!j.is_object() || !j.contains("servers") || !j["servers"].is_array()) {
        throw Bad("catalog section has no server list");
    }
    CatalogSpec spec;
    std::set<std::string> names;
    indexed = 0;
    for (const json& s : j["servers"]) {
        ServerSpec server;
        server.name = text(s, "name");
        server.description = text(s, "description");
        server.category = text(s, "category");
        server.environment = text(s, "environment");
        auto status = parse_server_status(text(s, "status"));
        if (!status) {
            throw Bad("server '" + server.name + "' has an unknown status");
        }
        server.status = *status;
        if (!s.contains("tools") || !s["tools"].is_array()) {
            throw Bad("server '" + server.name + "' has no tool list");
        }
        for (const json& t : s["tools"]) {
            server.tools.push_back({text(t, "name"), text(t, "title"), text(t, "description"),
                                    text(t, "input_schema"), text(t, "annotations")});
        }
        // Sorted, unique names: the writer's order, on which the VECS row order depends.
        if (!names.empty() && !(*names.rbegin() < server.name)) {
            throw Bad("server '" + server.name + "' is out of order or appears twice");
        }
        names.insert(server.name);
        for (std::size_t t = 1; t < server.tools.size(); ++t) {
            if (!(server.tools[t - 1].name < server.tools[t].name)) {
                throw Bad("server '" + server.name + "': tool '" + server.tools[t].name + "' is out of order");
            }
        }
        if (Status v = validate_server(server); !v.ok()) {
            throw Bad(v.message());
        }
        if (server.status == ServerStatus::active) {
            indexed += server.tools.size();
        }
        spec.servers.push_back(std::move(server));
    }
    return spec;
}

void parse_vectors(std::span<const std::uint8_t> bytes, StoredIndex& out) {
    if (bytes.size() < kVecsHeader) {
        throw Bad("vector section is too short");
    }
    std::uint64_t n = 0;
    std::uint32_t dim = 0;
    std::uint32_t reserved = 0;
    std::memcpy(&n, bytes.data(), 8);
    std::memcpy(&dim, bytes.data() + 8, 4);
    std::memcpy(&reserved, bytes.data() + 12, 4);
    const std::size_t payload = bytes.size() - kVecsHeader;
    if (reserved != 0 || dim == 0 || dim != out.info.dim || n != out.info.vectors ||
        payload % (std::size_t{dim} * 4) != 0 || payload / (std::size_t{dim} * 4) != n) {
        throw Bad("vector section size does not match its counts");
    }
    out.vectors.resize(payload / 4);
    std::memcpy(out.vectors.data(), bytes.data() + kVecsHeader, payload);
    for (std::size_t r = 0; r < n; ++r) {
        double norm = 0;
        for (std::size_t i = 0; i < dim; ++i) {
            const float x = out.vectors[r * dim + i];
            if (!std::isfinite(x)) {
                throw Bad("vector " + std::to_string(r) + " is not finite");
            }
            norm += static_cast<double>(x) * static_cast<double>(x);
        }
        if (norm != 0.0 && std::abs(norm - 1.0) > 1e-3) {
            throw Bad("vector " + std::to_string(r) + " is not unit length");
        }
    }
}

}  // namespace

std::string encode_index(const Snapshot& snap) {
    std::size_t servers = 0;
    std::size_t tools = 0;
    if (snap.source) {
        servers = snap.source->size();
        for (const auto& [name, server] : *snap.source) {
            tools += server.tools.size();
        }
    }
    const VectorStore* vecs = snap.dense ? &snap.dense->vectors() : nullptr;
    json meta{{"format", {{"major", kIndexFormatMajor}, {"minor", kIndexFormatMinor}}},
              {"library_version", SCOUT_VERSION_STRING},
              {"generation", snap.generation},
              {"options", options_to_json(snap.options)},
              {"embedder", {{"model_id", vecs ? snap.embedder_model : ""}, {"dim", vecs ? vecs->dim : 0}}},
              {"counts",
               {{"servers", servers},
                {"tools", tools},
                {"indexed_tools", snap.tools.size()},
                {"vectors", vecs ? vecs->size() : 0}}}};
    std::vector<SectionOut> sections;
    sections.push_back({kMeta, 1, dump(meta)});
    sections.push_back({kCatalog, 1, dump(catalog_json(snap.source.get()))});
    if (vecs != nullptr) {
        std::string bytes(kVecsHeader + vecs->data.size() * sizeof(float), '\0');
        const std::uint64_t n = vecs->size();
        const auto dim = static_cast<std::uint32_t>(vecs->dim);
        std::memcpy(bytes.data(), &n, 8);
        std::memcpy(bytes.data() + 8, &dim, 4);
        std::memcpy(bytes.data() + kVecsHeader, vecs->data.data(), vecs->data.size() * sizeof(float));
        sections.push_back({kVectors, 1, std::move(bytes)});
    }
    return write_container(kIndexFormatMajor, kIndexFormatMinor, sections);
}

Result<StoredIndex> decode_index(std::span<const std::uint8_t> bytes) {
    auto view = read_container(bytes, kOldestIndexFormatMajor, kIndexFormatMajor);
    if (!view) {
        return view.status();
    }
    const SectionView* meta = view->find(kMeta);
    const SectionView* cat = view->find(kCatalog);
    const SectionView* vecs = view->find(kVectors);
    if (meta == nullptr || cat == nullptr) {
        return Status{Errc::corrupt, "index file is corrupt: META or CATL section missing"};
    }
    StoredIndex out;
    try {
        const json m = json::parse(meta->bytes.begin(), meta->bytes.end());
        out.info.format_major = view->major;
        out.info.format_minor = view->minor;
        out.info.library_version = text(m, "library_version");
        out.info.generation = count(m, "generation");
        auto options = options_from_json(m.contains("options") ? m["options"] : json());
        if (!options) {
            return options.status();
        }
        out.options = options.value();
        const json& e = m.contains("embedder") ? m["embedder"] : json();
        out.info.model_id = text(e, "model_id");
        out.info.dim = static_cast<std::size_t>(std::min<std::uint64_t>(count(e, "dim"), 1U << 20U));
        const json& c = m.contains("counts") ? m["counts"] : json();
        out.info.servers = count(c, "servers");
        out.info.tools = count(c, "tools");
        out.info.indexed_tools = count(c, "indexed_tools");
        out.info.vectors = count(c, "vectors");
        std::size_t indexed = 0;
        out.catalog = parse_catalog(cat->bytes, indexed);
        std::size_t tools = 0;
        for (const ServerSpec& s : out.catalog.servers) {
            tools += s.tools.size();
        }
        if (out.catalog.servers.size() != out.info.servers || tools != out.info.tools ||
            indexed != out.info.indexed_tools) {
            throw Bad("catalog counts differ from META");
        }
        const bool has_vectors = !out.info.model_id.empty();
        if (has_vectors != (vecs != nullptr) || (has_vectors && out.info.vectors != indexed) ||
            (!has_vectors && (out.info.vectors != 0 || out.info.dim != 0))) {
            throw Bad("vector counts differ from the catalog");
        }
        if (vecs != nullptr) {
            parse_vectors(vecs->bytes, out);
        }
    } catch (const Bad& e) {
        return Status{Errc::corrupt, std::string("index file is corrupt: ") + e.what()};
    } catch (const json::exception& e) {
        return Status{Errc::corrupt, std::string("index file is corrupt: bad JSON: ") + e.what()};
    }
    out.info.file_bytes = bytes.size();
    return out;
}

}  // namespace scout::detail

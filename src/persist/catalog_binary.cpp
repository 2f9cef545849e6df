// catalog_binary.cpp: see catalog_binary.hpp; the layout is docs/FORMAT.md's CATB.
#include "persist/catalog_binary.hpp"

#include <bit>

#include "document/validate.hpp"
#include "util/byte_io.hpp"
#include "util/printable.hpp"

namespace scout::detail {
namespace {

static_assert(std::endian::native == std::endian::little,
              "CATB is read in place as little-endian integers; add byte swapping for this host");

constexpr std::size_t kCatalogHeaderBytes = 24;  // u64 servers, u64 tools, u64 blob bytes
constexpr std::size_t kServerBytes = 16;         // u8 status, 7 zero bytes, u64 tool count
constexpr std::size_t kServerTexts = 4;          // name, description, category, environment
constexpr std::size_t kToolTexts = 5;            // name, title, description, schema, annotations
constexpr std::uint8_t kLastStatus = 3;          // ServerStatus::rejected

Status corrupt_catalog(const std::string& what) {
    return {Errc::corrupt, "catalog section: " + what};
}

/// The texts in order, each as its end offset in the blob.
class TextWriter {
public:
    void add(std::string_view text) {
        blob_.append(text);
        put_bytes<std::uint64_t>(ends_, blob_.size());
    }
    [[nodiscard]] const std::string& ends() const noexcept { return ends_; }
    [[nodiscard]] const std::string& blob() const noexcept { return blob_; }

private:
    std::string ends_;
    std::string blob_;
};

}  // namespace

std::string encode_catalog_binary(std::span<const ServerImage> servers) {
    std::size_t tools = 0;
    std::string records;
    TextWriter texts;
    for (const ServerImage& image : servers) {
        const ServerSpec& s = *image.server;
        records.push_back(static_cast<char>(s.status));
        records.append(7, '\0');
        put_bytes<std::uint64_t>(records, image.tools.size());
        tools += image.tools.size();
        texts.add(s.name);
        texts.add(s.description);
        texts.add(s.category);
        texts.add(s.environment);
    }
    for (const ServerImage& image : servers) {
        for (const ToolSpec* t : image.tools) {
            texts.add(t->name);
            texts.add(t->title);
            texts.add(t->description);
            texts.add(t->input_schema);
            texts.add(t->annotations);
        }
    }
    std::string out;
    out.reserve(kCatalogHeaderBytes + records.size() + texts.ends().size() + texts.blob().size());
    put_bytes<std::uint64_t>(out, servers.size());
    put_bytes<std::uint64_t>(out, tools);
    put_bytes<std::uint64_t>(out, texts.blob().size());
    out += records;
    out += texts.ends();
    out += texts.blob();
    return out;
}

Result<CatalogView> decode_catalog_binary(std::span<const std::uint8_t> bytes) {
    const auto* data = reinterpret_cast<const char*>(bytes.data());
    const std::size_t size = bytes.size();
    if (size < kCatalogHeaderBytes) {
        return corrupt_catalog("too short");
    }
    const auto servers = get_bytes<std::uint64_t>(data);
    const auto tools = get_bytes<std::uint64_t>(data + 8);
    const auto blob_bytes = get_bytes<std::uint64_t>(data + 16);
    // Each count is bounded by the bytes its records take, so the products below cannot overflow.
    if (servers > size / (kServerBytes + kServerTexts * 8) || tools > size / (kToolTexts * 8) ||
        blob_bytes > size) {
        return corrupt_catalog("counts exceed the section");
    }
    const std::size_t text_count = servers * kServerTexts + tools * kToolTexts;
    const std::size_t ends_at = kCatalogHeaderBytes + servers * kServerBytes;
    const std::size_t blob_at = ends_at + text_count * 8;
    if (blob_at > size || size - blob_at != blob_bytes) {
        return corrupt_catalog("size does not match its counts");
    }
    const char* blob = data + blob_at;
    std::uint64_t previous_end = 0;
    std::size_t next_text = 0;
    bool texts_ok = true;
    const auto text = [&]() {
        const auto end = get_bytes<std::uint64_t>(data + ends_at + 8 * next_text++);
        if (end < previous_end || end > blob_bytes) {
            texts_ok = false;
            return std::string_view();
        }
        std::string_view t(blob + previous_end, end - previous_end);
        previous_end = end;
        return t;
    };

    CatalogView view;
    view.servers.resize(servers);
    view.tools.resize(tools);
    std::uint64_t tools_seen = 0;
    for (std::size_t i = 0; i < servers; ++i) {
        const char* record = data + kCatalogHeaderBytes + i * kServerBytes;
        const auto status = static_cast<std::uint8_t>(record[0]);
        const auto count = get_bytes<std::uint64_t>(record + 8);
        if (status > kLastStatus || get_bytes<std::uint64_t>(record) >> 8U != 0 ||
            count > tools - tools_seen) {
            return corrupt_catalog("server record " + std::to_string(i) + " is invalid");
        }
        ServerView& s = view.servers[i];
        s.name = text();
        s.description = text();
        s.category = text();
        s.environment = text();
        s.status = static_cast<ServerStatus>(status);
        s.first_tool = static_cast<std::uint32_t>(tools_seen);
        tools_seen += count;
        s.end_tool = static_cast<std::uint32_t>(tools_seen);
    }
    if (tools_seen != tools || tools > UINT32_MAX) {
        return corrupt_catalog("server tool counts do not add up to the tools");
    }
    for (ToolView& t : view.tools) {
        t.name = text();
        t.title = text();
        t.description = text();
        t.input_schema = text();
        t.annotations = text();
    }
    if (!texts_ok || previous_end != blob_bytes) {
        return corrupt_catalog("text offsets are inconsistent");
    }
    for (std::size_t i = 0; i < servers; ++i) {
        const ServerView& s = view.servers[i];
        // Sorted, unique names: the writer's order, on which the VECS row order depends.
        if (i > 0 && !(view.servers[i - 1].name < s.name)) {
            return corrupt_catalog("server '" + clipped(s.name) +
                                   "' is out of order or appears twice");
        }
        if (Status v = validate_stored_server(view, s); !v.ok()) {
            return corrupt_catalog(v.message());
        }
    }
    return view;
}

}  // namespace scout::detail

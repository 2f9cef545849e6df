// index_codec.cpp: META (JSON), the committed catalog (CATB, binary; format 1: CATL, JSON), VECS
// (raw little-endian float32 rows) and the built indexes; decoding validates every invariant a
// snapshot build relies on, so a file that decodes can be opened.
#include "persist/index_codec.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <future>
#include <thread>

#include <nlohmann/json.hpp>

#include "document/validate.hpp"
#include "persist/catalog_json.hpp"
#include "persist/container.hpp"
#include "persist/options_json.hpp"
#include "persist/outcome_codec.hpp"
#include "simd/kernels.hpp"
#include "util/byte_io.hpp"
#include "util/json_limits.hpp"
#include "util/pod_vector.hpp"
#include "util/shared_array.hpp"

namespace scout::detail {
namespace {

static_assert(std::endian::native == std::endian::little,
              "VECS rows are copied as raw little-endian float32; add byte swapping for this host");

using nlohmann::json;

constexpr std::uint32_t kMeta = fourcc("META");
constexpr std::uint32_t kCatalog = fourcc("CATL");        // format 1: JSON
constexpr std::uint32_t kCatalogBinary = fourcc("CATB");  // format 2: read in place
constexpr std::uint32_t kVectors = fourcc("VECS");
constexpr std::uint32_t kOutcomes = fourcc("OUTC");
constexpr std::uint32_t kBm25 = fourcc("BM25");
constexpr std::uint32_t kBm25Weights = fourcc("BMTF");  // what a BM25 patch needs
constexpr std::uint32_t kBm25WeightsVersion = 1;
constexpr std::uint32_t kEmbedKeys = fourcc("EKEY");
constexpr std::uint32_t kGraph = fourcc("HNSW");
constexpr std::uint32_t kEmbedderState = fourcc("EMBF");
constexpr std::size_t kVecsHeader = 16;  // u64 count, u32 dim, u32 reserved

/// The error of a file whose bytes break an invariant: `what` says which.
Status corrupt_index(const std::string& what) {
    return Status{Errc::corrupt, "index file is corrupt: " + what};
}

Result<std::string> string_field(const json& obj, const char* key) {
    if (!obj.is_object() || !obj.contains(key) || !obj[key].is_string()) {
        return corrupt_index(std::string("'") + key + "' must be a string");
    }
    return obj[key].get<std::string>();
}

Result<std::uint64_t> count(const json& obj, const char* key) {
    if (!obj.is_object() || !obj.contains(key) || !obj[key].is_number_unsigned()) {
        return corrupt_index(std::string("'") + key + "' must be a non-negative integer");
    }
    return obj[key].get<std::uint64_t>();
}

std::string dump(const json& j) {
    // Strings were validated as UTF-8 on the way in; strict dumping would throw otherwise.
    return j.dump();
}

/// Depth-bounded: checksums do not make a section's JSON shallow enough to dump or walk.
Result<json> parse_section(std::span<const std::uint8_t> bytes, const char* section) {
    auto parsed =
        parse_json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    if (!parsed) {
        return corrupt_index(std::string(section) + " section: " + parsed.status().message());
    }
    return std::move(parsed.value());
}

/// A format 1 CATL section: JSON, parsed and validated as upsert_server would.
Result<CatalogView> parse_catalog_json(std::span<const std::uint8_t> bytes) {
    auto read = read_catalog_json(
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    if (!read) {
        return corrupt_index("catalog section: " + read.status().message());
    }
    const ServerSpec* previous = nullptr;
    for (const ServerSpec& server : read->servers) {
        // Sorted, unique names: the writer's order, on which the VECS row order depends.
        if (previous != nullptr && !(previous->name < server.name)) {
            return corrupt_index("server '" + server.name + "' is out of order or appears twice");
        }
        previous = &server;
        for (std::size_t t = 1; t < server.tools.size(); ++t) {
            if (!(server.tools[t - 1].name < server.tools[t].name)) {
                return corrupt_index("server '" + server.name + "': tool '" + server.tools[t].name +
                                     "' is out of order");
            }
        }
        if (Status v = validate_server(server); !v.ok()) {
            return corrupt_index(v.message());
        }
    }
    return view_of(std::make_shared<const CatalogSpec>(std::move(read.value())));
}

/// A format 2 CATB section, its texts viewing the file.
Result<CatalogView> parse_catalog_binary(std::span<const std::uint8_t> bytes,
                                         std::shared_ptr<const void> owner) {
    auto view = decode_catalog_binary(bytes);
    if (!view) {
        return corrupt_index(view.status().message());
    }
    view->owner = std::move(owner);
    return std::move(view.value());
}

/// VECS, read in place: the rows view the file.
Status parse_vectors(std::span<const std::uint8_t> bytes,
                     const std::shared_ptr<const void>& owner,
                     StoredIndex& out) {
    if (bytes.size() < kVecsHeader) {
        return corrupt_index("vector section is too short");
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
        return corrupt_index("vector section size does not match its counts");
    }
    const float* rows = nullptr;
    if (reinterpret_cast<std::uintptr_t>(bytes.data() + kVecsHeader) % alignof(float) == 0) {
        rows = reinterpret_cast<const float*>(bytes.data() + kVecsHeader);
        out.vectors =
            std::make_shared<VectorStore>(dim, std::span<const float>(rows, payload / 4), owner);
    } else {  // a buffer that is not the file's aligned image: copy
        PodVector<float> copy(payload / 4);
        if (payload != 0) {
            std::memcpy(copy.data(), bytes.data() + kVecsHeader, payload);
        }
        rows = copy.data();
        out.vectors = std::make_shared<VectorStore>(dim, std::move(copy));
    }
    // A row's squared norm is finite only when each value is, and must be 0 or about 1. The
    // run-time kernel's float sum is exact enough for that tolerance at any dimension here.
    const simd::Kernels& kern = simd::active();
    for (std::size_t r = 0; r < n; ++r) {
        const float* row = rows + r * dim;
        const float norm = kern.dot(row, row, dim);
        if (!(norm == 0.0f || std::abs(norm - 1.0f) <= 1e-3f)) {
            return corrupt_index("vector " + std::to_string(r) +
                                 " is not finite or not unit length");
        }
    }
    return {};
}

template <typename T>
void append_raw(std::string& out, const T* data, std::size_t count) {
    out.append(reinterpret_cast<const char*>(data), count * sizeof(T));
}

/// A reader over one section's bytes that refuses to run past its end. The first read that
/// would run past it fails the cursor: that read and every later one give empty values, and
/// status() says which read failed.
class Cursor {
public:
    explicit Cursor(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
    template <typename T, typename Vector = std::vector<T>>
    Vector take(std::uint64_t count, const char* what) {
        if (!fits(count, sizeof(T), what)) {
            return Vector();
        }
        Vector out(static_cast<std::size_t>(count));
        if (!out.empty()) {  // memcpy from or to null is undefined even for zero bytes
            std::memcpy(out.data(), bytes_.data() + at_, out.size() * sizeof(T));
        }
        at_ += out.size() * sizeof(T);
        return out;
    }
    /// `count` values of T in place (kept alive by `owner`), or copied when the bytes are not
    /// aligned for T (a buffer that is not an index file's image).
    template <typename T>
    SharedArray<T> array(std::uint64_t count,
                         const char* what,
                         const std::shared_ptr<const void>& owner) {
        const std::uint8_t* at = bytes_.data() + at_;
        if (reinterpret_cast<std::uintptr_t>(at) % alignof(T) != 0) {
            return take<T, PodVector<T>>(count, what);
        }
        if (!fits(count, sizeof(T), what)) {
            return SharedArray<T>();
        }
        at_ += static_cast<std::size_t>(count) * sizeof(T);
        return SharedArray<T>(
            std::span<const T>(reinterpret_cast<const T*>(at), static_cast<std::size_t>(count)),
            owner);
    }
    template <typename T>
    T one(const char* what) {
        T value{};
        if (fits(1, sizeof(T), what)) {
            std::memcpy(&value, bytes_.data() + at_, sizeof(T));
            at_ += sizeof(T);
        }
        return value;
    }
    std::string_view text(std::size_t size, const char* what) {
        if (!fits(size, 1, what)) {
            return {};
        }
        std::string_view out(reinterpret_cast<const char*>(bytes_.data()) + at_, size);
        at_ += size;
        return out;
    }
    [[nodiscard]] bool done() const noexcept { return status_.ok() && at_ == bytes_.size(); }
    /// The first read that ran past the end, as a corrupt file's error; ok when none did.
    [[nodiscard]] const Status& status() const noexcept { return status_; }

private:
    /// Whether `count` values of `size` bytes remain; fails the cursor when not.
    bool fits(std::uint64_t count, std::size_t size, const char* what) {
        if (!status_.ok()) {
            return false;
        }
        if (count > (bytes_.size() - at_) / size) {
            status_ = corrupt_index(std::string(what) + " runs past the end of its section");
            return false;
        }
        return true;
    }

    std::span<const std::uint8_t> bytes_;
    std::size_t at_ = 0;
    Status status_;
};

/// BM25 section: u64 documents, u64 terms, u64 postings, then u32 offsets (terms + 1), u32
/// docids, f32 impacts (postings each), then per term a u32 length and its bytes.
std::string encode_bm25(const Bm25Index& bm25) {
    const std::vector<std::string_view> terms = bm25.terms();
    const std::span<const std::uint32_t> offsets = bm25.offsets();
    const std::uint32_t no_terms = 0;
    std::string out;
    put_bytes<std::uint64_t>(out, bm25.num_docs());
    put_bytes<std::uint64_t>(out, terms.size());
    put_bytes<std::uint64_t>(out, bm25.num_postings());
    if (offsets.empty()) {
        append_raw(out, &no_terms, 1);  // an index built from nothing has no offsets at all
    } else {
        append_raw(out, offsets.data(), offsets.size());
    }
    append_raw(out, bm25.docids().data(), bm25.docids().size());
    append_raw(out, bm25.impacts().data(), bm25.impacts().size());
    for (std::string_view term : terms) {
        put_bytes(out, static_cast<std::uint32_t>(term.size()));
        out.append(term);
    }
    return out;
}

/// BMTF section: u64 documents, u64 postings, then f32 weighted tfs (postings, in the BM25
/// section's order) and f32 document lengths (documents).
std::string encode_bm25_weights(const Bm25Index& bm25) {
    std::string out;
    put_bytes<std::uint64_t>(out, bm25.num_docs());
    put_bytes<std::uint64_t>(out, bm25.num_postings());
    append_raw(out, bm25.tfs().data(), bm25.tfs().size());
    append_raw(out, bm25.lengths().data(), bm25.lengths().size());
    return out;
}

/// Reads a BMTF section into `bm25`, which it must agree with (Bm25Index::adopt_weights): its
/// arrays viewed in place when aligned (kept alive by `owner`), copied otherwise.
Status decode_bm25_weights(std::span<const std::uint8_t> bytes,
                           const Bm25Options& options,
                           Bm25Index& bm25,
                           const std::shared_ptr<const void>& owner) {
    Cursor in(bytes);
    const auto docs = in.one<std::uint64_t>("BMTF header");
    const auto postings = in.one<std::uint64_t>("BMTF header");
    if (Status failed = in.status(); !failed.ok()) {
        return failed;
    }
    if (docs != bm25.num_docs() || postings != bm25.num_postings()) {
        return corrupt_index("BMTF section counts (" + std::to_string(docs) + " documents, " +
                             std::to_string(postings) + " postings) differ from the BM25 index's");
    }
    auto tfs = in.array<float>(postings, "BMTF tfs", owner);
    auto lengths = in.array<float>(docs, "BMTF lengths", owner);
    if (Status failed = in.status(); !failed.ok()) {
        return failed;
    }
    if (!in.done()) {
        return corrupt_index("BMTF section has trailing bytes");
    }
    if (std::string why = bm25.adopt_weights(std::move(tfs), std::move(lengths), options);
        !why.empty()) {
        return corrupt_index("BMTF section disagrees with the BM25 index: " + why);
    }
    return {};
}

Result<std::unique_ptr<Bm25Index>> decode_bm25(std::span<const std::uint8_t> bytes,
                                               std::size_t documents,
                                               const std::shared_ptr<const void>& owner) {
    Cursor in(bytes);
    const auto docs = in.one<std::uint64_t>("BM25 header");
    const auto terms = in.one<std::uint64_t>("BM25 header");
    const auto postings = in.one<std::uint64_t>("BM25 header");
    if (Status failed = in.status(); !failed.ok()) {
        return failed;
    }
    if (docs != documents || terms >= bytes.size() || postings >= bytes.size()) {
        return corrupt_index("BM25 section counts do not match the catalog");
    }
    auto offsets = in.array<std::uint32_t>(terms + 1, "BM25 offsets", owner);
    auto docids = in.array<ToolId>(postings, "BM25 postings", owner);
    auto impacts = in.array<float>(postings, "BM25 impacts", owner);
    if (Status failed = in.status(); !failed.ok()) {
        return failed;
    }
    std::vector<std::string_view> words;  // view `bytes`: copied into the vocabulary
    words.reserve(static_cast<std::size_t>(terms));
    for (std::uint64_t t = 0; t < terms; ++t) {
        const auto size = in.one<std::uint32_t>("BM25 term");
        words.emplace_back(in.text(size, "BM25 term"));
        if (Status failed = in.status(); !failed.ok()) {
            return failed;
        }
    }
    if (!in.done()) {
        return corrupt_index("BM25 section has trailing bytes");
    }
    auto index = Bm25Index::from_parts(static_cast<std::size_t>(docs),
                                       words,
                                       std::move(offsets),
                                       std::move(docids),
                                       std::move(impacts));
    if (!index) {
        return corrupt_index("BM25 postings are inconsistent");
    }
    return index;
}

/// EKEY section: u64 count, then count u64 keys.
Result<std::vector<std::uint64_t>> decode_keys(std::span<const std::uint8_t> bytes,
                                               std::size_t rows) {
    Cursor in(bytes);
    const auto n = in.one<std::uint64_t>("EKEY header");
    if (Status failed = in.status(); !failed.ok()) {
        return failed;
    }
    if (n != rows) {
        return corrupt_index("EKEY section does not have one key per vector");
    }
    auto keys = in.take<std::uint64_t>(n, "EKEY keys");
    if (Status failed = in.status(); !failed.ok()) {
        return failed;
    }
    if (!in.done()) {
        return corrupt_index("EKEY section has trailing bytes");
    }
    return keys;
}

/// Keys of `file` that `known` (what this version writes) does not have, as dotted paths.
void unknown_keys(const json& file,
                  const json& known,
                  const std::string& prefix,
                  std::vector<std::string>& out) {
    if (!file.is_object() || !known.is_object()) {
        return;
    }
    for (const auto& [key, value] : file.items()) {
        const auto it = known.find(key);
        if (it == known.end()) {
            out.push_back(prefix + key);
        } else {
            unknown_keys(value, *it, prefix + key + ".", out);
        }
    }
}

/// The section's checksum verified.
Status check_section(const SectionView& section) {
    if (Status s = verify_section(section); !s.ok()) {
        return corrupt_index(s.message());
    }
    return {};
}

/// Files this large check and read their dense sections on a second thread.
constexpr std::size_t kParallelOpenBytes = std::size_t{8} << 20U;

/// VECS (present), EKEY, EMBF and the dense index: the HNSW graph, or a flat index.
Status decode_dense_sections(const ContainerView& view,
                             const SectionView& vecs,
                             const std::shared_ptr<const void>& owner,
                             StoredIndex& out) {
    if (Status failed = check_section(vecs); !failed.ok()) {
        return failed;
    }
    if (Status failed = parse_vectors(vecs.bytes, owner, out); !failed.ok()) {
        return failed;
    }
    if (const SectionView* keys = view.find(kEmbedKeys)) {
        if (Status failed = check_section(*keys); !failed.ok()) {
            return failed;
        }
        auto decoded = decode_keys(keys->bytes, out.info.vectors);
        if (!decoded) {
            return decoded.status();
        }
        out.embed_keys = std::move(decoded.value());
    }
    if (const SectionView* state = view.find(kEmbedderState)) {
        if (Status failed = check_section(*state); !failed.ok()) {
            return failed;
        }
        out.embedder_state.assign(reinterpret_cast<const char*>(state->bytes.data()),
                                  state->bytes.size());
    }
    if (const SectionView* graph = view.find(kGraph)) {
        if (Status failed = check_section(*graph); !failed.ok()) {
            return failed;
        }
        out.dense =
            load_hnsw_index(out.vectors, out.options.dense, graph->bytes, graph->version, owner);
        if (!out.dense) {
            return corrupt_index("HNSW graph is inconsistent");
        }
    } else if (out.options.dense.kind == DenseIndexKind::flat ||
               (out.options.dense.kind == DenseIndexKind::automatic &&
                out.vectors->size() < out.options.dense.hnsw_min_tools)) {
        out.dense = make_flat_index(out.vectors, out.options.dense);
    }
    return {};
}

/// META's counts, embedder and options into `out.info` and `out.options`.
Status read_meta(const SectionView& meta, const ContainerView& view, StoredIndex& out) {
    if (Status failed = check_section(meta); !failed.ok()) {
        return failed;
    }
    auto parsed = parse_section(meta.bytes, "META");
    if (!parsed) {
        return parsed.status();
    }
    const json& m = parsed.value();
    out.info.format_major = view.major;
    out.info.format_minor = view.minor;
    const json& e = m.contains("embedder") ? m["embedder"] : json();
    const json& c = m.contains("counts") ? m["counts"] : json();
    // In the order they were read before: the first one missing is the one reported.
    const auto library_version = string_field(m, "library_version");
    const auto generation = count(m, "generation");
    if (!library_version || !generation) {
        return !library_version ? library_version.status() : generation.status();
    }
    out.info.library_version = library_version.value();
    out.info.generation = generation.value();
    auto options = options_from_json(m.contains("options") ? m["options"] : json());
    if (!options) {
        return options.status();
    }
    out.options = options.value();
    if (view.major == kIndexFormatMajor && view.minor > kIndexFormatMinor) {
        // A newer minor may add keys this reader does not know: they are ignored, but said.
        std::vector<std::string> unknown;
        unknown_keys(m["options"], options_to_json(out.options), "options.", unknown);
        for (const std::string& key : unknown) {
            out.info.warnings.push_back("index format " + std::to_string(view.major) + "." +
                                        std::to_string(view.minor) + " key '" + key +
                                        "' is not known to this reader (format " +
                                        std::to_string(kIndexFormatMajor) + "." +
                                        std::to_string(kIndexFormatMinor) + ") and is ignored");
        }
    }
    const auto model_id = string_field(e, "model_id");
    if (!model_id) {
        return model_id.status();
    }
    out.info.model_id = model_id.value();
    const auto dim = count(e, "dim");
    if (!dim) {
        return dim.status();
    }
    out.info.dim = static_cast<std::size_t>(std::min<std::uint64_t>(dim.value(), 1U << 20U));
    for (const auto& [key, field] : {std::pair{"servers", &out.info.servers},
                                     std::pair{"tools", &out.info.tools},
                                     std::pair{"indexed_tools", &out.info.indexed_tools},
                                     std::pair{"vectors", &out.info.vectors}}) {
        const auto n = count(c, key);
        if (!n) {
            return n.status();
        }
        *field = n.value();
    }
    return {};
}

/// The catalog section (CATB, or format 1's CATL) into `out.catalog`, its counts checked
/// against META's.
Status read_catalog(const SectionView& cat,
                    bool binary,
                    const std::shared_ptr<const void>& owner,
                    StoredIndex& out) {
    if (Status failed = check_section(cat); !failed.ok()) {
        return failed;
    }
    auto catalog = binary ? parse_catalog_binary(cat.bytes, owner) : parse_catalog_json(cat.bytes);
    if (!catalog) {
        return catalog.status();
    }
    out.catalog = std::move(catalog.value());
    const std::size_t indexed = out.catalog.indexed_tools();
    if (out.catalog.servers.size() != out.info.servers ||
        out.catalog.tools.size() != out.info.tools || indexed != out.info.indexed_tools) {
        return corrupt_index("catalog counts differ from META");
    }
    if (!out.info.model_id.empty() && out.info.vectors != indexed) {
        return corrupt_index("vector counts differ from the catalog");
    }
    return {};
}

}  // namespace

std::string encode_index(const IndexImage& image) {
    std::size_t tools = 0;
    for (const ServerImage& server : image.servers) {
        tools += server.tools.size();
    }
    const bool has_vectors = !image.model_id.empty() && image.vectors != nullptr;
    const std::size_t vectors = has_vectors ? image.indexed_tools : 0;
    json meta{{"format", {{"major", kIndexFormatMajor}, {"minor", kIndexFormatMinor}}},
              {"library_version", SCOUT_VERSION_STRING},
              {"generation", image.generation},
              {"options", options_to_json(image.options)},
              {"embedder", {{"model_id", image.model_id}, {"dim", has_vectors ? image.dim : 0}}},
              {"counts",
               {{"servers", image.servers.size()},
                {"tools", tools},
                {"indexed_tools", image.indexed_tools},
                {"vectors", vectors}}}};
    std::vector<SectionOut> sections;
    sections.push_back({kMeta, 1, dump(meta)});
    sections.push_back({kCatalogBinary, 1, encode_catalog_binary(image.servers)});
    if (has_vectors) {
        std::string bytes(kVecsHeader + image.vectors->bytes(), '\0');
        const std::uint64_t n = vectors;
        const auto dim = static_cast<std::uint32_t>(image.dim);
        std::memcpy(bytes.data(), &n, 8);
        std::memcpy(bytes.data() + 8, &dim, 4);
        char* at = bytes.data() + kVecsHeader;
        image.vectors->for_each_run([&at](std::span<const float> run) {
            std::memcpy(at, run.data(), run.size_bytes());
            at += run.size_bytes();
        });
        sections.push_back({kVectors, 1, std::move(bytes)});
        if (image.embed_keys.size() == vectors) {
            std::string keys;
            put_bytes<std::uint64_t>(keys, vectors);
            append_raw(keys, image.embed_keys.data(), image.embed_keys.size());
            sections.push_back({kEmbedKeys, 1, std::move(keys)});
        }
        if (!image.hnsw_graph.empty()) {
            sections.push_back({kGraph, kHnswGraphVersion, image.hnsw_graph});
        }
        if (!image.embedder_state.empty()) {
            sections.push_back({kEmbedderState, 1, image.embedder_state});
        }
    }
    if (image.bm25 != nullptr) {
        sections.push_back({kBm25, 1, encode_bm25(*image.bm25)});
        if (image.bm25->has_weights()) {
            sections.push_back(
                {kBm25Weights, kBm25WeightsVersion, encode_bm25_weights(*image.bm25)});
        }
    }
    if (image.outcomes != nullptr && !image.outcomes->empty()) {
        sections.push_back({kOutcomes, kOutcomeSectionVersion, encode_outcomes(*image.outcomes)});
    }
    return write_container(kIndexFormatMajor, kIndexFormatMinor, sections);
}

Result<StoredIndex> decode_index(std::span<const std::uint8_t> bytes,
                                 std::shared_ptr<const void> owner) {
    auto view = read_container(bytes, kOldestIndexFormatMajor, kIndexFormatMajor);
    if (!view) {
        return view.status();
    }
    const SectionView* meta = view->find(kMeta);
    const bool binary_catalog = view->major >= 2;
    const SectionView* cat = view->find(binary_catalog ? kCatalogBinary : kCatalog);
    const SectionView* vecs = view->find(kVectors);
    if (meta == nullptr || cat == nullptr) {
        return Status{Errc::corrupt,
                      std::string("index file is corrupt: META or ") +
                          (binary_catalog ? "CATB" : "CATL") + " section missing"};
    }
    StoredIndex out;
    try {
        if (Status failed = read_meta(*meta, *view, out); !failed.ok()) {
            return failed;
        }
        const bool has_vectors = !out.info.model_id.empty();
        if (has_vectors != (vecs != nullptr) ||
            (!has_vectors && (out.info.vectors != 0 || out.info.dim != 0))) {
            return corrupt_index("vector counts differ from the catalog");
        }
        if (vecs == nullptr &&
            (view->find(kEmbedKeys) != nullptr || view->find(kGraph) != nullptr ||
             view->find(kEmbedderState) != nullptr)) {
            return corrupt_index("dense sections without vectors");
        }
        // The dense sections and the rest touch different parts of `out`: a large file checks
        // and reads them on a second thread (the future, destroyed first, waits for it). An
        // error of the catalog's is reported before one of the dense sections', as a small
        // file read on one thread reports the dense sections' first.
        const auto decode_dense = [&]() -> Status {
            return vecs != nullptr ? decode_dense_sections(*view, *vecs, owner, out) : Status{};
        };
        std::future<Status> dense;
        if (bytes.size() >= kParallelOpenBytes && std::thread::hardware_concurrency() > 1) {
            dense = std::async(std::launch::async, decode_dense);
        } else if (Status failed = decode_dense(); !failed.ok()) {
            return failed;
        }
        if (Status failed = read_catalog(*cat, binary_catalog, owner, out); !failed.ok()) {
            return failed;
        }
        if (const SectionView* bm25 = view->find(kBm25)) {
            if (Status failed = check_section(*bm25); !failed.ok()) {
                return failed;
            }
            auto decoded = decode_bm25(bm25->bytes, out.catalog.indexed_tools(), owner);
            if (!decoded) {
                return decoded.status();
            }
            out.bm25 = std::move(decoded.value());
        }
        // A newer layout of BMTF is skipped like an unknown section: it only saves work.
        if (const SectionView* weights = view->find(kBm25Weights);
            weights != nullptr && weights->version == kBm25WeightsVersion) {
            if (out.bm25 == nullptr) {
                return corrupt_index("BMTF section without a BM25 section");
            }
            if (Status failed = check_section(*weights); !failed.ok()) {
                return failed;
            }
            if (Status failed =
                    decode_bm25_weights(weights->bytes, out.options.bm25, *out.bm25, owner);
                !failed.ok()) {
                return failed;
            }
        }
        if (dense.valid()) {
            if (Status failed = dense.get(); !failed.ok()) {
                return failed;
            }
        }
        // A newer layout of OUTC is skipped like an unknown section: outcomes are only a hint.
        if (const SectionView* o = view->find(kOutcomes);
            o != nullptr && o->version == kOutcomeSectionVersion) {
            auto outcomes = decode_outcomes(o->bytes);
            if (!outcomes) {
                return outcomes.status();
            }
            out.outcomes = std::move(outcomes.value());
        }
    } catch (const json::exception& e) {
        // nlohmann's own checks, the one error that arrives as an exception here.
        return Status{Errc::corrupt, std::string("index file is corrupt: bad JSON: ") + e.what()};
    }
    out.info.file_bytes = bytes.size();
    return out;
}

}  // namespace scout::detail

// option_table.cpp: the table of every CatalogOptions setting (see OptionField in options.hpp),
// with text parsing and bounds checks over it. A new setting is a member in options.hpp and a row
// here; the index file codec, Catalog::create, the CLI and the FORMAT.md list follow.
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "types/option_slot.hpp"

namespace scout {
namespace {

using detail::OptionSlot;
using detail::WideSlot;

constexpr double kNoLimit = static_cast<double>(std::numeric_limits<std::uint64_t>::max());
constexpr double kWeightMax = 1e6;  // a field or expansion weight
constexpr double kFusionMax = 1e9;  // a fusion constant or weight
constexpr double kCountMax = 1U << 20U;

constexpr std::string_view kDenseKinds = "automatic|flat|hnsw";
constexpr std::string_view kFusionMethodNames = "rrf|weighted_rrf|score_blend|anchored|gated";

struct Row {
    OptionField field;
    OptionSlot (*slot)(CatalogOptions&) = nullptr;
};

constexpr OptionField flag(std::string_view key, WhenAbsent absent, std::string_view help) {
    return {key, OptionType::flag, 0, 1, absent, true, help};
}
constexpr OptionField whole(
    std::string_view key, double min, double max, WhenAbsent absent, std::string_view help) {
    return {key, OptionType::whole, min, max, absent, true, help};
}
constexpr OptionField real(
    std::string_view key, double min, double max, WhenAbsent absent, std::string_view help) {
    return {key, OptionType::real, min, max, absent, true, help};
}
constexpr OptionField choice(std::string_view key, std::string_view help) {
    return {key, OptionType::choice, 0, 0, WhenAbsent::required, true, help};
}

using W = WhenAbsent;

// In the order of CatalogOptions' members (the help texts are options.hpp's, shortened).
constexpr Row kRows[] = {
    {flag("analyzer.split_identifiers",
          W::required,
          "split snake_case, camelCase, kebab-case, dotted.names and letter/digit runs"),
     [](CatalogOptions& o) -> OptionSlot { return &o.analyzer.split_identifiers; }},
    {flag("analyzer.keep_joined_case",
          W::off,
          "also keep a word that case changes split (MySQL) whole, after its parts"),
     [](CatalogOptions& o) -> OptionSlot { return &o.analyzer.keep_joined_case; }},
    {flag("analyzer.remove_stop_words", W::required, "drop English stop words"),
     [](CatalogOptions& o) -> OptionSlot { return &o.analyzer.remove_stop_words; }},
    {flag("analyzer.stem", W::required, "Porter suffix stripping of English words"),
     [](CatalogOptions& o) -> OptionSlot { return &o.analyzer.stem; }},
    {flag("analyzer.keep_surface",
          W::required,
          "with stemming, also keep each word's surface form, so exact matches outscore stems"),
     [](CatalogOptions& o) -> OptionSlot { return &o.analyzer.keep_surface; }},
    {whole("analyzer.max_token_bytes",
           1,
           kCountMax,
           W::required,
           "longer tokens are cut to this many bytes"),
     [](CatalogOptions& o) -> OptionSlot { return &o.analyzer.max_token_bytes; }},
    {real("bm25.k1", 0, 1000, W::required, "BM25 term-frequency saturation"),
     [](CatalogOptions& o) -> OptionSlot { return &o.bm25.k1; }},
    {real("bm25.b", 0, 1, W::required, "BM25 length normalisation"),
     [](CatalogOptions& o) -> OptionSlot { return &o.bm25.b; }},
    {real("bm25.weights.name", 0, kWeightMax, W::required, "weight of tool name words and title"),
     [](CatalogOptions& o) -> OptionSlot { return &o.bm25.weights.name; }},
    {real("bm25.weights.server",
          0,
          kWeightMax,
          W::required,
          "weight of the server name, category and environment label"),
     [](CatalogOptions& o) -> OptionSlot { return &o.bm25.weights.server; }},
    {real("bm25.weights.server_description",
          0,
          kWeightMax,
          W::required,
          "weight of the server's description"),
     [](CatalogOptions& o) -> OptionSlot { return &o.bm25.weights.server_description; }},
    {real("bm25.weights.description",
          0,
          kWeightMax,
          W::required,
          "weight of the tool's description"),
     [](CatalogOptions& o) -> OptionSlot { return &o.bm25.weights.description; }},
    {real("bm25.weights.parameters",
          0,
          kWeightMax,
          W::required,
          "weight of parameter names, descriptions and enum values"),
     [](CatalogOptions& o) -> OptionSlot { return &o.bm25.weights.parameters; }},
    {real("bm25.weights.action",
          0,
          kWeightMax,
          W::off,
          "weight of the tool's action term (get, list, delete, ...); 0 leaves it out"),
     [](CatalogOptions& o) -> OptionSlot { return &o.bm25.weights.action; }},
    {real("bm25.weights.word_pairs",
          0,
          kWeightMax,
          W::off,
          "weight of adjacent word pairs of the name and description; 0 leaves them out"),
     [](CatalogOptions& o) -> OptionSlot { return &o.bm25.weights.word_pairs; }},
    {choice("dense.kind", "automatic (HNSW from dense.hnsw_min_tools tools), flat or hnsw"),
     [](CatalogOptions& o) -> OptionSlot { return &o.dense.kind; }},
    {whole("dense.hnsw_min_tools",
           0,
           kNoLimit,
           W::required,
           "with automatic, catalogs of at least this many tools use HNSW"),
     [](CatalogOptions& o) -> OptionSlot { return &o.dense.hnsw_min_tools; }},
    {flag("dense.int8_scan", W::required, "exact search scans int8 copies at any size"),
     [](CatalogOptions& o) -> OptionSlot { return &o.dense.int8_scan; }},
    {whole("dense.int8_min_tools",
           0,
           kNoLimit,
           W::largest,
           "with automatic, exact search scans int8 copies from this many tools on"),
     [](CatalogOptions& o) -> OptionSlot { return &o.dense.int8_min_tools; }},
    {whole("dense.int8_rescore_factor",
           1,
           1024,
           W::required,
           "the int8 scan re-scores max(k x this, 32) candidates in fp32"),
     [](CatalogOptions& o) -> OptionSlot { return &o.dense.int8_rescore_factor; }},
    {real("dense.hnsw_filter_min_fraction",
          0,
          1,
          W::required,
          "HNSW with a scope filter searches the graph when at least this share is allowed"),
     [](CatalogOptions& o) -> OptionSlot { return &o.dense.hnsw_filter_min_fraction; }},
    {whole("dense.hnsw_m", 2, 1024, W::required, "HNSW links per node"),
     [](CatalogOptions& o) -> OptionSlot { return &o.dense.hnsw_m; }},
    {whole("dense.hnsw_ef_construction", 1, kCountMax, W::required, "HNSW build search width"),
     [](CatalogOptions& o) -> OptionSlot { return &o.dense.hnsw_ef_construction; }},
    {whole("dense.hnsw_ef_search",
           1,
           kCountMax,
           W::required,
           "HNSW search width up to dense.hnsw_ef_base_tools points"),
     [](CatalogOptions& o) -> OptionSlot { return &o.dense.hnsw_ef_search; }},
    {whole("dense.hnsw_ef_base_tools",
           0,
           kNoLimit,
           W::off,
           "beyond this many points the search width grows with the square root of the size; "
           "0 keeps it fixed"),
     [](CatalogOptions& o) -> OptionSlot { return &o.dense.hnsw_ef_base_tools; }},
    {flag("dense.hnsw_int8", W::off, "the graph stores and compares int8 codes of the vectors"),
     [](CatalogOptions& o) -> OptionSlot { return &o.dense.hnsw_int8; }},
    {whole("dense.seed", 0, kNoLimit, W::required, "HNSW level generation seed"),
     [](CatalogOptions& o) -> OptionSlot { return WideSlot{&o.dense.seed}; }},
    {choice("fusion.method", "how the BM25 and dense lists become one ranking"),
     [](CatalogOptions& o) -> OptionSlot { return &o.fusion.method; }},
    {real("fusion.rrf_k", 0, kFusionMax, W::required, "RRF's k: sum 1 / (k + rank)"),
     [](CatalogOptions& o) -> OptionSlot { return &o.fusion.rrf_k; }},
    {whole("fusion.fetch_factor",
           1,
           1000,
           W::required,
           "each branch fetches top_k x this many candidates"),
     [](CatalogOptions& o) -> OptionSlot { return &o.fusion.fetch_factor; }},
    {real("fusion.bm25_weight",
          0,
          kFusionMax,
          W::required,
          "BM25's weight in weighted_rrf, score_blend and anchored"),
     [](CatalogOptions& o) -> OptionSlot { return &o.fusion.bm25_weight; }},
    {real("fusion.dense_weight",
          0,
          kFusionMax,
          W::required,
          "the dense list's weight in weighted_rrf, score_blend and anchored"),
     [](CatalogOptions& o) -> OptionSlot { return &o.fusion.dense_weight; }},
    {real("fusion.dense_confidence_power",
          0,
          kFusionMax,
          W::off,
          "anchored: power of the dense list's confidence in its gate; 0 ignores it"),
     [](CatalogOptions& o) -> OptionSlot { return &o.fusion.dense_confidence_power; }},
    {real("fusion.gated_dense_weight",
          0,
          kFusionMax,
          W::as_default,
          "gated: weight of the dense list before its gate"),
     [](CatalogOptions& o) -> OptionSlot { return &o.fusion.gated_dense_weight; }},
    {whole("fusion.agreement_depth",
           1,
           1000,
           W::as_default,
           "gated: the dense top-1 agrees when among this many of BM25's first candidates"),
     [](CatalogOptions& o) -> OptionSlot { return &o.fusion.agreement_depth; }},
    {real("fusion.disagreement_gate",
          0,
          kFusionMax,
          W::as_default,
          "gated: gate of a dense list whose top-1 does not agree"),
     [](CatalogOptions& o) -> OptionSlot { return &o.fusion.disagreement_gate; }},
    {real("fusion.gated_confidence_power",
          0,
          kFusionMax,
          W::as_default,
          "gated: power of the dense list's confidence in its gate; 0 ignores it"),
     [](CatalogOptions& o) -> OptionSlot { return &o.fusion.gated_confidence_power; }},
    {real("fusion.overlap_power",
          0,
          kFusionMax,
          W::off,
          "gated: power of the share of candidates both lists fetched; 0 ignores it"),
     [](CatalogOptions& o) -> OptionSlot { return &o.fusion.overlap_power; }},
    {flag("fusion.gated_relative_bm25",
          W::as_default,
          "gated: BM25's scores divided by its top score rather than min-max scaled"),
     [](CatalogOptions& o) -> OptionSlot { return &o.fusion.gated_relative_bm25; }},
    {flag("expansion.lexicon", W::required, "expand queries with the built-in lexicon"),
     [](CatalogOptions& o) -> OptionSlot { return &o.expansion.lexicon; }},
    {real("expansion.weight",
          0,
          kWeightMax,
          W::required,
          "weight of a lexicon word relative to the query's own (1)"),
     [](CatalogOptions& o) -> OptionSlot { return &o.expansion.weight; }},
    {whole("expansion.neighbours",
           0,
           64,
           W::off,
           "nearest catalog words each query word adds (needs word vectors); 0 is off"),
     [](CatalogOptions& o) -> OptionSlot { return &o.expansion.neighbours; }},
    {real("expansion.neighbour_weight",
          0,
          kWeightMax,
          W::as_default,
          "weight of a neighbour word, times its cosine"),
     [](CatalogOptions& o) -> OptionSlot { return &o.expansion.neighbour_weight; }},
    {real("expansion.neighbour_min_similarity",
          -1,
          1,
          W::as_default,
          "least cosine of a neighbour word"),
     [](CatalogOptions& o) -> OptionSlot { return &o.expansion.neighbour_min_similarity; }},
    {real("expansion.action_weight",
          0,
          kWeightMax,
          W::off,
          "weight of the query's action term; 0 is off"),
     [](CatalogOptions& o) -> OptionSlot { return &o.expansion.action_weight; }},
    {real("expansion.action_boost",
          0,
          100,
          W::off,
          "BM25 scores of tools with the query's action are multiplied by 1 + this"),
     [](CatalogOptions& o) -> OptionSlot { return &o.expansion.action_boost; }},
    {real("expansion.compound_weight",
          0,
          kWeightMax,
          W::off,
          "weight of compound words joined or split against the catalog's words; 0 is off"),
     [](CatalogOptions& o) -> OptionSlot { return &o.expansion.compound_weight; }},
    {real("expansion.pair_weight",
          0,
          kWeightMax,
          W::off,
          "weight of the query's adjacent word pairs; 0 is off"),
     [](CatalogOptions& o) -> OptionSlot { return &o.expansion.pair_weight; }},
    {whole(
         "embed_batch", 1, kCountMax, W::required, "texts per Embedder::embed call when indexing"),
     [](CatalogOptions& o) -> OptionSlot { return &o.embed_batch; }},
    {{"threads",
      OptionType::whole,
      0,
      1024,
      WhenAbsent::as_default,
      false,
      "threads a commit uses (0 = every core); a setting of the process, not stored"},
     [](CatalogOptions& o) -> OptionSlot { return &o.threads; }},
};

constexpr std::size_t kRowCount = std::size(kRows);

const std::array<OptionField, kRowCount>& fields() {
    static const std::array<OptionField, kRowCount> table = [] {
        std::array<OptionField, kRowCount> out{};
        for (std::size_t i = 0; i < kRowCount; ++i) {
            out[i] = kRows[i].field;
        }
        return out;
    }();
    return table;
}

std::size_t index_of(const OptionField& field) {
    return static_cast<std::size_t>(&field - fields().data());
}

template <typename T>
std::string number_text(T value) {
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
    return ec == std::errc{} ? std::string(buf, end) : std::string("?");
}

std::string bounds_text(const OptionField& f) {
    const auto bound = [&](double v) {
        if (f.type == OptionType::whole) {
            return v >= kNoLimit ? std::string("max") : number_text(static_cast<std::uint64_t>(v));
        }
        return number_text(v);
    };
    return bound(f.min) + ".." + bound(f.max);
}

Status out_of_bounds(const OptionField& f, std::string_view value) {
    std::string expected = f.type == OptionType::flag     ? std::string("true or false")
                           : f.type == OptionType::choice ? std::string(f.choices())
                                                          : bounds_text(f);
    std::string shown(value.substr(0, 64));
    return {Errc::invalid_argument,
            "option " + std::string(f.key) + " takes " + expected + ", not '" + shown + "'"};
}

bool in_bounds(const OptionField& f, double v) {
    return std::isfinite(v) && v >= f.min && v <= f.max;
}

template <typename T>
bool parse_number(std::string_view text, T& out) {
    const char* first = text.data();
    const char* last = first + text.size();
    if (!text.empty() && text.front() == '+') {
        ++first;
    }
    const auto [end, ec] = std::from_chars(first, last, out);
    return ec == std::errc{} && end == last && first != last;
}

}  // namespace

std::string_view OptionField::choices() const noexcept {
    if (type != OptionType::choice) {
        return {};
    }
    return key == "dense.kind" ? kDenseKinds : kFusionMethodNames;
}

std::span<const OptionField> option_fields() noexcept {
    return fields();
}

const OptionField* find_option(std::string_view key) noexcept {
    for (const OptionField& f : fields()) {
        if (f.key == key) {
            return &f;
        }
    }
    return nullptr;
}

std::string option_text(const CatalogOptions& options, const OptionField& field) {
    // The slot functions take a mutable catalog; this one is a copy.
    CatalogOptions copy = options;
    const OptionSlot slot = detail::option_slot(copy, index_of(field));
    return std::visit(
        [](auto p) -> std::string {
            using P = decltype(p);
            if constexpr (std::is_same_v<P, bool*>) {
                return *p ? "true" : "false";
            } else if constexpr (std::is_same_v<P, WideSlot>) {
                return number_text(*p.value);
            } else if constexpr (std::is_same_v<P, DenseIndexKind*>) {
                return *p == DenseIndexKind::flat   ? "flat"
                       : *p == DenseIndexKind::hnsw ? "hnsw"
                                                    : "automatic";
            } else if constexpr (std::is_same_v<P, FusionMethod*>) {
                return std::string(fusion_method_name(*p));
            } else {
                return number_text(*p);
            }
        },
        slot);
}

Status set_option(CatalogOptions& options, std::string_view key, std::string_view value) {
    const OptionField* field = find_option(key);
    if (field == nullptr) {
        return {Errc::invalid_argument, "unknown option '" + std::string(key.substr(0, 64)) + "'"};
    }
    const OptionSlot slot = detail::option_slot(options, index_of(*field));
    const bool ok = std::visit(
        [&](auto p) -> bool {
            using P = decltype(p);
            if constexpr (std::is_same_v<P, bool*>) {
                if (value != "true" && value != "false") {
                    return false;
                }
                *p = value == "true";
                return true;
            } else if constexpr (std::is_same_v<P, DenseIndexKind*>) {
                if (value == "automatic" || value == "flat" || value == "hnsw") {
                    *p = value == "flat"   ? DenseIndexKind::flat
                         : value == "hnsw" ? DenseIndexKind::hnsw
                                           : DenseIndexKind::automatic;
                    return true;
                }
                return false;
            } else if constexpr (std::is_same_v<P, FusionMethod*>) {
                const auto method = parse_fusion_method(value);
                if (method) {
                    *p = *method;
                }
                return method.has_value();
            } else if constexpr (std::is_same_v<P, WideSlot>) {
                std::uint64_t v = 0;
                if (!parse_number(value, v) || !in_bounds(*field, static_cast<double>(v))) {
                    return false;
                }
                *p.value = v;
                return true;
            } else {
                std::remove_pointer_t<P> v{};
                if (!parse_number(value, v) || !in_bounds(*field, static_cast<double>(v))) {
                    return false;
                }
                *p = v;
                return true;
            }
        },
        slot);
    return ok ? Status{} : out_of_bounds(*field, value);
}

Status check_options(const CatalogOptions& options) {
    CatalogOptions copy = options;
    for (std::size_t i = 0; i < kRowCount; ++i) {
        const OptionField& field = fields()[i];
        const bool ok = std::visit(
            [&](auto p) -> bool {
                using P = decltype(p);
                if constexpr (std::is_same_v<P, bool*>) {
                    return true;
                } else if constexpr (std::is_same_v<P, DenseIndexKind*>) {
                    return *p == DenseIndexKind::automatic || *p == DenseIndexKind::flat ||
                           *p == DenseIndexKind::hnsw;
                } else if constexpr (std::is_same_v<P, FusionMethod*>) {
                    return !fusion_method_name(*p).empty() &&
                           parse_fusion_method(fusion_method_name(*p)) == *p;
                } else if constexpr (std::is_same_v<P, WideSlot>) {
                    return in_bounds(field, static_cast<double>(*p.value));
                } else {
                    return in_bounds(field, static_cast<double>(*p));
                }
            },
            detail::option_slot(copy, i));
        if (!ok) {
            return out_of_bounds(field, option_text(options, field));
        }
    }
    return {};
}

namespace detail {

OptionSlot option_slot(CatalogOptions& options, std::size_t index) {
    return kRows[index].slot(options);
}

}  // namespace detail
}  // namespace scout

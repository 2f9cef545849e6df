// options_json.cpp: see options_json.hpp. Bounds matter: a damaged file must not ask for, say,
// an HNSW graph with a billion links per node.
#include "persist/options_json.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "util/aggregate_fields.hpp"

namespace scout::detail {
namespace {

using nlohmann::json;

// Every option field is written and read below. These trip when a field is added, as a reminder
// to extend both functions (and docs/FORMAT.md) so index files keep every setting. The one
// exception is CatalogOptions::threads, a setting of the process (not of the index) that files
// do not store.
static_assert(aggregate_fields<CatalogOptions>() == 7,
              "CatalogOptions changed: update options_json.cpp");
static_assert(aggregate_fields<AnalyzerOptions>() == 6,
              "AnalyzerOptions changed: update options_json.cpp");
static_assert(aggregate_fields<Bm25Options>() == 3, "Bm25Options changed: update options_json.cpp");
static_assert(aggregate_fields<FieldWeights>() == 7,
              "FieldWeights changed: update options_json.cpp");
static_assert(aggregate_fields<DenseOptions>() == 12,
              "DenseOptions changed: update options_json.cpp");
static_assert(aggregate_fields<FusionOptions>() == 12,
              "FusionOptions changed: update options_json.cpp");
static_assert(aggregate_fields<ExpansionOptions>() == 9,
              "ExpansionOptions changed: update options_json.cpp");

struct BadField : std::runtime_error {
    using std::runtime_error::runtime_error;
};

const json& field(const json& obj, const char* key) {
    if (!obj.is_object() || !obj.contains(key)) {
        throw BadField(std::string("missing option '") + key + "'");
    }
    return obj[key];
}

float real(const json& obj, const char* key, double lo, double hi) {
    const json& v = field(obj, key);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo ||
        v.get<double>() > hi) {
        throw BadField(std::string("option '") + key + "' is out of range");
    }
    return v.get<float>();
}

std::size_t whole_number(const json& obj, const char* key, std::uint64_t lo, std::uint64_t hi) {
    const json& v = field(obj, key);
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() < lo || v.get<std::uint64_t>() > hi) {
        throw BadField(std::string("option '") + key + "' is out of range");
    }
    return static_cast<std::size_t>(v.get<std::uint64_t>());
}

bool flag(const json& obj, const char* key) {
    const json& v = field(obj, key);
    if (!v.is_boolean()) {
        throw BadField(std::string("option '") + key + "' is not a boolean");
    }
    return v.get<bool>();
}

/// real() for a key that older files lack: absent means 0, the setting off.
float real_or_off(const json& obj, const char* key, double lo, double hi) {
    return obj.contains(key) ? real(obj, key, lo, hi) : 0.0f;
}

double non_negative(const json& obj, const char* key) {
    const json& v = field(obj, key);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0 ||
        v.get<double>() > 1e9) {
        throw BadField(std::string("option '") + key + "' is out of range");
    }
    return v.get<double>();
}

const char* kind_name(DenseIndexKind kind) {
    switch (kind) {
        case DenseIndexKind::flat:
            return "flat";
        case DenseIndexKind::hnsw:
            return "hnsw";
        case DenseIndexKind::automatic:
            break;
    }
    return "automatic";
}

}  // namespace

json options_to_json(const CatalogOptions& o) {
    const FieldWeights& w = o.bm25.weights;
    return {{"analyzer",
             {{"split_identifiers", o.analyzer.split_identifiers},
              {"keep_joined_case", o.analyzer.keep_joined_case},
              {"remove_stop_words", o.analyzer.remove_stop_words},
              {"stem", o.analyzer.stem},
              {"keep_surface", o.analyzer.keep_surface},
              {"max_token_bytes", o.analyzer.max_token_bytes}}},
            {"bm25",
             {{"k1", o.bm25.k1},
              {"b", o.bm25.b},
              {"weights",
               {{"name", w.name},
                {"server", w.server},
                {"server_description", w.server_description},
                {"description", w.description},
                {"parameters", w.parameters},
                {"action", w.action},
                {"word_pairs", w.word_pairs}}}}},
            {"dense",
             {{"kind", kind_name(o.dense.kind)},
              {"hnsw_min_tools", o.dense.hnsw_min_tools},
              {"int8_scan", o.dense.int8_scan},
              {"int8_min_tools", o.dense.int8_min_tools},
              {"int8_rescore_factor", o.dense.int8_rescore_factor},
              {"hnsw_filter_min_fraction", o.dense.hnsw_filter_min_fraction},
              {"hnsw_m", o.dense.hnsw_m},
              {"hnsw_ef_construction", o.dense.hnsw_ef_construction},
              {"hnsw_ef_search", o.dense.hnsw_ef_search},
              {"hnsw_ef_base_tools", o.dense.hnsw_ef_base_tools},
              {"hnsw_int8", o.dense.hnsw_int8},
              {"seed", o.dense.seed}}},
            {"fusion",
             {{"method", std::string(fusion_method_name(o.fusion.method))},
              {"rrf_k", o.fusion.rrf_k},
              {"fetch_factor", o.fusion.fetch_factor},
              {"bm25_weight", o.fusion.bm25_weight},
              {"dense_weight", o.fusion.dense_weight},
              {"dense_confidence_power", o.fusion.dense_confidence_power},
              {"gated_dense_weight", o.fusion.gated_dense_weight},
              {"agreement_depth", o.fusion.agreement_depth},
              {"disagreement_gate", o.fusion.disagreement_gate},
              {"gated_confidence_power", o.fusion.gated_confidence_power},
              {"overlap_power", o.fusion.overlap_power},
              {"gated_relative_bm25", o.fusion.gated_relative_bm25}}},
            {"expansion",
             {{"lexicon", o.expansion.lexicon},
              {"weight", o.expansion.weight},
              {"neighbours", o.expansion.neighbours},
              {"neighbour_weight", o.expansion.neighbour_weight},
              {"neighbour_min_similarity", o.expansion.neighbour_min_similarity},
              {"action_weight", o.expansion.action_weight},
              {"compound_weight", o.expansion.compound_weight},
              {"action_boost", o.expansion.action_boost},
              {"pair_weight", o.expansion.pair_weight}}},
            {"embed_batch", o.embed_batch}};
}

Result<CatalogOptions> options_from_json(const json& j) {
    try {
        CatalogOptions o;
        const json& a = field(j, "analyzer");
        o.analyzer.split_identifiers = flag(a, "split_identifiers");
        // Absent from files written before joined words were kept.
        o.analyzer.keep_joined_case = a.contains("keep_joined_case") && flag(a, "keep_joined_case");
        o.analyzer.remove_stop_words = flag(a, "remove_stop_words");
        o.analyzer.stem = flag(a, "stem");
        o.analyzer.keep_surface = flag(a, "keep_surface");
        o.analyzer.max_token_bytes = whole_number(a, "max_token_bytes", 1, 1U << 20U);
        const json& b = field(j, "bm25");
        o.bm25.k1 = real(b, "k1", 0, 1000);
        o.bm25.b = real(b, "b", 0, 1);
        const json& w = field(b, "weights");
        o.bm25.weights.name = real(w, "name", 0, 1e6);
        o.bm25.weights.server = real(w, "server", 0, 1e6);
        o.bm25.weights.server_description = real(w, "server_description", 0, 1e6);
        o.bm25.weights.description = real(w, "description", 0, 1e6);
        o.bm25.weights.parameters = real(w, "parameters", 0, 1e6);
        // Keys absent from older files read as off (real_or_off), reproducing those files.
        o.bm25.weights.action = real_or_off(w, "action", 0, 1e6);
        o.bm25.weights.word_pairs = real_or_off(w, "word_pairs", 0, 1e6);
        const json& d = field(j, "dense");
        const json& kind = field(d, "kind");
        if (kind == "flat") {
            o.dense.kind = DenseIndexKind::flat;
        } else if (kind == "hnsw") {
            o.dense.kind = DenseIndexKind::hnsw;
        } else if (kind == "automatic") {
            o.dense.kind = DenseIndexKind::automatic;
        } else {
            throw BadField("unknown dense index kind");
        }
        o.dense.hnsw_min_tools = whole_number(d, "hnsw_min_tools", 0, UINT64_MAX);
        o.dense.int8_scan = flag(d, "int8_scan");
        // Absent from files before 1.3, whose exact search was fp32 unless int8_scan said so.
        o.dense.int8_min_tools = d.contains("int8_min_tools")
                                     ? whole_number(d, "int8_min_tools", 0, UINT64_MAX)
                                     : std::numeric_limits<std::size_t>::max();
        o.dense.int8_rescore_factor = whole_number(d, "int8_rescore_factor", 1, 1024);
        o.dense.hnsw_filter_min_fraction = real(d, "hnsw_filter_min_fraction", 0, 1);
        o.dense.hnsw_m = whole_number(d, "hnsw_m", 2, 1024);
        o.dense.hnsw_ef_construction = whole_number(d, "hnsw_ef_construction", 1, 1U << 20U);
        o.dense.hnsw_ef_search = whole_number(d, "hnsw_ef_search", 1, 1U << 20U);
        // Absent from files before 1.5, whose graphs searched with hnsw_ef_search at any size.
        o.dense.hnsw_ef_base_tools = d.contains("hnsw_ef_base_tools")
                                         ? whole_number(d, "hnsw_ef_base_tools", 0, UINT64_MAX)
                                         : 0;
        // Absent from files before 1.4, whose graphs held fp32 rows.
        o.dense.hnsw_int8 = d.contains("hnsw_int8") && flag(d, "hnsw_int8");
        o.dense.seed = whole_number(d, "seed", 0, UINT64_MAX);
        const json& f = field(j, "fusion");
        const json& method = field(f, "method");
        const auto parsed =
            method.is_string() ? parse_fusion_method(method.get<std::string>()) : std::nullopt;
        if (!parsed) {
            throw BadField("unknown fusion method");
        }
        o.fusion.method = *parsed;
        o.fusion.rrf_k = non_negative(f, "rrf_k");
        o.fusion.bm25_weight = non_negative(f, "bm25_weight");
        o.fusion.dense_weight = non_negative(f, "dense_weight");
        o.fusion.fetch_factor = whole_number(f, "fetch_factor", 1, 1000);
        // Absent from files written before the dense confidence gate.
        o.fusion.dense_confidence_power =
            f.contains("dense_confidence_power") ? non_negative(f, "dense_confidence_power") : 0.0;
        // Absent from files written before the gated blend: its defaults (unused by the
        // methods those files could name).
        const FusionOptions defaults;
        o.fusion.gated_dense_weight = f.contains("gated_dense_weight")
                                          ? non_negative(f, "gated_dense_weight")
                                          : defaults.gated_dense_weight;
        o.fusion.agreement_depth = f.contains("agreement_depth")
                                       ? whole_number(f, "agreement_depth", 1, 1000)
                                       : defaults.agreement_depth;
        o.fusion.disagreement_gate = f.contains("disagreement_gate")
                                         ? non_negative(f, "disagreement_gate")
                                         : defaults.disagreement_gate;
        o.fusion.gated_confidence_power = f.contains("gated_confidence_power")
                                              ? non_negative(f, "gated_confidence_power")
                                              : defaults.gated_confidence_power;
        // Absent from files written before the overlap gate: 0 reproduces their ranking.
        o.fusion.overlap_power =
            f.contains("overlap_power") ? non_negative(f, "overlap_power") : 0.0;
        o.fusion.gated_relative_bm25 = f.contains("gated_relative_bm25")
                                           ? flag(f, "gated_relative_bm25")
                                           : defaults.gated_relative_bm25;
        const json& x = field(j, "expansion");
        o.expansion.lexicon = flag(x, "lexicon");
        o.expansion.weight = real(x, "weight", 0, 1e6);
        if (x.contains("neighbours")) {  // absent from files written before neighbour expansion
            o.expansion.neighbours = whole_number(x, "neighbours", 0, 64);
            o.expansion.neighbour_weight = real(x, "neighbour_weight", 0, 1e6);
            o.expansion.neighbour_min_similarity = real(x, "neighbour_min_similarity", -1, 1);
        }
        o.expansion.action_weight = real_or_off(x, "action_weight", 0, 1e6);
        o.expansion.compound_weight = real_or_off(x, "compound_weight", 0, 1e6);
        o.expansion.action_boost = real_or_off(x, "action_boost", 0, 100);
        o.expansion.pair_weight = real_or_off(x, "pair_weight", 0, 1e6);
        o.embed_batch = whole_number(j, "embed_batch", 1, 1U << 20U);
        return o;
    } catch (const BadField& e) {
        return Status{Errc::corrupt, std::string("index file is corrupt: ") + e.what()};
    } catch (const json::exception& e) {
        return Status{Errc::corrupt,
                      std::string("index file is corrupt: bad options: ") + e.what()};
    }
}

}  // namespace scout::detail

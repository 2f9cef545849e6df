// json_bridge.cpp: see json_bridge.hpp. Every reader is strict: an unknown key or a value of the
// wrong type is invalid_argument naming the key, so a typo never passes silently.
#include "capi/json_bridge.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "scout/reranker.hpp"

#include "persist/options_json.hpp"

namespace scout::detail {
namespace {

using nlohmann::json;

constexpr std::size_t kDefaultQueryCache = 1024;
constexpr std::uint64_t kMaxEmbedderDim = 65536;
constexpr std::uint64_t kMaxBudget = 1000000000;

Status bad_input(std::string message) {
    return {Errc::invalid_argument, std::move(message)};
}

/// Parses `text` as one JSON object; empty text is the empty object.
Result<json> parse_json_object(std::string_view text, const char* what) {
    if (text.empty()) {
        return json::object();
    }
    json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) {
        return bad_input(std::string(what) + " is not valid JSON");
    }
    if (!value.is_object()) {
        return bad_input(std::string(what) + " must be a JSON object");
    }
    return value;
}

/// Every key of `given` must be one of `known` (at every level where `known` has an object).
Status check_keys(const json& given, const json& known, const std::string& where) {
    for (const auto& [key, value] : given.items()) {
        auto it = known.find(key);
        if (it == known.end()) {
            std::string message = where;
            message.append(": unknown key '").append(key).append("'");
            return bad_input(std::move(message));
        }
        if (it->is_object()) {
            std::string path = where;
            path.append(".").append(key);
            if (!value.is_object()) {
                return bad_input(path + " must be an object");
            }
            if (Status s = check_keys(value, *it, path); !s.ok()) {
                return s;
            }
        }
    }
    return {};
}

/// An unsigned whole number in [lo, hi] at `obj[key]`, or `fallback` when the key is absent.
Result<std::uint64_t> whole_field(
    const json& obj, const char* key, std::uint64_t fallback, std::uint64_t lo, std::uint64_t hi) {
    auto it = obj.find(key);
    if (it == obj.end()) {
        return fallback;
    }
    if (!it->is_number_unsigned() || it->get<std::uint64_t>() < lo ||
        it->get<std::uint64_t>() > hi) {
        return bad_input(std::string("'") + key + "' must be a whole number in [" +
                         std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    return it->get<std::uint64_t>();
}

Result<std::string> text_field(const json& obj, const char* key, bool required) {
    auto it = obj.find(key);
    if (it == obj.end()) {
        if (required) {
            return bad_input(std::string("'") + key + "' is required");
        }
        return std::string();
    }
    if (!it->is_string()) {
        return bad_input(std::string("'") + key + "' must be a string");
    }
    return it->get<std::string>();
}

/// "static" (the shipped model, when `path` is empty), a model or vector file, or "glove".
Result<std::shared_ptr<Embedder>> static_embedder(const std::string& path,
                                                  bool glove,
                                                  std::optional<double> idf_power) {
    StaticEmbedderOptions options;
    options.idf_power = idf_power;
    auto loaded = glove          ? StaticEmbedder::load_glove(options)
                  : path.empty() ? StaticEmbedder::load_default(options)
                                 : StaticEmbedder::load(path, options);
    if (!loaded) {
        const Status s = loaded.status();
        const std::string hint =
            glove ? " (run scripts/fetch.d/10-static-embeddings.sh, or choose another embedder)"
                  : "";
        return Status{s.code(), "static embedder: " + s.message() + hint};
    }
    return std::shared_ptr<Embedder>(loaded.value());
}

Result<std::shared_ptr<Embedder>> hashing_embedder(std::uint64_t dim) {
    return std::shared_ptr<Embedder>(std::make_shared<HashingEmbedder>(dim));
}

/// A BERT-family sentence encoder in the folder `dir`, run in process on every core.
Result<std::shared_ptr<Embedder>> transformer_embedder(const std::string& dir) {
    TransformerEmbedderOptions options;
    options.threads = std::max(1U, std::thread::hardware_concurrency());
    auto loaded = make_transformer_embedder(dir, options);
    if (!loaded) {
        return Status{loaded.status().code(), "transformer embedder: " + loaded.status().message()};
    }
    return loaded;
}

Result<std::shared_ptr<Embedder>> http_embedder(const json& spec) {
    static const json known = {{"kind", nullptr},
                               {"url", nullptr},
                               {"model", nullptr},
                               {"dimensions", nullptr},
                               {"api_key", nullptr},
                               {"api_version", nullptr},
                               {"headers", nullptr},
                               {"ca_file", nullptr},
                               {"allow_cleartext_key", nullptr},
                               {"timeout_ms", nullptr}};
    if (Status s = check_keys(spec, known, "embedder"); !s.ok()) {
        return s;
    }
    HttpEmbedderOptions options;
    auto url = text_field(spec, "url", true);
    auto version = text_field(spec, "api_version", false);
    auto model = text_field(spec, "model", !version.ok() || version.value().empty());
    auto key = text_field(spec, "api_key", false);
    auto ca = text_field(spec, "ca_file", false);
    auto dims = whole_field(spec, "dimensions", 0, 0, kMaxEmbedderDim);
    auto timeout = whole_field(spec, "timeout_ms", 0, 0, std::uint64_t{24} * 3600 * 1000);
    for (const Status& s : {url.status(),
                            model.status(),
                            key.status(),
                            dims.status(),
                            timeout.status(),
                            version.status(),
                            ca.status()}) {
        if (!s.ok()) {
            return Status{s.code(), "embedder: " + s.message()};
        }
    }
    if (auto h = spec.find("headers"); h != spec.end()) {
        if (!h->is_object()) {
            return Status{Errc::invalid_argument, "embedder: headers must be an object of strings"};
        }
        for (const auto& [name, value] : h->items()) {
            if (!value.is_string()) {
                return Status{Errc::invalid_argument,
                              "embedder: headers must be an object of strings"};
            }
            options.headers.push_back(name + ": " + value.get<std::string>());
        }
    }
    if (auto a = spec.find("allow_cleartext_key"); a != spec.end()) {
        if (!a->is_boolean()) {
            return Status{Errc::invalid_argument,
                          "embedder: allow_cleartext_key must be true or false"};
        }
        options.allow_cleartext_key = a->get<bool>();
    }
    options.api_version = version.value();
    options.ca_file = ca.value();
    options.base_url = url.value();
    options.model = model.value();
    options.api_key = key.value();
    options.dimensions = static_cast<std::size_t>(dims.value());
    if (timeout.value() != 0) {
        const std::chrono::milliseconds ms(static_cast<std::int64_t>(timeout.value()));
        options.request_timeout = ms;
        options.total_timeout = ms;
        options.connect_timeout = std::min(options.connect_timeout, ms);
    }
    auto made = make_http_embedder(std::move(options));
    if (!made) {
        return Status{made.status().code(), "http embedder: " + made.status().message()};
    }
    return made;
}

/// "static[:PATH]", "hashing[:DIM]", "none", "http" (an object is needed for its settings).
Result<std::shared_ptr<Embedder>> embedder_from_name(const std::string& name) {
    if (name == "none") {
        return std::shared_ptr<Embedder>();
    }
    if (name == "static" || name.rfind("static:", 0) == 0 || name == "glove") {
        return static_embedder(
            name.size() > 7 ? name.substr(7) : std::string(), name == "glove", std::nullopt);
    }
    if (name == "hashing") {
        return hashing_embedder(256);
    }
    if (name.rfind("hashing:", 0) == 0) {
        json dim = json::parse(name.substr(8), nullptr, false);
        if (!dim.is_number_unsigned() || dim.get<std::uint64_t>() == 0 ||
            dim.get<std::uint64_t>() > kMaxEmbedderDim) {
            return bad_input("embedder: hashing:DIM needs 1 <= DIM <= 65536");
        }
        return hashing_embedder(dim.get<std::uint64_t>());
    }
    if (name.rfind("transformer:", 0) == 0) {
        return transformer_embedder(name.substr(12));
    }
    if (name == "http") {
        return bad_input("embedder: http needs an object {\"kind\": \"http\", \"url\", \"model\"}");
    }
    return bad_input("embedder: unknown embedder '" + name +
                     "' (expected none, static[:PATH], glove, transformer:DIR, hashing[:DIM] or an "
                     "object)");
}

/// `base` with the settings of `overrides` (an "options" object) over it.
Result<CatalogOptions> catalog_options_from(json overrides, const CatalogOptions& base) {
    // "threads" is a setting of this process, not of the index: index files do not store it.
    std::size_t threads = base.threads;
    if (auto it = overrides.is_object() ? overrides.find("threads") : overrides.end();
        it != overrides.end()) {
        const auto most = static_cast<std::uint64_t>(find_option("threads")->max);
        if (!it->is_number_unsigned() || it->get<std::uint64_t>() > most) {
            return bad_input("options: 'threads' must be 0 (every core) to " +
                             std::to_string(most));
        }
        threads = it->get<std::size_t>();
        overrides.erase(it);
    }
    json merged = options_to_json(base);
    if (Status s = check_keys(overrides, merged, "options"); !s.ok()) {
        return s;
    }
    merged.merge_patch(overrides);
    auto options = options_from_json(merged);
    if (!options) {
        return bad_input("options: " + options.status().message());
    }
    options->threads = threads;
    return options;
}

}  // namespace

Result<std::shared_ptr<Embedder>> embedder_from_json(const json& spec) {
    if (spec.is_string()) {
        return embedder_from_name(spec.get<std::string>());
    }
    if (!spec.is_object()) {
        return bad_input("embedder must be a name or an object");
    }
    auto kind = text_field(spec, "kind", true);
    if (!kind) {
        return Status{kind.status().code(), "embedder: " + kind.status().message()};
    }
    if (kind.value() == "http") {
        return http_embedder(spec);
    }
    if (kind.value() == "static" || kind.value() == "glove") {
        if (Status s = check_keys(
                spec, {{"kind", nullptr}, {"path", nullptr}, {"idf_power", nullptr}}, "embedder");
            !s.ok()) {
            return s;
        }
        auto path = text_field(spec, "path", false);
        if (!path) {
            return Status{path.status().code(), "embedder: " + path.status().message()};
        }
        std::optional<double> idf_power;
        if (auto it = spec.find("idf_power"); it != spec.end()) {
            if (!it->is_number() || !(it->get<double>() >= 0.0 && it->get<double>() <= 4.0)) {
                return bad_input("embedder: 'idf_power' must be a number in [0, 4]");
            }
            idf_power = it->get<double>();
        }
        return static_embedder(path.value(), kind.value() == "glove", idf_power);
    }
    if (kind.value() == "transformer") {
        if (Status s = check_keys(spec, {{"kind", nullptr}, {"dir", nullptr}}, "embedder");
            !s.ok()) {
            return s;
        }
        auto dir = text_field(spec, "dir", true);
        if (!dir) {
            return Status{dir.status().code(), "embedder: " + dir.status().message()};
        }
        return transformer_embedder(dir.value());
    }
    if (kind.value() == "hashing") {
        if (Status s = check_keys(spec, {{"kind", nullptr}, {"dim", nullptr}}, "embedder");
            !s.ok()) {
            return s;
        }
        auto dim = whole_field(spec, "dim", 256, 1, kMaxEmbedderDim);
        if (!dim) {
            return Status{dim.status().code(), "embedder: " + dim.status().message()};
        }
        return hashing_embedder(dim.value());
    }
    if (kind.value() == "none") {
        return std::shared_ptr<Embedder>();
    }
    return bad_input("embedder: unknown kind '" + kind.value() + "'");
}

Result<CatalogConfig> catalog_config_from_json(std::string_view text_in, bool allow_options) {
    auto parsed = parse_json_object(text_in, "catalog options");
    if (!parsed) {
        return parsed.status();
    }
    const json& j = parsed.value();
    static const json known = {{"embedder", nullptr},
                               {"query_cache", nullptr},
                               {"options", nullptr},
                               {"calibration", nullptr}};
    if (Status s = check_keys(j, known, "catalog options"); !s.ok()) {
        return s;
    }
    CatalogConfig config;
    std::optional<Calibration> calibration;
    std::string calibration_path;
    if (auto it = j.find("calibration"); it != j.end()) {
        if (!allow_options) {
            return bad_input(
                "catalog options: an index file keeps its own fusion settings; give the "
                "\"calibration\" when the index is built");
        }
        if (!it->is_string() || it->get_ref<const std::string&>().empty()) {
            return bad_input(
                "catalog options: \"calibration\" must be the path of a calibration file");
        }
        calibration_path = it->get<std::string>();
        auto read = read_calibration(calibration_path);
        if (!read) {
            return read.status();
        }
        calibration = std::move(read.value());
        // The calibrated settings first: "options" given too override them, as on the CLI.
        config.options.fusion = calibration->fusion;
    }
    if (auto it = j.find("options"); it != j.end()) {
        if (!allow_options) {
            return bad_input(
                "catalog options: an index file keeps its own \"options\"; give them when "
                "the index is built");
        }
        if (!it->is_object()) {
            return bad_input("catalog options: \"options\" must be an object");
        }
        auto options = catalog_options_from(*it, config.options);
        if (!options) {
            return options.status();
        }
        config.options = options.value();
    }
    auto cache = whole_field(j, "query_cache", kDefaultQueryCache, 0, std::uint64_t{1} << 24);
    if (!cache) {
        return cache.status();
    }
    auto embedder = embedder_from_json(j.contains("embedder") ? j["embedder"] : json("static"));
    if (!embedder) {
        return embedder.status();
    }
    config.embedder = std::move(embedder.value());
    if (calibration) {
        // Fitted to one model: the embedder as created must be it.
        const std::string model = config.embedder ? config.embedder->model_id() : "none";
        if (Status s = check_calibration_model(*calibration, model, calibration_path); !s.ok()) {
            return s;
        }
    }
    if (config.embedder && cache.value() > 0) {
        config.embedder = std::make_shared<CachingEmbedder>(
            std::move(config.embedder), static_cast<std::size_t>(cache.value()));
    }
    return config;
}

Mode default_search_mode(bool has_embedder) noexcept {
    return has_embedder ? Mode::hybrid : Mode::bm25;
}

Result<SearchRequest> search_request_from_json(std::string_view text_in, Mode default_mode) {
    auto parsed = parse_json_object(text_in, "search options");
    if (!parsed) {
        return parsed.status();
    }
    const json& j = parsed.value();
    SearchRequest request;
    SearchOptions& options = request.options;
    options.mode = default_mode;
    for (const auto& [key, value] : j.items()) {
        if (key == "top_k" || key == "fetch_k" || key == "embed_timeout_ms") {
            if (!value.is_number_unsigned()) {
                return bad_input("search options: '" + key + "' must be a whole number");
            }
            const auto n = value.get<std::uint64_t>();
            const auto capped = static_cast<std::size_t>(
                std::min<std::uint64_t>(n, std::numeric_limits<std::uint32_t>::max()));
            if (key == "top_k") {
                if (n < 1 || n > SearchOptions::kMaxTopK) {  // refused, as the CLI does
                    return bad_input("search options: 'top_k' must be 1.." +
                                     std::to_string(SearchOptions::kMaxTopK) + " (got " +
                                     std::to_string(n) + ")");
                }
                options.top_k = capped;
            } else if (key == "fetch_k") {
                options.fetch_k = capped;
            } else {
                options.embed_timeout =
                    std::chrono::milliseconds(static_cast<std::int64_t>(capped));
            }
        } else if (key == "max_tokens") {
            if (value.is_null()) {
                continue;
            }
            if (!value.is_number_unsigned() || value.get<std::uint64_t>() < 1 ||
                value.get<std::uint64_t>() > kMaxBudget) {
                return bad_input("search options: 'max_tokens' must be a whole number in 1.." +
                                 std::to_string(kMaxBudget) + " (got " + value.dump() + ")");
            }
            request.max_tokens = static_cast<std::size_t>(value.get<std::uint64_t>());
        } else if (key == "mode") {
            auto mode = value.is_string() ? parse_mode(value.get<std::string>()) : std::nullopt;
            if (!mode) {
                return bad_input(
                    "search options: 'mode' must be \"hybrid\", \"bm25\" or \"dense\"");
            }
            options.mode = *mode;
        } else if (key == "servers") {
            if (value.is_null()) {
                continue;
            }
            if (!value.is_array()) {
                return bad_input("search options: 'servers' must be an array of names or null");
            }
            std::vector<std::string> servers;
            for (const json& name : value) {
                if (!name.is_string()) {
                    return bad_input("search options: 'servers' must hold strings");
                }
                servers.push_back(name.get<std::string>());
            }
            options.servers = std::move(servers);
        } else if (key == "environment") {
            if (value.is_null()) {
                continue;
            }
            if (!value.is_string()) {
                return bad_input("search options: 'environment' must be a string or null");
            }
            options.environment = value.get<std::string>();
        } else if (key == "alternatives") {
            if (value.is_null()) {
                continue;
            }
            if (!value.is_array() || !std::all_of(value.begin(), value.end(), [](const json& v) {
                    return v.is_string();
                })) {
                return bad_input(
                    "search options: 'alternatives' must be an array of strings or null");
            }
            options.alternatives =
                value.get<std::vector<std::string>>();  // count checked by search
        } else if (key == "exact_name_first") {
            if (!value.is_boolean()) {
                return bad_input("search options: 'exact_name_first' must be true or false");
            }
            options.exact_name_first = value.get<bool>();
        } else if (key == "outcome_prior") {
            if (!value.is_boolean()) {
                return bad_input("search options: 'outcome_prior' must be true or false");
            }
            options.outcome_prior = value.get<bool>();
        } else if (key == "rerank") {
            // The path of a re-ranker weights file (read on every search that names it: a few
            // hundred bytes), or null for the fused order.
            if (value.is_null()) {
                options.reranker = nullptr;
                continue;
            }
            if (!value.is_string()) {
                return bad_input(
                    "search options: 'rerank' must be the path of a re-ranker file or null");
            }
            auto model = Reranker::open(value.get<std::string>());
            if (!model) {
                return Status{model.status().code(),
                              "search options: 'rerank': " + model.status().message()};
            }
            options.reranker = std::make_shared<const Reranker>(model.value());
        } else if (key == "auto_k") {
            if (value.is_boolean()) {
                options.auto_k = value.get<bool>();
            } else if (value.is_number() && value.get<double>() > 0.0 &&
                       value.get<double>() <= 1.0) {
                options.auto_k = true;
                options.auto_k_ratio = value.get<double>();
            } else {
                return bad_input(
                    "search options: 'auto_k' must be true, false or a ratio in (0, 1]");
            }
        } else {
            return bad_input("search options: unknown key '" + key + "'");
        }
    }
    if (request.max_tokens != 0 && !j.contains("top_k")) {
        options.top_k = SearchOptions::kMaxTopK;  // the budget decides how many fit
    }
    return request;
}

json hit_to_json(const Hit& hit, bool with_phrasing) {
    json schema = nullptr;
    if (!hit.input_schema.empty()) {
        schema = json::parse(hit.input_schema, nullptr, false);
        if (schema.is_discarded()) {
            schema = hit.input_schema;  // validated on upsert, so only a defensive fallback
        }
    }
    json out{{"name", hit.name},
             {"server", hit.server},
             {"tool", hit.tool},
             {"description", hit.description},
             {"inputSchema", std::move(schema)},
             {"score", hit.score},
             {"bm25_rank", hit.bm25_rank},
             {"dense_rank", hit.dense_rank}};
    if (with_phrasing) {
        out["best_phrasing"] = hit.best_phrasing;
    }
    return out;
}

json search_result_to_json(std::string_view query, const SearchResult& result, bool with_phrasing) {
    json matches = json::array();
    for (const Hit& hit : result.hits) {
        matches.push_back(hit_to_json(hit, with_phrasing));
    }
    json out{{"query", query},
             {"mode", mode_name(result.mode)},
             {"degraded", result.degraded},
             {"catalog_empty", result.catalog_empty},
             {"matches", std::move(matches)}};
    if (result.degraded) {
        out["degraded_reason"] = result.degraded_reason;
    }
    return out;
}

json budgeted_result_to_json(std::string_view query,
                             const SearchResult& result,
                             const BudgetedHits& fitted,
                             bool with_phrasing) {
    json out = search_result_to_json(query, result, with_phrasing);
    json matches = json::array();
    for (const BudgetedHit& b : fitted.hits) {
        json match = hit_to_json(b.hit, with_phrasing);
        json trimmed = json::array();
        if (b.description_trimmed) {
            trimmed.push_back("description");
        }
        if (b.schema_trimmed) {
            trimmed.push_back("inputSchema");
        }
        match["tokens"] = b.tokens;
        match["trimmed"] = std::move(trimmed);
        matches.push_back(std::move(match));
    }
    out["matches"] = std::move(matches);
    out["tokens"] = fitted.tokens;
    out["omitted"] = fitted.omitted;
    return out;
}

json commit_info_to_json(const CommitInfo& info) {
    return {{"generation", info.generation},
            {"servers", info.servers},
            {"tools", info.tools},
            {"embedded", info.embedded},
            {"rendered", info.rendered},
            {"dense_reused", info.dense_reused},
            {"dense_patched", info.dense_patched},
            {"dense_ready", info.dense_ready},
            {"dense_error", info.dense_error},
            {"build_ms", info.build_ms}};
}

json search_stats_to_json(const SearchStats& stats) {
    return {{"searches", stats.searches},
            {"failures", stats.failures},
            {"fallbacks", stats.fallbacks},
            {"fallback_rate", stats.fallback_rate},
            {"p50_ms", stats.p50_ms},
            {"p95_ms", stats.p95_ms},
            {"p99_ms", stats.p99_ms},
            {"max_ms", stats.max_ms}};
}

std::string dump_json(const json& value, int indent) {
    return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

}  // namespace scout::detail

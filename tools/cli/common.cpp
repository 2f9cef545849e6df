// common.cpp: see common.hpp.
#include "cli/common.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <thread>

#include "scout/catalog_loader.hpp"
#include "scout/embedder.hpp"
#include "scout/reranker.hpp"

#include "built_components.hpp"
#if SCOUT_WITH_HTTP
#include "scout/http/http_embedder.hpp"
#endif
#if SCOUT_WITH_TRANSFORMER
#include "scout/transformer/transformer_embedder.hpp"
#endif

#include "args/values.hpp"
#include "cli/command_specs.hpp"
#include "cli/index_options.hpp"
#include "cli/progress.hpp"
#include "document/catalog_parse.hpp"
#include "util/file_io.hpp"

namespace scout::cli {
namespace {

std::optional<std::size_t> parse_size(const std::string& text) {
    std::size_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

/// spec "static" (the shipped model), "static:PATH" (any model or vector file) or "glove".
Result<std::shared_ptr<Embedder>> static_or_none(const std::string& spec,
                                                 const Args& args,
                                                 std::string& why_unavailable) {
    StaticEmbedderOptions options;
    if (auto p = args.get("idf-power")) {
        double value = 0;
        const auto [ptr, ec] = std::from_chars(p->data(), p->data() + p->size(), value);
        if (ec != std::errc() || ptr != p->data() + p->size() || !(value >= 0.0 && value <= 4.0)) {
            return Status{Errc::invalid_argument, "--idf-power needs a number in [0, 4]"};
        }
        options.idf_power = value;
    }
    const std::string path = spec.size() > 7 ? spec.substr(7) : std::string();
    auto loaded = spec == "glove" ? StaticEmbedder::load_glove(options)
                  : path.empty()  ? StaticEmbedder::load_default(options)
                                  : StaticEmbedder::load(path, options);
    if (!loaded) {
        why_unavailable = "static embedding model unavailable: " + loaded.status().message();
        std::cerr << "scout: " << why_unavailable
                  << "; dense search is off, answering with BM25 only\n";
        return std::shared_ptr<Embedder>();
    }
    return std::shared_ptr<Embedder>(loaded.value());
}

Result<std::shared_ptr<Embedder>> make_http_embedder(const Args& args,
                                                     std::string& why_unavailable) {
#if !SCOUT_WITH_HTTP
    (void)args;
    (void)why_unavailable;
    return Status{Errc::invalid_argument, SCOUT_HTTP_LEFT_OUT};
#else
    HttpEmbedderOptions options;
    auto url = args.get("embedder-url");
    auto model = args.get("embedder-model");
    if (!model && args.has("embedder-api-version")) {
        model = std::string();  // Azure: the deployment in the URL names the model
    }
    if (!url || !model) {
        return Status{Errc::invalid_argument,
                      "--embedder http needs --embedder-url URL and --embedder-model NAME"};
    }
    options.base_url = *url;
    options.model = *model;
    if (auto d = args.get("embedder-dimensions")) {
        auto parsed = parse_size(*d);
        if (!parsed || *parsed == 0 || *parsed > 65536) {
            return Status{Errc::invalid_argument, "--embedder-dimensions needs 1 <= N <= 65536"};
        }
        options.dimensions = *parsed;
    }
    options.api_version = args.get("embedder-api-version").value_or("");
    options.headers = args.all("embedder-header");
    options.ca_file = args.get("embedder-ca").value_or("");
    options.allow_cleartext_key = args.has("embedder-allow-cleartext-key");
    if (HttpEmbedder::sends_key_in_cleartext(options) && !options.allow_cleartext_key) {
        return Status{Errc::invalid_argument,
                      "--embedder-url: the API key would go in cleartext over http:// to a host "
                      "that is not loopback; use https://, or --embedder-allow-cleartext-key"};
    }
    auto embedder = HttpEmbedder::create(std::move(options));
    if (!embedder && embedder.status().code() == Errc::unavailable) {
        why_unavailable = "embedding service unavailable: " + embedder.status().message();
        std::cerr << "scout: " << why_unavailable
                  << "; dense search is off, answering with BM25 only\n";
        return std::shared_ptr<Embedder>();
    }
    if (!embedder) {
        return embedder.status();
    }
    return std::shared_ptr<Embedder>(embedder.value());
#endif
}

Result<std::shared_ptr<Embedder>> make_other_embedder(const std::string& spec) {
    if (spec.rfind("transformer:", 0) == 0) {
#if SCOUT_WITH_TRANSFORMER
        TransformerEmbedderOptions options;
        options.threads = std::max(1U, std::thread::hardware_concurrency());
        auto loaded = TransformerEmbedder::load(spec.substr(12), options);
        if (!loaded) {
            return loaded.status();
        }
        return std::shared_ptr<Embedder>(loaded.value());
#else
        return Status{Errc::invalid_argument, SCOUT_TRANSFORMER_LEFT_OUT};
#endif
    }
    if (spec.rfind("hashing", 0) == 0) {
        std::size_t dim = 256;
        if (spec.size() > 7) {
            auto parsed = spec[7] == ':' ? parse_size(spec.substr(8)) : std::nullopt;
            if (!parsed || *parsed == 0 || *parsed > 65536) {
                return Status{Errc::invalid_argument,
                              "--embedder hashing:DIM needs 1 <= DIM <= 65536"};
            }
            dim = *parsed;
        }
        return std::shared_ptr<Embedder>(std::make_shared<HashingEmbedder>(dim));
    }
    return Status{
        Errc::invalid_argument,
        "unknown embedder '" + spec +
            "' (expected static[:PATH], glove, transformer:DIR, http, hashing[:DIM] or none)"};
}

}  // namespace

ParsedCommand parse_command(int argc, char** argv, const CommandSpec& spec, int first) {
    (void)all_specs();  // every table registered, so Args::get knows every declared option
    std::string error;
    ParsedCommand out;
    out.args = Args::parse(argc, argv, first, spec, error);
    if (!out.args) {
        out.exit_code = fail(error + " (see " + spec.name + " --help)");
    } else if (out.args->help()) {
        spec.print_help(std::cout);
        out.args.reset();
        out.exit_code = kExitOk;
    }
    return out;
}

Result<std::shared_ptr<Embedder>> make_embedder(const Args& args, std::string* why_unavailable) {
    const std::string spec = args.get("embedder").value_or("static");
    std::string why;
    Result<std::shared_ptr<Embedder>> out = std::shared_ptr<Embedder>();
    if (spec == "none") {
        return out;
    }
    if (spec == "static" || spec.rfind("static:", 0) == 0 || spec == "glove") {
        out = static_or_none(spec, args, why);
    } else if (spec == "http") {
        out = make_http_embedder(args, why);
    } else {
        return make_other_embedder(spec);
    }
    if (why_unavailable != nullptr) {
        *why_unavailable = std::move(why);
    }
    return out;
}

namespace {

/// --index FILE: a saved index, opened and verified (nothing is re-embedded).
Result<LoadedCatalog> open_index(const std::string& path, std::shared_ptr<MeteredEmbedder> meter) {
    const auto started = std::chrono::steady_clock::now();
    std::vector<std::string> warnings;
    auto catalog = Catalog::open(path, meter, &warnings);
    if (!catalog) {
        return catalog.status();
    }
    for (const std::string& w : warnings) {
        std::cerr << "scout: warning: " << path << ": " << w << "\n";
    }
    LoadedCatalog out;
    out.meter = std::move(meter);
    out.catalog = std::make_unique<Catalog>(std::move(catalog.value()));
    out.searcher = out.catalog->searcher();
    std::set<std::string> servers;
    for (const Hit& h : out.searcher.list_tools()) {
        servers.insert(h.server);
    }
    out.info.generation = out.searcher.generation();
    out.info.servers = servers.size();
    out.info.tools = out.searcher.size();
    out.info.dense_ready = out.searcher.has_dense();
    out.info.dense_error = out.info.dense_ready ? "" : "the index was opened without an embedder";
    out.info.build_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    return out;
}

}  // namespace

Result<LoadedCatalog> build_catalog(const std::string& path,
                                    const CatalogOptions& options,
                                    std::shared_ptr<MeteredEmbedder> meter,
                                    Progress* progress) {
    auto text = detail::read_text_file(path, kMaxCatalogFileBytes);
    if (!text) {
        return text.status();
    }
    detail::ParseProgress parsing;
    if (progress != nullptr && progress->enabled()) {
        const std::string task = "parsing " + std::filesystem::path(path).filename().string();
        parsing = [progress, task](std::size_t done, std::size_t total) {
            progress->update(task, done, total, ProgressUnit::bytes);
        };
    }
    auto spec = detail::parse_catalog_json(text.value(), parsing);
    if (!spec) {
        return Status{spec.status().code(), path + ": " + spec.status().message()};
    }
    text = std::string();  // the catalog's text is not needed while it is indexed
    auto catalog = Catalog::create(options, meter);
    if (!catalog) {
        return catalog.status();
    }
    LoadedCatalog out;
    out.meter = std::move(meter);
    out.catalog = std::make_unique<Catalog>(std::move(catalog.value()));
    if (Status s = out.catalog->upsert_servers(spec.value()); !s.ok()) {
        return Status{s.code(), path + ": " + s.message()};
    }
    auto info =
        out.catalog->commit(progress != nullptr ? progress->commit_callback() : ProgressCallback{});
    if (progress != nullptr) {
        progress->finish();
    }
    if (!info) {
        return info.status();
    }
    out.info = info.value();
    out.searcher = out.catalog->searcher();
    return out;
}

Result<LoadedCatalog> load_catalog(const Args& args, Progress* progress) {
    auto catalog_path = args.get("catalog");
    auto index_path = args.get("index");
    if (catalog_path.has_value() == index_path.has_value()) {
        return Status{Errc::invalid_argument, "give exactly one of --catalog FILE or --index FILE"};
    }
    std::string embedder_unavailable;
    auto embedder = make_embedder(args, &embedder_unavailable);
    if (!embedder) {
        return embedder.status();
    }
    if (auto file = args.get("calibration"); file && !index_path) {
        // The fusion was fitted to one model; another would be fused by the wrong settings.
        auto calibration = read_calibration(*file);
        if (!calibration) {
            return calibration.status();
        }
        const std::string model = embedder.value() ? embedder.value()->model_id() : "none";
        if (Status s = check_calibration_model(*calibration, model, *file); !s.ok()) {
            return s;
        }
    }
    std::shared_ptr<MeteredEmbedder> meter;
    if (embedder.value()) {
        // Repeated queries (eval runs each one per mode) skip the model.
        meter = std::make_shared<MeteredEmbedder>(
            std::make_shared<CachingEmbedder>(embedder.value(), 4096));
    }
    Result<LoadedCatalog> loaded = Status{Errc::internal, "unset"};
    if (index_path) {
        for (const OptionSpec& option : index_option_group().options) {
            if (args.has(option.name)) {
                return Status{Errc::invalid_argument,
                              "--" + option.name +
                                  " is an index setting, stored in the index file; "
                                  "give it to `scout index` instead"};
            }
        }
        loaded = open_index(*index_path, std::move(meter));
    } else {
        auto options = index_options(args);
        if (!options) {
            return options.status();
        }
        loaded = build_catalog(*catalog_path, options.value(), std::move(meter), progress);
    }
    if (!loaded) {
        return loaded.status();
    }
    loaded->embedder_unavailable = std::move(embedder_unavailable);
    if (auto events = args.get("events")) {
        auto sink = JsonLinesSink::open_file(*events);
        if (!sink) {
            return sink.status();
        }
        loaded->catalog->set_event_sink(sink.value());
        loaded->searcher = loaded->catalog->searcher();
    }
    return loaded;
}

Result<SearchOptions> search_options(const Args& args, bool read_mode) {
    SearchOptions options;
    if (auto k = args.get("top-k")) {
        // Refused with the range, never clamped without a word.
        if (std::string refused =
                args::read_whole_into(*k, 1, SearchOptions::kMaxTopK, options.top_k);
            !refused.empty()) {
            return Status{Errc::invalid_argument, "--top-k " + refused};
        }
    }
    if (auto m = args.get("mode"); m && read_mode) {
        auto mode = parse_mode(*m);
        if (!mode) {
            return Status{Errc::invalid_argument, "--mode must be hybrid, bm25 or dense"};
        }
        options.mode = *mode;
    } else if (!m && args.get("embedder") == "none") {
        options.mode = Mode::bm25;
    }
    if (args.has("server")) {
        options.servers = args.all("server");
    }
    if (auto env = args.get("environment")) {
        options.environment = *env;
    }
    if (auto a = args.get("auto-k")) {
        if (*a != "off") {
            options.auto_k = true;
            if (*a != "on") {
                char* end = nullptr;
                const double ratio = std::strtod(a->c_str(), &end);
                if (a->empty() || end != a->c_str() + a->size() || !(ratio > 0.0 && ratio <= 1.0)) {
                    return Status{Errc::invalid_argument,
                                  "--auto-k takes on, off or a ratio in (0, 1]"};
                }
                options.auto_k_ratio = ratio;
            }
        }
    }
    if (auto t = args.get("embed-timeout-ms")) {
        auto parsed = parse_size(*t);
        if (!parsed) {
            return Status{Errc::invalid_argument, "--embed-timeout-ms needs a whole number"};
        }
        options.embed_timeout = std::chrono::milliseconds(*parsed);
    }
    if (auto file = args.get("rerank")) {
        auto model = Reranker::open(*file);
        if (!model) {
            return Status{model.status().code(), "--rerank: " + model.status().message()};
        }
        options.reranker = std::make_shared<const Reranker>(model.value());
    }
    return options;
}

Result<std::vector<float>> MeteredEmbedder::embed(std::span<const std::string> texts) {
    const auto started = std::chrono::steady_clock::now();
    auto out = inner_->embed(texts);
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::steady_clock::now() - started);
    texts_.fetch_add(texts.size());
    nanos_.fetch_add(static_cast<std::uint64_t>(ns.count()));
    return out;
}

void explain_degraded(const LoadedCatalog& loaded, SearchResult& result) {
    if (result.degraded && !loaded.embedder_unavailable.empty()) {
        result.degraded_reason = loaded.embedder_unavailable;
    }
}

int fail(const std::string& message) {
    std::cerr << "scout: " << message << "\n";
    return kExitBadInput;
}

}  // namespace scout::cli

// scout_module.cpp: the compiled half of the Python module `scout` (scout._scout), with pybind11.
// python/scout/__init__.py adds the argument conveniences and the scout.Error hierarchy. The
// GIL is released while the library works (search, commit, save, open), so Python threads
// search in parallel with each other and with a commit. Errors become scout.Error subclasses
// that carry the library's status code; no C++ exception reaches the interpreter otherwise.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "scout/catalog.hpp"
#include "scout/catalog_loader.hpp"
#include "scout/http/http_embedder.hpp"
#include "scout/scout.hpp"
#include "scout/transformer/transformer_embedder.hpp"

#include "capi/doctor_json.hpp"
#include "capi/json_bridge.hpp"
#include "capi/token_budget_json.hpp"
#include "py_values.hpp"

#if SCOUT_PYTHON_REGISTRY
#include "scout/registry/registry.hpp"

#include "registry/registry_json.hpp"
#endif

namespace py = pybind11;

namespace {

using nlohmann::json;
using scout::Errc;
using scout::Status;
using scout_python::copy_containers;
using scout_python::raise_if_error;
using scout_python::registered;
using scout_python::StatusError;
using scout_python::take;
using scout_python::text;
using scout_python::to_python;
using scout_python::utf8_argument;

/// The catalog behind scout.Catalog.
class PyCatalog {
public:
    /// A new catalog, or with `open_path` the catalog of an index file.
    PyCatalog(const std::string& config_json, const std::optional<std::string>& open_path) {
        auto config =
            take(scout::detail::catalog_config_from_json(config_json, !open_path.has_value()));
        default_mode_ = scout::detail::default_search_mode(config.embedder != nullptr);
        if (!open_path) {
            catalog_ = std::make_shared<scout::Catalog>(
                take(scout::Catalog::create(config.options, std::move(config.embedder))));
            return;
        }
        std::optional<scout::Result<scout::Catalog>> opened;
        {
            py::gil_scoped_release release;
            opened.emplace(scout::Catalog::open(*open_path, std::move(config.embedder)));
        }
        catalog_ = std::make_shared<scout::Catalog>(take(std::move(*opened)));
    }

    void upsert_servers_json(const std::string& servers_json) {
        auto spec = take(scout::parse_catalog_json(servers_json));
        raise_if_error(open_catalog()->upsert_servers(spec));
    }

    void upsert_servers_file(const std::string& path) {
        auto spec = take(scout::load_catalog_file(path));
        raise_if_error(open_catalog()->upsert_servers(spec));
    }

    void remove_server(const std::string& server) {
        raise_if_error(open_catalog()->remove_server(server));
    }

    void set_server_status(const std::string& server, const std::string& status) {
        auto parsed = scout::parse_server_status(status);
        if (!parsed) {
            throw StatusError{{Errc::invalid_argument,
                               "unknown server status '" + status +
                                   "' (expected active, degraded, inactive or rejected)"}};
        }
        raise_if_error(open_catalog()->set_server_status(server, *parsed));
    }

    py::object commit() {
        std::optional<scout::Result<scout::CommitInfo>> info;
        const std::shared_ptr<scout::Catalog> catalog = open_catalog();
        {
            py::gil_scoped_release release;
            info.emplace(catalog->commit());
        }
        return to_python(scout::detail::commit_info_to_json(take(std::move(*info))));
    }

    void record_outcome(const py::object& query_object,
                        const std::string& server,
                        const std::string& tool,
                        bool success) {
        const std::string query = utf8_argument(query_object, "query");
        raise_if_error(open_catalog()->record_outcome(
            query, {server, tool}, success ? scout::Outcome::success : scout::Outcome::failure));
    }

    void save(const std::string& path) const {
        Status status;
        const std::shared_ptr<scout::Catalog> catalog = open_catalog();
        {
            py::gil_scoped_release release;
            status = catalog->save(path);
        }
        raise_if_error(status);
    }

    [[nodiscard]] py::object stats() const {
        return to_python(scout::detail::search_stats_to_json(open_catalog()->stats()));
    }

    /// Releases the catalog: later calls raise scout.InvalidArgument. Searches already running
    /// on other threads finish on the catalog they hold.
    void close() { catalog_.reset(); }

    [[nodiscard]] bool closed() const noexcept { return catalog_ == nullptr; }

    [[nodiscard]] py::object search(const py::object& query_object,
                                    std::int64_t top_k,
                                    const std::optional<std::string>& mode,
                                    std::optional<std::vector<std::string>> servers,
                                    std::optional<std::string> environment,
                                    const py::object& auto_k,
                                    std::int64_t embed_timeout_ms,
                                    bool outcome_prior,
                                    std::optional<std::vector<std::string>> alternatives,
                                    std::int64_t max_tokens) {
        const std::string query = utf8_argument(query_object, "query");
        if (max_tokens < 0 || max_tokens > kMaxBudget) {  // 0 = no budget (the package's None)
            throw StatusError{{Errc::invalid_argument,
                               "max_tokens must be a whole number in 1.." +
                                   std::to_string(kMaxBudget) + " (got " +
                                   std::to_string(max_tokens) + ")"}};
        }
        scout::SearchOptions options = search_options(top_k,
                                                      mode.value_or(""),
                                                      std::move(servers),
                                                      std::move(environment),
                                                      auto_k,
                                                      embed_timeout_ms);
        options.outcome_prior = outcome_prior;
        options.alternatives = std::move(alternatives).value_or(std::vector<std::string>{});
        std::optional<scout::Result<scout::SearchResult>> found;
        std::optional<scout::Result<scout::BudgetedHits>> fitted;
        const std::shared_ptr<scout::Catalog> catalog = open_catalog();
        {
            py::gil_scoped_release release;
            found.emplace(catalog->searcher().search(query, options));
            if (max_tokens > 0 && found->ok()) {
                fitted.emplace(scout::detail::budget_hits(found->value().hits,
                                                          static_cast<std::size_t>(max_tokens)));
            }
        }
        const scout::SearchResult result = take(std::move(*found));
        const bool with_phrasing = !options.alternatives.empty();
        py::list hits;
        if (fitted) {
            const scout::BudgetedHits budgeted = take(std::move(*fitted));
            for (const scout::BudgetedHit& b : budgeted.hits) {
                py::dict hit = hit_dict(b.hit, with_phrasing);
                py::list trimmed;
                if (b.description_trimmed) {
                    trimmed.append(py::str("description"));
                }
                if (b.schema_trimmed) {
                    trimmed.append(py::str("inputSchema"));
                }
                hit["tokens"] = py::int_(b.tokens);
                hit["trimmed"] = std::move(trimmed);
                hits.append(std::move(hit));
            }
            py::object out = registered().results(std::move(hits));
            out.attr("tokens") = py::int_(budgeted.tokens);
            out.attr("omitted") = py::int_(budgeted.omitted);
            return describe(std::move(out), query, result);
        }
        for (const scout::Hit& hit : result.hits) {
            hits.append(hit_dict(hit, with_phrasing));
        }
        py::object out = registered().results(std::move(hits));
        out.attr("tokens") = py::none();
        out.attr("omitted") = py::none();
        return describe(std::move(out), query, result);
    }

    /// Sets the attributes that say how a search was answered.
    static py::object describe(py::object out,
                               const std::string& query,
                               const scout::SearchResult& result) {
        out.attr("query") = text(query);
        out.attr("mode") = py::str(scout::mode_name(result.mode).data());
        out.attr("degraded") = py::bool_(result.degraded);
        out.attr("degraded_reason") = text(result.degraded_reason);
        out.attr("catalog_empty") = py::bool_(result.catalog_empty);
        out.attr("generation") = py::int_(result.generation);
        return out;
    }

    /// For the overhead benchmark: nanoseconds of each of `repeats` searches in C++ alone
    /// (a fresh Searcher each, as search() takes), without any conversion to Python objects.
    [[nodiscard]] std::vector<std::int64_t> time_search(const std::string& query,
                                                        std::int64_t top_k,
                                                        const std::string& mode,
                                                        std::size_t repeats) const {
        const scout::SearchOptions options =
            search_options(top_k, mode, std::nullopt, std::nullopt, py::bool_(false), 0);
        std::vector<std::int64_t> out;
        out.reserve(repeats);
        Status failure;
        const std::shared_ptr<scout::Catalog> catalog = open_catalog();
        {
            py::gil_scoped_release release;
            for (std::size_t i = 0; i < repeats && failure.ok(); ++i) {
                const auto started = std::chrono::steady_clock::now();
                auto result = catalog->searcher().search(query, options);
                const auto elapsed = std::chrono::steady_clock::now() - started;
                failure = result.status();
                out.push_back(
                    std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count());
            }
        }
        raise_if_error(failure);
        return out;
    }

protected:
    /// A catalog another owner fills (a registry replica's), shared with that owner.
    PyCatalog(std::shared_ptr<scout::Catalog> catalog, scout::Mode default_mode)
        : catalog_(std::move(catalog)), default_mode_(default_mode) {}

private:
    /// The catalog, shared so that a close() on another thread never frees it mid-call.
    [[nodiscard]] std::shared_ptr<scout::Catalog> open_catalog() const {
        if (!catalog_) {
            throw StatusError{{Errc::invalid_argument, "the catalog is closed"}};
        }
        return catalog_;
    }

    /// `mode` "" is the catalog's default: hybrid with an embedder, bm25 without (scout.h).
    [[nodiscard]] scout::SearchOptions search_options(
        std::int64_t top_k,
        const std::string& mode,
        std::optional<std::vector<std::string>> servers,
        std::optional<std::string> environment,
        const py::object& auto_k,
        std::int64_t embed_timeout_ms) const {
        constexpr auto kMaxTopK = static_cast<std::int64_t>(scout::SearchOptions::kMaxTopK);
        if (top_k < 1 || top_k > kMaxTopK) {  // refused, as the CLI does, never clamped
            throw StatusError{{Errc::invalid_argument,
                               "top_k must be 1.." + std::to_string(kMaxTopK) + " (got " +
                                   std::to_string(top_k) + ")"}};
        }
        if (embed_timeout_ms < 0) {
            throw StatusError{{Errc::invalid_argument, "embed_timeout_ms must not be negative"}};
        }
        scout::SearchOptions options;
        options.top_k = static_cast<std::size_t>(top_k);
        const auto parsed = mode.empty() ? std::optional(default_mode_) : scout::parse_mode(mode);
        if (!parsed) {
            throw StatusError{
                {Errc::invalid_argument,
                 "mode must be \"hybrid\", \"bm25\" or \"dense\", not '" + mode + "'"}};
        }
        options.mode = *parsed;
        options.servers = std::move(servers);
        options.environment = std::move(environment);
        options.embed_timeout = std::chrono::milliseconds(embed_timeout_ms);
        if (PyBool_Check(auto_k.ptr())) {
            options.auto_k = auto_k.cast<bool>();
        } else if (PyFloat_Check(auto_k.ptr()) || PyLong_Check(auto_k.ptr())) {
            const double ratio = auto_k.cast<double>();
            if (!(ratio > 0.0 && ratio <= 1.0)) {
                throw StatusError{
                    {Errc::invalid_argument, "auto_k must be True, False or a ratio in (0, 1]"}};
            }
            options.auto_k = true;
            options.auto_k_ratio = ratio;
        } else {
            throw StatusError{
                {Errc::invalid_argument, "auto_k must be True, False or a ratio in (0, 1]"}};
        }
        return options;
    }

    /// One match, with the keys of `scout search --json` ("best_phrasing" when the search had
    /// alternatives).
    py::dict hit_dict(const scout::Hit& hit, bool with_phrasing) {
        static const auto* keys = new std::array<py::str, 8>{py::str("name"),
                                                             py::str("server"),
                                                             py::str("tool"),
                                                             py::str("description"),
                                                             py::str("inputSchema"),
                                                             py::str("score"),
                                                             py::str("bm25_rank"),
                                                             py::str("dense_rank")};
        py::dict out;
        out[(*keys)[0]] = text(hit.name);
        out[(*keys)[1]] = text(hit.server);
        out[(*keys)[2]] = text(hit.tool);
        out[(*keys)[3]] = text(hit.description);
        out[(*keys)[4]] = schema(hit.input_schema);
        out[(*keys)[5]] = py::float_(static_cast<double>(hit.score));
        out[(*keys)[6]] = py::int_(hit.bm25_rank);
        out[(*keys)[7]] = py::int_(hit.dense_rank);
        if (with_phrasing) {
            out["best_phrasing"] = py::int_(hit.best_phrasing);
        }
        return out;
    }

    /// The parsed input schema. Parsing is the dearest step of a result, so parsed schemas are
    /// cached by their text, and each result gets its own copy of the containers (a caller may
    /// change what it was given). Only touched with the GIL held.
    py::object schema(const std::string& schema_text) {
        if (schema_text.empty()) {
            return py::none();
        }
        auto it = schemas_.find(schema_text);
        if (it == schemas_.end()) {
            if (schemas_.size() >= kMaxCachedSchemas) {
                schemas_.clear();
            }
            json parsed = json::parse(schema_text, nullptr, false);
            py::object value =
                parsed.is_discarded() ? py::object(text(schema_text)) : to_python(parsed);
            it = schemas_.emplace(schema_text, std::move(value)).first;
        }
        PyObject* copy = copy_containers(it->second.ptr());
        if (copy == nullptr) {
            throw py::error_already_set();
        }
        return py::reinterpret_steal<py::object>(copy);
    }

    static constexpr std::size_t kMaxCachedSchemas = 65536;
    /// The largest token budget, as the C ABI's "max_tokens" (json_bridge.cpp).
    static constexpr std::int64_t kMaxBudget = 1000000000;

    std::shared_ptr<scout::Catalog> catalog_;
    scout::Mode default_mode_ = scout::Mode::hybrid;
    std::unordered_map<std::string, py::object> schemas_;
};

#if SCOUT_PYTHON_REGISTRY
/// A replica that has caught up with its registry once and follows it, and the mode of its
/// searches that name none.
struct OpenedReplica {
    std::shared_ptr<scout::registry::Replica> replica;
    scout::Mode default_mode = scout::Mode::hybrid;
};

OpenedReplica open_replica(const std::string& url,
                           const std::string& config_json,
                           const std::string& registry_json) {
    raise_if_error(scout::registry::check_url(url));
    scout::registry::ReplicaOptions options;
    options.connect.url = url;
    const json registry = json::parse(registry_json, nullptr, false);
    if (registry.is_discarded()) {
        throw StatusError{{Errc::invalid_argument, "registry options are not JSON"}};
    }
    raise_if_error(scout::registry::replica_options_from_json(registry, options));
    auto config = take(scout::detail::catalog_config_from_json(config_json, true));
    options.catalog = config.options;
    const bool has_embedder = config.embedder != nullptr;
    std::shared_ptr<scout::registry::Replica> replica =
        take(scout::registry::Replica::create(options, std::move(config.embedder)));
    Status synced;
    {
        py::gil_scoped_release release;
        synced = replica->sync();
    }
    raise_if_error(synced);
    replica->start();
    return {std::move(replica), scout::detail::default_search_mode(has_embedder)};
}

/// The replica behind scout.Replica: searched as a catalog, written only by the registry.
class PyReplica : public PyCatalog {
public:
    PyReplica(const std::string& url,
              const std::string& config_json,
              const std::string& registry_json)
        : PyReplica(open_replica(url, config_json, registry_json)) {}

    [[nodiscard]] py::object status() const {
        return to_python(scout::registry::replica_stats_to_json(open_replica_handle()->stats()));
    }

    /// Read-your-writes: true once change `seq` is applied here, false after `timeout_ms`.
    [[nodiscard]] bool wait_for(std::uint64_t seq, std::int64_t timeout_ms) const {
        if (timeout_ms < 0 || timeout_ms > kMaxWaitMs) {
            throw StatusError{{Errc::invalid_argument,
                               "timeout_ms must be 0.." + std::to_string(kMaxWaitMs) + " (got " +
                                   std::to_string(timeout_ms) + ")"}};
        }
        const auto replica = open_replica_handle();
        py::gil_scoped_release release;
        return replica->wait_for(seq, std::chrono::milliseconds(timeout_ms));
    }

    /// Learning shared by the fleet (Replica::record_outcome): queued here, appended to the
    /// registry by the follower, and learned by every replica from the registry.
    void record_outcome(const py::object& query_object,
                        const std::string& server,
                        const std::string& tool,
                        bool success) {
        const std::string query = utf8_argument(query_object, "query");
        raise_if_error(open_replica_handle()->record_outcome(
            query, {server, tool}, success ? scout::Outcome::success : scout::Outcome::failure));
    }

    /// Stops following the registry; the memory goes once no search is using it.
    void close() {
        replica_.reset();
        PyCatalog::close();
    }

private:
    static constexpr std::int64_t kMaxWaitMs = 600000;

    explicit PyReplica(OpenedReplica opened)
        : PyCatalog(std::shared_ptr<scout::Catalog>(opened.replica, &opened.replica->catalog()),
                    opened.default_mode),
          replica_(std::move(opened.replica)) {}

    [[nodiscard]] std::shared_ptr<scout::registry::Replica> open_replica_handle() const {
        if (!replica_) {
            throw StatusError{{Errc::invalid_argument, "the replica is closed"}};
        }
        return replica_;
    }

    std::shared_ptr<scout::registry::Replica> replica_;
};
#endif

void translate(std::exception_ptr error) {
    try {
        if (error) {
            std::rethrow_exception(error);
        }
    } catch (const StatusError& e) {
        const auto code = static_cast<int>(e.status.code());
        py::object type = registered().errors.contains(py::int_(code))
                              ? py::object(registered().errors[py::int_(code)])
                              : py::reinterpret_borrow<py::object>(PyExc_RuntimeError);
        py::object exception = type(text(e.status.message()));
        PyErr_SetObject(type.ptr(), exception.ptr());
    }
}

}  // namespace

PYBIND11_MODULE(_scout, m) {
    m.doc() = "scout's compiled core; use the package `scout`.";
    py::register_exception_translator(&translate);
    // The module offers every embedder: the components are linked in, and registered here.
    scout::register_http_embedder();
    scout::register_transformer_embedder();

    m.attr("MAX_TOP_K") = py::int_(scout::SearchOptions::kMaxTopK);
    m.def(
        "version",
        [] { return std::string(scout::version()); },
        "The library version, \"major.minor.patch\".");
    m.def(
        "_register",
        [](py::dict errors, py::object results) {
            registered().errors = std::move(errors);
            registered().results = std::move(results);
        },
        "Called once by the package: the error class of each status code, and SearchResults.");
    m.def(
        "_status_names",
        [] {
            py::dict out;
            for (int code = static_cast<int>(Errc::invalid_argument);
                 code <= static_cast<int>(Errc::internal);
                 ++code) {
                out[py::int_(code)] = py::str(scout::errc_name(static_cast<Errc>(code)).data());
            }
            return out;
        },
        "Status code -> its stable name.");

    m.def(
        "_doctor",
        [](const std::string& servers_json, const std::string& config_json) {
            std::optional<scout::Result<std::string>> report;
            {
                py::gil_scoped_release release;
                report.emplace(scout::detail::doctor_json(servers_json, config_json));
            }
            return take(std::move(*report));
        },
        py::arg("servers_json"),
        py::arg("config_json"),
        "scout.doctor's core: the report's JSON text. Releases the GIL.");

    py::class_<PyCatalog>(m, "Catalog")
        .def(py::init<const std::string&, const std::optional<std::string>&>(),
             py::arg("config_json"),
             py::arg("open_path") = py::none())
        .def("_upsert_servers_json", &PyCatalog::upsert_servers_json, py::arg("servers_json"))
        .def("_upsert_servers_file", &PyCatalog::upsert_servers_file, py::arg("path"))
        .def("remove_server",
             &PyCatalog::remove_server,
             py::arg("server"),
             "Stages the removal of a server (scout.NotFound when unknown).")
        .def("set_server_status",
             &PyCatalog::set_server_status,
             py::arg("server"),
             py::arg("status"),
             "Stages a server's status: active, degraded, inactive or rejected.")
        .def("commit",
             &PyCatalog::commit,
             "Builds and publishes the staged catalog; returns what was done. Releases the GIL.")
        .def("save",
             &PyCatalog::save,
             py::arg("path"),
             "Writes the committed catalog to an index file atomically. Releases the GIL.")
        .def("record_outcome",
             &PyCatalog::record_outcome,
             py::arg("query"),
             py::arg("server"),
             py::arg("tool"),
             py::arg("success") = true,
             "Learning from executions: `tool` of `server` ran for `query` and succeeded or "
             "failed; searches with outcome_prior=True use it.")
        .def("stats", &PyCatalog::stats, "Search counts and latency percentiles since creation.")
        .def("_search",
             &PyCatalog::search,
             py::arg("query"),
             py::arg("top_k") = 5,
             py::arg("mode") = py::none(),
             py::arg("servers") = py::none(),
             py::arg("environment") = py::none(),
             py::arg("auto_k") = false,
             py::arg("embed_timeout_ms") = 0,
             py::arg("outcome_prior") = false,
             py::arg("alternatives") = py::none(),
             py::arg("max_tokens") = 0,
             "Catalog.search's core (the package checks the keywords). Releases the GIL.")
        .def("close",
             &PyCatalog::close,
             "Releases the catalog's memory now; later calls raise scout.InvalidArgument.")
        .def_property_readonly("closed", &PyCatalog::closed, "True after close().")
        .def("_time_search",
             &PyCatalog::time_search,
             py::arg("query"),
             py::arg("top_k"),
             py::arg("mode"),
             py::arg("repeats"));

#if SCOUT_PYTHON_REGISTRY
    py::class_<PyReplica>(m, "Replica")
        .def(py::init<const std::string&, const std::string&, const std::string&>(),
             py::arg("url"),
             py::arg("config_json"),
             py::arg("registry_json"))
        .def("status",
             &PyReplica::status,
             "The replica's position: applied_seq, head_seq, lag, counters, degraded_served.")
        .def("_wait_for",
             &PyReplica::wait_for,
             py::arg("seq"),
             py::arg("timeout_ms"),
             "Replica.wait_for's core. Releases the GIL.")
        .def("record_outcome",
             &PyReplica::record_outcome,
             py::arg("query"),
             py::arg("server"),
             py::arg("tool"),
             py::arg("success") = true,
             "Learning shared by the fleet: `tool` of `server` ran for `query` and succeeded or "
             "failed. Queued, appended to the registry, and learned by every replica (this one "
             "included) when it comes back through the registry; never waits for the registry "
             "(over the queue's bound or the rate cap it is dropped and counted in status()).")
        .def("stats", &PyCatalog::stats, "Search counts and latency percentiles since creation.")
        .def("_search",
             &PyCatalog::search,
             py::arg("query"),
             py::arg("top_k") = 5,
             py::arg("mode") = py::none(),
             py::arg("servers") = py::none(),
             py::arg("environment") = py::none(),
             py::arg("auto_k") = false,
             py::arg("embed_timeout_ms") = 0,
             py::arg("outcome_prior") = false,
             py::arg("alternatives") = py::none(),
             py::arg("max_tokens") = 0,
             "Replica.search's core (the package checks the keywords). Releases the GIL.")
        .def("close",
             &PyReplica::close,
             "Stops following the registry and releases the catalog; later calls raise "
             "scout.InvalidArgument.")
        .def_property_readonly(
            "closed", [](const PyReplica& r) { return r.closed(); }, "True after close().");
#endif
}

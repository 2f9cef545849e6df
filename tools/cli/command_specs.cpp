// command_specs.cpp: see command_specs.hpp.
#include "cli/command_specs.hpp"

#include <sstream>
#include <string>

#include "scout/types.hpp"

#include "built_components.hpp"
#include "cli/index_options.hpp"
#include "eval/synthetic_catalog.hpp"

namespace scout::cli {
namespace {

OptionGroup source_group() {
    return {"catalog",
            {{"catalog", "FILE", "", "catalog JSON file to index (give --catalog or --index)"},
             {"index",
              "FILE",
              "",
              "index file written by `scout index`: opened as it is, nothing re-embedded"},
             {"events", "FILE", "", "append search events to FILE as JSON lines"}}};
}

OptionGroup embedder_group() {
    return {"embedder",
            {{"embedder",
              "SPEC",
              "static",
              "dense-branch embedder: static[:PATH] (scout's trained model, "
              "data/scout-static-256d.swm, or any model or vector file at PATH; BM25 only, with a "
              "note, when the model is missing), glove (100-d GloVe in ~/.cache/scout), "
              "transformer:DIR (a BERT-family sentence encoder run in process, see "
              "scripts/fetch-model.sh), http (an OpenAI-compatible service), hashing[:DIM] "
              "(tests) or none (BM25 only)" SCOUT_LEFT_OUT_HELP_NOTE},
             {"idf-power",
              "P",
              "the model's own (0.5 for scout's model, 1 for plain vectors)",
              "static models: word weights x catalog IDF^P, P in [0, 4]"},
             {"embedder-url",
              "URL",
              "",
              "with --embedder http: the service's base URL, https:// or http://; requests go "
              "to URL/embeddings (OpenAI: https://api.openai.com/v1; Azure OpenAI: "
              "https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT). The key comes "
              "from $SCOUT_EMBEDDER_API_KEY, else $OPENAI_API_KEY (Azure: $AZURE_OPENAI_API_KEY); "
              "proxies from $HTTPS_PROXY and $NO_PROXY"},
             {"embedder-model",
              "NAME",
              "",
              "with --embedder http: the model name of each request (Azure: the deployment)"},
             {"embedder-dimensions",
              "N",
              "learned from one probe request",
              "with --embedder http: ask the service for N dimensions"},
             {"embedder-api-version",
              "V",
              "",
              "with --embedder http: Azure OpenAI's api-version (sends ?api-version=V and the "
              "key as an api-key header instead of a bearer token)"},
             {"embedder-header",
              "'NAME: VALUE'",
              "",
              "with --embedder http: an extra request header, e.g. another provider's key",
              true},
             {"embedder-ca",
              "FILE",
              "$SCOUT_CA_BUNDLE, else the system's CA bundle",
              "with --embedder http: PEM file of the certificate authorities trusted for https"},
             {"embedder-allow-cleartext-key",
              "",
              "",
              "with --embedder http: send the key over plain http to a host that is not loopback "
              "(refused otherwise)"}}};
}

OptionGroup search_group(bool eval) {
    const SearchOptions d;
    std::ostringstream ratio;
    ratio << d.auto_k_ratio;
    return {"search",
            {{"top-k",
              "K",
              std::to_string(d.top_k),
              "number of results, 1.." + std::to_string(SearchOptions::kMaxTopK)},
             {"mode",
              eval ? "hybrid|bm25|dense|all" : "hybrid|bm25|dense",
              std::string(mode_name(d.mode)),
              eval ? "retrieval branches to run; all evaluates each mode in turn"
                   : "retrieval branches to run"},
             {"server", "NAME", "every active server", "search only this server's tools", true},
             {"environment",
              "LABEL",
              "any",
              "search only servers with this environment label (prod, dev, ...)"},
             {"auto-k",
              "off|on|RATIO",
              "off",
              "automatic result count: keep the leading hits whose min-max normalized score is "
              "at least RATIO (on = " +
                  ratio.str() + ")"},
             {"embed-timeout-ms",
              "MS",
              "0, no limit",
              "give up on the query embedding after MS milliseconds and answer with BM25"},
             {"rerank",
              "FILE",
              "off",
              eval ? "also evaluate hybrid search re-ranked by this learned re-ranker (e.g. "
                     "data/scout-reranker.txt); with --mode hybrid, only that"
                   : "order the fused candidates by this learned re-ranker (e.g. "
                     "data/scout-reranker.txt)"}}};
}

OptionSpec json_option(std::string help) {
    return {"json", "", "", std::move(help)};
}

OptionSpec quiet_option() {
    return {"quiet",
            "",
            "",
            "no progress on stderr (by default a line redrawn with rate and ETA on a terminal, "
            "one line per phase otherwise)"};
}

}  // namespace

const CommandSpec& search_spec() {
    static const CommandSpec spec = [] {
        CommandSpec s{"scout search",
                      "QUERY...",
                      "Index a catalog (or open an index file) and print the tools that best match "
                      "QUERY, with their input schemas.",
                      {source_group(),
                       embedder_group(),
                       search_group(false),
                       index_option_group(),
                       {"multi-query",
                        {{"alt",
                          "PHRASING",
                          "",
                          "another phrasing of the query, searched and fused with it by calibrated "
                          "score; each hit shows its best phrasing",
                          true}}},
                       {"output",
                        {json_option("print the result as JSON (the format of the C ABI and the "
                                     "Python module)"),
                         quiet_option()}}}};
        return s;
    }();
    static const bool done = (register_command(spec), true);
    (void)done;
    return spec;
}

const CommandSpec& doctor_spec() {
    static const CommandSpec spec = [] {
        CommandSpec s{
            "scout doctor",
            "",
            "Examine a catalog file: findings per tool and server (each with a fix), the "
            "rate at which each tool is found by its own description, and a score per "
            "server.",
            {{"catalog",
              {{"catalog", "FILE", "", "catalog JSON file to examine; required"},
               {"events", "FILE", "", "append search events to FILE as JSON lines"}}},
             embedder_group(),
             search_group(false),
             index_option_group(),
             {"output",
              {json_option("print the report as JSON"),
               {"fail-on",
                "error|warning|never",
                "never",
                "exit with code 1 when a finding is this severe or worse (to gate CI)"}}}}};
        return s;
    }();
    static const bool done = (register_command(spec), true);
    (void)done;
    return spec;
}

const CommandSpec& eval_spec() {
    static const CommandSpec spec = [] {
        CommandSpec s{"scout eval",
                      "",
                      "Run labelled queries against a catalog and print retrieval quality (Hit@k, "
                      "MRR, recall, nDCG) and latency per mode.",
                      {source_group(),
                       embedder_group(),
                       search_group(true),
                       index_option_group(),
                       {"evaluation",
                        {{"queries", "FILE", "", "labelled queries (JSON); required"},
                         {"ranks",
                          "FILE",
                          "",
                          "write one JSON line per query: the rank of its first relevant tool, "
                          "and the top hit"},
                         {"rerank-candidates",
                          "FILE",
                          "",
                          "write every evaluable query's fused hybrid candidates with their "
                          "re-ranker features and relevance, one line each (the training data of "
                          "training/train_reranker.py)"},
                         {"rerank-depth",
                          "N",
                          "",
                          "with --rerank-candidates: only each query's first N fused candidates, "
                          "their features computed over those N, as a re-ranker of depth N reads "
                          "them"}}},
                       {"output", {json_option("print the report as JSON"), quiet_option()}}}};
        return s;
    }();
    static const bool done = (register_command(spec), true);
    (void)done;
    return spec;
}

const CommandSpec& index_spec() {
    static const CommandSpec spec = [] {
        CommandSpec s{
            "scout index",
            "",
            "Index a catalog once and save it (docs/FORMAT.md), so that `search "
            "--index` and `eval --index` start without re-embedding.",
            {{"files",
              {{"catalog", "FILE", "", "catalog JSON file to index; required"},
               {"out",
                "INDEX",
                "",
                "index file to write, atomically (temporary file, then rename); required. A "
                "symbolic link is kept and the file it points to is replaced; a directory, FIFO "
                "or device is refused"}}},
             embedder_group(),
             index_option_group(),
             {"output", {json_option("print what was written as JSON"), quiet_option()}}}};
        return s;
    }();
    static const bool done = (register_command(spec), true);
    (void)done;
    return spec;
}

const CommandSpec& calibrate_spec() {
    static const CommandSpec spec = [] {
        CommandSpec s{
            "scout calibrate",
            "",
            "Fit the fusion settings to an embedder on the labelled training sets (one folder "
            "per source, each with catalog.json and queries.json), validated leave-one-source-"
            "out, and write them as a calibration file for `scout index --calibration FILE`.",
            {{"calibration",
              {{"training",
                "DIR",
                "$SCOUT_TRAINING, else ../shared/training from the working directory",
                "the training sets: every sub-folder with catalog.json and queries.json"},
               {"queries-per-source",
                "N",
                "500",
                "a seeded sample of at most N labelled queries per source (0 = all)"},
               {"seed", "N", "42", "seed of the query sample"},
               {"out", "FILE", "standard output", "where to write the calibration file"}}},
             embedder_group(),
             {"output", {quiet_option()}}}};
        return s;
    }();
    static const bool done = (register_command(spec), true);
    (void)done;
    return spec;
}

const CommandSpec& tokens_spec() {
    static const CommandSpec spec = [] {
        CommandSpec s{"scout tokens",
                      "",
                      "Count the BPE tokens of a file's text, as an LLM would see it (rank files "
                      "from scripts/fetch.d/20-tokenizer.sh).",
                      {{"tokens",
                        {{"encoding", "NAME", "cl100k_base", "cl100k_base or o200k_base"},
                         {"file", "FILE", "", "the text to count; required"}}},
                       {"output", {json_option("print the count as JSON")}}}};
        return s;
    }();
    static const bool done = (register_command(spec), true);
    (void)done;
    return spec;
}

const CommandSpec& options_spec() {
    static const CommandSpec spec = [] {
        CommandSpec s{"scout options",
                      "",
                      "List every index setting: its key (for --option and the C ABI's JSON "
                      "options), values, default and meaning.",
                      {{"output", {{"markdown", "", "", "print the table docs/FORMAT.md holds"}}}}};
        return s;
    }();
    static const bool done = (register_command(spec), true);
    (void)done;
    return spec;
}

const CommandSpec& synth_spec() {
    static const CommandSpec spec = [] {
        const eval::SyntheticOptions d;
        CommandSpec s{
            "scout synth",
            "",
            "Grow a catalog with seeded synthetic variants of its servers, and write it as "
            "catalog JSON.",
            {{"synthesis",
              {{"catalog",
                "FILE",
                "the bundled enterprise_catalog.json (share/scout)",
                "the catalog to grow"},
               {"seed", "N", std::to_string(d.seed), "seed of the generator"},
               {"servers", "N", std::to_string(d.servers), "servers in total, the base's included"},
               {"tools", "N", std::to_string(d.tools), "tools in total, the base's included"},
               {"out", "FILE", "standard output", "where to write the catalog"}}},
             {"output", {json_option("with --out, print a summary of what was written as JSON")}}}};
        return s;
    }();
    static const bool done = (register_command(spec), true);
    (void)done;
    return spec;
}

const CommandSpec& registry_spec() {
    static const CommandSpec spec = [] {
        const RegistryDefaults d;
        CommandSpec s{
            "scout registry",
            "init | status | push CATALOG | gc | publish",
            "Share one catalog between scout processes through PostgreSQL (docs/scale-out.md): "
            "init creates or migrates the schema, status describes the registry, push writes a "
            "catalog file into it (only changed servers, only documents not embedded yet), gc "
            "trims the change log, drops the vectors of older models and (with --base-dir) removes "
            "superseded bases, publish writes the "
            "catalog as a base index file replicas start from (--base-dir). The "
            "password comes from PGPASSWORD, PGPASSFILE or --password-file, never the URL.",
            {{"registry",
              {{"registry", "URL", "", "the registry, a libpq URI or key=value string; required"},
               {"password-file", "FILE", "", "read the password from the first line of FILE"},
               {"connect-timeout-ms", "MS", std::to_string(d.connect_ms), "bound on connecting"},
               {"statement-timeout-ms",
                "MS",
                std::to_string(d.statement_ms),
                "bound on each statement"},
               {"remove-missing",
                "",
                "",
                "push: remove servers the catalog file does not list (it is a full listing)"},
               {"keep-changes",
                "N",
                std::to_string(d.keep_changes),
                "gc: the most recent changes kept in the log (a replica further behind reads "
                "the whole registry once)"},
               {"base-dir",
                "DIR",
                "",
                "publish: the directory base files are written to, shared with the replicas; "
                "gc: remove the superseded bases from it"},
               {"keep-bases",
                "N",
                "2",
                "gc with --base-dir: the newest published bases kept (the newest one always)"}}},
             embedder_group(),
             {"output", {json_option("print the result as JSON")}}}};
        return s;
    }();
    static const bool done = (register_command(spec), true);
    (void)done;
    return spec;
}

const std::vector<const CommandSpec*>& all_specs() {
    static const std::vector<const CommandSpec*> specs{&search_spec(),
                                                       &eval_spec(),
                                                       &index_spec(),
                                                       &calibrate_spec(),
                                                       &tokens_spec(),
                                                       &options_spec(),
                                                       &synth_spec(),
                                                       &doctor_spec(),
                                                       &registry_spec()};
    return specs;
}

}  // namespace scout::cli

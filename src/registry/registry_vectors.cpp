// registry_vectors.cpp: look up, fetch what is missing, embed the rest, remember what was
// embedded so a push can store it.
#include "registry/registry_vectors.hpp"

#include <algorithm>

#include "registry/row_codec.hpp"

namespace scout::detail {

std::string RegistryVectors::model_id() const {
    {
        std::lock_guard lock(mutex_);
        if (!pinned_.empty()) {
            return pinned_;
        }
    }
    return inner_->model_id();
}

void RegistryVectors::fit(std::span<const std::string> corpus) {
    if (pinned().empty()) {
        inner_->fit(corpus);
    }
}

bool RegistryVectors::restore_fitted_state(std::string_view state) {
    return pinned().empty() && inner_->restore_fitted_state(state);
}

bool RegistryVectors::pin(const std::string& model_id, const std::string& state) {
    if (pinned() == model_id) {
        return true;
    }
    if (inner_->model_id() != model_id &&
        !(inner_->restore_fitted_state(state) && inner_->model_id() == model_id)) {
        return false;
    }
    std::lock_guard lock(mutex_);
    pinned_ = model_id;
    table_.clear();
    return true;
}

std::string RegistryVectors::pinned() const {
    std::lock_guard lock(mutex_);
    return pinned_;
}

void RegistryVectors::add(std::string hash, std::vector<float> vector) {
    std::lock_guard lock(mutex_);
    table_.insert_or_assign(std::move(hash), std::move(vector));
}

std::vector<std::pair<std::string, std::vector<float>>> RegistryVectors::take_embedded() {
    std::lock_guard lock(mutex_);
    return std::exchange(embedded_, {});
}

Result<std::vector<float>> RegistryVectors::embed(std::span<const std::string> texts) {
    const std::size_t d = dim();
    std::vector<float> out(texts.size() * d);
    std::vector<std::string> hashes(texts.size());
    std::vector<std::size_t> missing;
    auto lookup = [&](std::size_t i) {
        const auto it = table_.find(hashes[i]);
        if (it == table_.end() || it->second.size() != d) {
            return false;
        }
        std::copy(
            it->second.begin(), it->second.end(), out.begin() + static_cast<std::ptrdiff_t>(i * d));
        return true;
    };
    {
        std::lock_guard lock(mutex_);
        for (std::size_t i = 0; i < texts.size(); ++i) {
            hashes[i] = content_hash(texts[i]);
            if (!lookup(i)) {
                missing.push_back(i);
            }
        }
    }
    if (!missing.empty() && fetcher_) {
        std::vector<std::string> wanted;
        wanted.reserve(missing.size());
        for (const std::size_t i : missing) {
            wanted.push_back(hashes[i]);
        }
        auto found = fetcher_(model_id(), wanted);
        std::lock_guard lock(mutex_);
        for (auto& [hash, vector] : found) {
            table_.insert_or_assign(std::move(hash), std::move(vector));
        }
        std::erase_if(missing, [&](std::size_t i) { return lookup(i); });
    }
    reused_count_ += texts.size() - missing.size();
    if (missing.empty()) {
        return out;
    }
    std::vector<std::string> rest;
    rest.reserve(missing.size());
    for (const std::size_t i : missing) {
        rest.push_back(texts[i]);
    }
    auto embedded = inner_->embed(rest);
    if (!embedded.ok()) {
        return embedded.status();
    }
    if (embedded->size() != rest.size() * d) {
        return Status{Errc::dimension_mismatch, "embedder returned vectors of the wrong size"};
    }
    if (!keep_embedded_) {
        for (std::size_t k = 0; k < missing.size(); ++k) {
            std::copy_n(embedded->begin() + static_cast<std::ptrdiff_t>(k * d),
                        d,
                        out.begin() + static_cast<std::ptrdiff_t>(missing[k] * d));
        }
        return out;
    }
    std::lock_guard lock(mutex_);
    for (std::size_t k = 0; k < missing.size(); ++k) {
        const auto first = embedded->begin() + static_cast<std::ptrdiff_t>(k * d);
        std::vector<float> vector(first, first + static_cast<std::ptrdiff_t>(d));
        std::copy(vector.begin(),
                  vector.end(),
                  out.begin() + static_cast<std::ptrdiff_t>(missing[k] * d));
        embedded_.emplace_back(hashes[missing[k]], vector);
        table_.insert_or_assign(hashes[missing[k]], std::move(vector));
    }
    return out;
}

}  // namespace scout::detail

// dense_branch.cpp: see dense_branch.hpp.
#include "search/dense_branch.hpp"

#include "dense/dense_index.hpp"
#include "search/query_embedding.hpp"

namespace scout::detail {
namespace {

Result<std::vector<float>> given_query_vector(std::span<const float> given, std::size_t dim) {
    std::vector<float> v(given.begin(), given.end());
    if (v.size() != dim) {
        return Status{Errc::dimension_mismatch,
                      "query vector has " + std::to_string(v.size()) +
                          " components, the index has " + std::to_string(dim)};
    }
    if (!normalize(v.data(), dim)) {
        return Status{Errc::invalid_argument, "query vector is zero or not finite"};
    }
    return v;
}

}  // namespace

Result<DenseOutcome> run_dense_branch(const Snapshot& snap,
                                      const std::shared_ptr<Embedder>& embedder,
                                      const DenseQuery& query,
                                      std::size_t fetch,
                                      const Bitset* filter,
                                      std::vector<ScoredDoc>& out) {
    if (!snap.dense) {
        return DenseOutcome{
            snap.dense_error.empty() ? std::string("no dense index") : snap.dense_error, {}};
    }
    const std::size_t dim = snap.dense->vectors().dim();
    if (query.given_vector != nullptr) {
        auto vec = given_query_vector(*query.given_vector, dim);
        if (!vec) {
            return vec.status();
        }
        snap.dense->search(vec->data(), fetch, filter, out);
        return DenseOutcome{};
    }
    auto vec = embed_query(embedder, std::string(query.text), query.embed_timeout);
    if (vec && vec->size() != dim) {
        vec = Status{Errc::embedder_mismatch, "embedder dimension differs from the index"};
    }
    if (!vec && vec.status().code() == Errc::not_found) {
        return DenseOutcome{{}, vec.status().message()};
    }
    if (!vec) {
        return DenseOutcome{vec.status().to_string(), {}};
    }
    snap.dense->search(vec->data(), fetch, filter, out);
    return DenseOutcome{};
}

}  // namespace scout::detail

// dense_test.cpp: exact flat search against brute force; HNSW recall against flat.
#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <set>
#include <span>
#include <string>

#include <catch2/catch.hpp>

#include "dense/dense_index.hpp"

using scout::detail::ScoredDoc;
using scout::detail::VectorStore;

namespace {

std::shared_ptr<VectorStore> random_store(std::size_t n, std::size_t dim, std::uint32_t seed) {
    scout::detail::PodVector<float> rows(n * dim);
    std::mt19937 rng(seed);
    std::normal_distribution<float> g(0.0f, 1.0f);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t d = 0; d < dim; ++d) {
            rows[i * dim + d] = g(rng);
        }
        REQUIRE(scout::detail::normalize(rows.data() + i * dim, dim));
    }
    return std::make_shared<VectorStore>(dim, std::move(rows));
}

std::vector<float> random_query(std::size_t dim, std::uint32_t seed) {
    const auto store = random_store(1, dim, seed);
    return {store->row(0), store->row(0) + dim};
}

}  // namespace

TEST_CASE("a patched vector store shares the chunks no changed row lies in", "[dense]") {
    constexpr std::size_t kDim = 8;
    constexpr std::size_t kRows = 2 * VectorStore::kChunkRows + 100;  // a partial last chunk
    const auto before = random_store(kRows, kDim, 7);
    const auto fresh = random_store(kRows, kDim, 8);
    // First row of chunk 0, last row of the store, and two rows of the last chunk.
    const std::vector<std::size_t> changed{0, kRows - 100, kRows - 2, kRows - 1};
    const VectorStore after =
        VectorStore::patched(*before, changed, [&](std::size_t i) { return fresh->row(i); });
    REQUIRE(after.size() == kRows);
    REQUIRE(after.dim() == kDim);
    REQUIRE(after.bytes() == before->bytes());
    for (std::size_t i = 0; i < kRows; ++i) {
        const bool is_changed = std::find(changed.begin(), changed.end(), i) != changed.end();
        const float* expected = is_changed ? fresh->row(i) : before->row(i);
        REQUIRE(std::equal(expected, expected + kDim, after.row(i)));
    }
    // The middle chunk is the same memory; the changed ones are copies; `before` is untouched.
    CHECK(after.row(VectorStore::kChunkRows) == before->row(VectorStore::kChunkRows));
    CHECK(after.row(1) != before->row(1));
    CHECK(after.row(kRows - 1) != before->row(kRows - 1));
    const auto original = random_store(kRows, kDim, 7);
    CHECK(std::equal(original->row(0), original->row(0) + kDim, before->row(0)));
    // The runs cover every row in order.
    std::vector<float> all;
    after.for_each_run(
        [&](std::span<const float> run) { all.insert(all.end(), run.begin(), run.end()); });
    REQUIRE(all.size() == kRows * kDim);
    CHECK(std::equal(all.begin() + static_cast<std::ptrdiff_t>((kRows - 1) * kDim),
                     all.end(),
                     fresh->row(kRows - 1)));
    // Nothing changed: every chunk shared.
    const VectorStore same = VectorStore::patched(*before, {}, [](std::size_t) { return nullptr; });
    CHECK(same.row(0) == before->row(0));
}

TEST_CASE("a vector store rejects rows that are not whole rows of its dimension", "[dense]") {
    CHECK_THROWS_AS(VectorStore(3, scout::detail::PodVector<float>(7)), std::invalid_argument);
    CHECK_THROWS_AS(VectorStore(0, scout::detail::PodVector<float>(2)), std::invalid_argument);
    CHECK(VectorStore(0, scout::detail::PodVector<float>()).empty());
}

TEST_CASE("flat search equals brute force, with and without a filter", "[dense]") {
    const auto store = random_store(500, 32, 1);
    auto flat = scout::detail::make_flat_index(store);
    const auto q = random_query(32, 99);
    std::vector<ScoredDoc> brute;
    for (std::size_t i = 0; i < store->size(); ++i) {
        float s = 0;
        for (std::size_t d = 0; d < 32; ++d) {
            s += q[d] * store->row(i)[d];
        }
        brute.push_back({static_cast<scout::ToolId>(i), s});
    }
    std::sort(brute.begin(), brute.end(), scout::detail::ranks_before);
    std::vector<ScoredDoc> got;
    flat->search(q.data(), 10, nullptr, got);
    REQUIRE(got.size() == 10);
    for (std::size_t i = 0; i < 10; ++i) {
        CHECK(got[i].id == brute[i].id);
        CHECK(got[i].score == Approx(brute[i].score).margin(1e-5));
    }
    scout::detail::Bitset allowed(500);
    for (scout::ToolId i = 0; i < 500; i += 5) {
        allowed.set(i);
    }
    flat->search(q.data(), 10, &allowed, got);
    std::size_t j = 0;
    for (const auto& d : brute) {
        if (allowed.test(d.id)) {
            if (j == 10) {
                break;
            }
            CHECK(got[j++].id == d.id);
        }
    }
}

TEST_CASE("HNSW recall@10 against exact search is high, filtered queries are exact", "[dense]") {
    const std::size_t n = 3000;
    const std::size_t dim = 48;
    const auto store = random_store(n, dim, 7);
    scout::DenseOptions opts;
    opts.kind = scout::DenseIndexKind::hnsw;
    opts.hnsw_int8 = GENERATE(true, false);
    INFO("int8 elements: " << opts.hnsw_int8);
    auto hnsw = scout::detail::make_dense_index(store, opts);
    auto flat = scout::detail::make_flat_index(store);
    CHECK(std::string(hnsw->kind()) == (opts.hnsw_int8 ? "hnsw-int8" : "hnsw"));
    CHECK(std::string(flat->kind()) == "flat");
    std::size_t found = 0;
    const int queries = 100;
    for (int t = 0; t < queries; ++t) {
        const auto q = random_query(dim, 1000 + static_cast<std::uint32_t>(t));
        std::vector<ScoredDoc> exact;
        std::vector<ScoredDoc> approx;
        flat->search(q.data(), 10, nullptr, exact);
        hnsw->search(q.data(), 10, nullptr, approx);
        REQUIRE(approx.size() == 10);
        std::set<scout::ToolId> truth;
        for (const auto& d : exact) {
            truth.insert(d.id);
        }
        for (const auto& d : approx) {
            found += truth.count(d.id);
        }
        if (opts.hnsw_int8) {
            // Re-scored in fp32: a hit's score is the exact inner product the flat scan gives.
            std::vector<ScoredDoc> all;
            flat->search(q.data(), n, nullptr, all);
            std::vector<float> exact_of(n);
            for (const auto& d : all) {
                exact_of[d.id] = d.score;
            }
            for (const auto& d : approx) {
                CHECK(d.score == exact_of[d.id]);
            }
        }
        for (std::size_t i = 1; i < approx.size(); ++i) {
            CHECK(scout::detail::ranks_before(approx[i - 1], approx[i]));
        }
    }
    CHECK(static_cast<double>(found) / (queries * 10.0) >= 0.95);

    scout::detail::Bitset allowed(n);
    allowed.set_range(100, 140);
    const auto q = random_query(dim, 5);
    std::vector<ScoredDoc> a;
    std::vector<ScoredDoc> b;
    hnsw->search(q.data(), 10, &allowed, a);
    flat->search(q.data(), 10, &allowed, b);
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        CHECK(a[i].id == b[i].id);
        CHECK(allowed.test(a[i].id));
    }
}

TEST_CASE("the HNSW search width grows with the square root of the graph's size", "[dense]") {
    scout::DenseOptions opts;
    opts.hnsw_ef_search = 64;
    opts.hnsw_ef_base_tools = 20000;
    CHECK(scout::detail::hnsw_search_width(opts, 0) == 64);
    CHECK(scout::detail::hnsw_search_width(opts, 20000) == 64);
    CHECK(scout::detail::hnsw_search_width(opts, 80000) == 128);
    CHECK(scout::detail::hnsw_search_width(opts, 100000) == 144);  // ceil(64 x sqrt 5)
    CHECK(scout::detail::hnsw_search_width(opts, 1000000) == 453);
    opts.hnsw_ef_base_tools = 0;  // a fixed width, as files before format 1.5 searched
    CHECK(scout::detail::hnsw_search_width(opts, 1000000) == 64);

    // The graph searches with that width: on random vectors, where a narrow search misses many
    // true neighbours, the grown width finds clearly more of them from the same stored graph.
    const std::size_t n = 4096;
    const std::size_t dim = 32;
    const auto store = random_store(n, dim, 11);
    opts.kind = scout::DenseIndexKind::hnsw;
    opts.hnsw_ef_search = 10;
    opts.hnsw_ef_base_tools = 0;
    const auto fixed = scout::detail::make_dense_index(store, opts);
    const std::string graph = fixed->graph_bytes();
    opts.hnsw_ef_base_tools = n / 64;  // width 10 x sqrt(64) = 80
    REQUIRE(scout::detail::hnsw_search_width(opts, n) == 80);
    const auto grown = scout::detail::load_hnsw_index(
        store, opts, std::span(reinterpret_cast<const std::uint8_t*>(graph.data()), graph.size()));
    REQUIRE(grown != nullptr);
    const auto recall = [&](const scout::detail::DenseIndex& index) {
        std::size_t found = 0;
        std::vector<ScoredDoc> exact;
        std::vector<ScoredDoc> approx;
        for (std::uint32_t qi = 0; qi < 100; ++qi) {
            const auto q = random_query(dim, 1000 + qi);
            scout::detail::exact_search(*store, q.data(), 10, nullptr, exact);
            index.search(q.data(), 10, nullptr, approx);
            std::set<scout::ToolId> truth;
            for (const auto& d : exact) {
                truth.insert(d.id);
            }
            for (const auto& d : approx) {
                found += truth.count(d.id);
            }
        }
        return static_cast<double>(found) / 1000.0;
    };
    const double narrow = recall(*fixed);
    const double wide = recall(*grown);
    INFO("recall@10 at width 10: " << narrow << ", at width 80: " << wide);
    CHECK(wide > narrow + 0.1);
}

TEST_CASE("automatic index kind follows the size thresholds", "[dense]") {
    const auto kind_at = [](std::size_t n, const scout::DenseOptions& opts) {
        return std::string(scout::detail::make_dense_index(random_store(n, 8, 1), opts)->kind());
    };
    scout::DenseOptions opts;
    opts.int8_min_tools = 50;
    opts.hnsw_min_tools = 100;
    CHECK(kind_at(49, opts) == "flat");
    CHECK(kind_at(50, opts) == "flat-int8");
    CHECK(kind_at(99, opts) == "flat-int8");
    CHECK(kind_at(100, opts) == "hnsw-int8");
    opts.hnsw_int8 = false;
    CHECK(kind_at(100, opts) == "hnsw");
    opts.hnsw_int8 = true;
    // int8_scan forces the int8 scan below the threshold; an explicit kind ignores the threshold.
    opts.int8_scan = true;
    CHECK(kind_at(10, opts) == "flat-int8");
    opts.int8_scan = false;
    opts.kind = scout::DenseIndexKind::flat;
    CHECK(kind_at(99, opts) == "flat");
    // The defaults: fp32 for small catalogs, int8 from a thousand tools.
    const scout::DenseOptions defaults;
    CHECK(kind_at(defaults.int8_min_tools - 1, defaults) == "flat");
    CHECK(kind_at(defaults.int8_min_tools, defaults) == "flat-int8");
}

TEST_CASE("normalize rejects zero and non-finite vectors", "[dense]") {
    std::vector<float> zero(4, 0.0f);
    CHECK_FALSE(scout::detail::normalize(zero.data(), 4));
    std::vector<float> nan{1.0f, std::nanf(""), 0.0f};
    CHECK_FALSE(scout::detail::normalize(nan.data(), 3));
    std::vector<float> v{3.0f, 4.0f};
    REQUIRE(scout::detail::normalize(v.data(), 2));
    CHECK(v[0] == Approx(0.6f));
    CHECK(v[1] == Approx(0.8f));
}

TEST_CASE("int8 scan with exact re-scoring keeps the exact top-10 and exact scores", "[dense]") {
    const std::size_t n = 2000;
    const std::size_t dim = 384;
    const auto store = random_store(n, dim, 11);
    scout::DenseOptions opts;
    opts.int8_scan = true;
    auto int8 = scout::detail::make_flat_index(store, opts);
    auto flat = scout::detail::make_flat_index(store);
    CHECK(std::string(int8->kind()) == "flat-int8");
    CHECK(int8->memory_bytes() > flat->memory_bytes());
    scout::detail::Bitset allowed(n);
    for (scout::ToolId i = 0; i < n; i += 3) {
        allowed.set(i);
    }
    for (std::uint32_t t = 0; t < 30; ++t) {
        const auto q = random_query(dim, 500 + t);
        for (const scout::detail::Bitset* filter :
             std::array<const scout::detail::Bitset*, 2>{nullptr, &allowed}) {
            std::vector<ScoredDoc> exact;
            std::vector<ScoredDoc> approx;
            flat->search(q.data(), 10, filter, exact);
            int8->search(q.data(), 10, filter, approx);
            REQUIRE(approx.size() == exact.size());
            for (std::size_t i = 0; i < exact.size(); ++i) {
                CHECK(approx[i].id == exact[i].id);
                CHECK(approx[i].score == exact[i].score);
            }
        }
    }
    // Quantization round trip: codes times scale reproduce the vector within half a step.
    std::vector<std::int8_t> codes(dim);
    const float scale = scout::detail::quantize_int8(store->row(0), dim, codes.data());
    for (std::size_t d = 0; d < dim; ++d) {
        CHECK(std::abs(static_cast<float>(codes[d]) * scale - store->row(0)[d]) <=
              0.5f * scale + 1e-7f);
    }
}

TEST_CASE("HNSW with a broad scope over-fetches from the graph and keeps only allowed tools",
          "[dense]") {
    const std::size_t n = 3000;
    const std::size_t dim = 48;
    const auto store = random_store(n, dim, 13);
    scout::DenseOptions opts;
    opts.kind = scout::DenseIndexKind::hnsw;
    auto hnsw = scout::detail::make_dense_index(store, opts);
    auto flat = scout::detail::make_flat_index(store);
    scout::detail::Bitset half(n);
    for (scout::ToolId i = 0; i < n; i += 2) {
        half.set(i);
    }
    std::size_t found = 0;
    for (std::uint32_t t = 0; t < 50; ++t) {
        const auto q = random_query(dim, 2000 + t);
        std::vector<ScoredDoc> exact;
        std::vector<ScoredDoc> approx;
        flat->search(q.data(), 10, &half, exact);
        hnsw->search(q.data(), 10, &half, approx);
        REQUIRE(approx.size() == 10);
        std::set<scout::ToolId> truth;
        for (const auto& d : exact) {
            truth.insert(d.id);
        }
        for (std::size_t i = 0; i < approx.size(); ++i) {
            CHECK(half.test(approx[i].id));
            found += truth.count(approx[i].id);
            if (i > 0) {
                CHECK(scout::detail::ranks_before(approx[i - 1], approx[i]));
            }
        }
    }
    CHECK(static_cast<double>(found) / 500.0 >= 0.95);
}

TEST_CASE("a stored HNSW graph of either version searches as the graph it was saved from",
          "[dense]") {
    const std::size_t n = 1500;
    const std::size_t dim = 24;
    const auto store = random_store(n, dim, 21);
    for (const bool int8 : {true, false}) {
        scout::DenseOptions opts;
        opts.kind = scout::DenseIndexKind::hnsw;
        opts.hnsw_int8 = int8;
        const auto built = scout::detail::make_dense_index(store, opts);
        for (const std::uint32_t version : {1U, scout::detail::kHnswGraphVersion}) {
            INFO("int8 " << int8 << ", version " << version);
            // Version 2 is read in place: the bytes stay alive through `owner` only.
            auto bytes = std::make_shared<const std::string>(built->graph_bytes(version));
            const std::span graph(reinterpret_cast<const std::uint8_t*>(bytes->data()),
                                  bytes->size());
            auto loaded = scout::detail::load_hnsw_index(store, opts, graph, version, bytes);
            REQUIRE(loaded != nullptr);
            bytes.reset();
            CHECK(loaded->graph_bytes(version) ==
                  built->graph_bytes(version));  // the same graph, link for link
            std::vector<ScoredDoc> a;
            std::vector<ScoredDoc> b;
            for (std::uint32_t qi = 0; qi < 50; ++qi) {
                const auto q = random_query(dim, 500 + qi);
                built->search(q.data(), 10, nullptr, a);
                loaded->search(q.data(), 10, nullptr, b);
                REQUIRE(a.size() == b.size());
                for (std::size_t i = 0; i < a.size(); ++i) {
                    CHECK(a[i].id == b[i].id);
                    CHECK(a[i].score == b[i].score);
                }
            }
            // A patch copies the stored elements before it re-links a point.
            const std::vector<scout::ToolId> changed{7};
            auto patched = loaded->patched(store, changed, opts);
            REQUIRE(patched != nullptr);
            patched->search(store->row(7), 1, nullptr, a);
            REQUIRE(a.size() == 1);
            CHECK(a[0].id == 7);
        }
        // Another element type, M or point count is refused.
        const std::string v2 = built->graph_bytes();
        const std::span graph(reinterpret_cast<const std::uint8_t*>(v2.data()), v2.size());
        scout::DenseOptions other = opts;
        other.hnsw_int8 = !int8;
        CHECK(scout::detail::load_hnsw_index(store, other, graph) == nullptr);
        other = opts;
        other.hnsw_m = opts.hnsw_m + 2;
        CHECK(scout::detail::load_hnsw_index(store, other, graph) == nullptr);
        CHECK(scout::detail::load_hnsw_index(random_store(n - 1, dim, 21), opts, graph) == nullptr);
        CHECK(scout::detail::load_hnsw_index(store, opts, graph.first(graph.size() - 4)) ==
              nullptr);
    }
}

TEST_CASE("int8 codes round as lrint does, halves to even", "[dense]") {
    // A largest component of 127 makes the scale 1, so the components are rounded as they are.
    const std::vector<float> v = {127.0f,
                                  2.5f,
                                  -2.5f,
                                  3.5f,
                                  -3.5f,
                                  0.5f,
                                  -0.5f,
                                  1.5f,
                                  126.5f,
                                  -126.5f,
                                  1.4999f,
                                  -0.4999f,
                                  0.0f,
                                  -0.0f,
                                  64.25f,
                                  -127.0f};
    std::vector<std::int8_t> codes(v.size());
    CHECK(scout::detail::quantize_int8(v.data(), v.size(), codes.data()) == 1.0f);
    for (std::size_t d = 0; d < v.size(); ++d) {
        INFO("component " << v[d]);
        CHECK(codes[d] == static_cast<std::int8_t>(std::clamp(std::lrint(v[d]), -127L, 127L)));
    }
    CHECK(codes[1] == 2);  // ties to even
    CHECK(codes[3] == 4);
    CHECK(codes[2] == -2);
    // And on random vectors, against lrint of the same products.
    std::mt19937 rng(31);
    std::normal_distribution<float> normal;
    std::vector<float> r(384);
    std::vector<std::int8_t> got(r.size());
    for (int round = 0; round < 50; ++round) {
        for (float& x : r) {
            x = normal(rng);
        }
        (void)scout::detail::quantize_int8(r.data(), r.size(), got.data());
        float max_abs = 0.0f;
        for (float x : r) {
            max_abs = std::max(max_abs, std::fabs(x));
        }
        const float inv = 127.0f / max_abs;
        for (std::size_t d = 0; d < r.size(); ++d) {
            CHECK(got[d] ==
                  static_cast<std::int8_t>(std::clamp(std::lrint(r[d] * inv), -127L, 127L)));
        }
    }
}

// kernels_test.cpp: every SIMD implementation the CPU runs against the scalar reference.
// Integer-valued inputs make every summation order exact, so equality is exact.
#include "simd/kernels.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>

#include <catch2/catch.hpp>

namespace {
const scout::detail::simd::Kernels& scalar() {
    return *scout::detail::simd::find("scalar");
}
}  // namespace

TEST_CASE("dot kernels agree exactly with scalar on integer data", "[kernels]") {
    std::mt19937 rng(3);
    std::uniform_int_distribution<int> small(-8, 8);
    std::vector<float> a(1100);
    std::vector<float> b(1100);
    for (std::size_t i = 0; i < a.size(); ++i) {
        a[i] = static_cast<float>(small(rng));
        b[i] = static_cast<float>(small(rng));
    }
    for (const std::string& isa : scout::detail::simd::available()) {
        const scout::detail::simd::Kernels* k = scout::detail::simd::find(isa);
        REQUIRE(k != nullptr);
        for (std::size_t n : {0U,
                              1U,
                              3U,
                              4U,
                              7U,
                              8U,
                              15U,
                              16U,
                              17U,
                              31U,
                              32U,
                              33U,
                              63U,
                              64U,
                              65U,
                              100U,
                              384U,
                              1024U}) {
            for (std::size_t offset : {0U, 1U, 3U}) {  // unaligned starts
                INFO(isa << " n=" << n << " offset=" << offset);
                CHECK(k->dot(a.data() + offset, b.data() + offset, n) ==
                      scalar().dot(a.data() + offset, b.data() + offset, n));
            }
        }
    }
}

TEST_CASE("batched and int8 kernels agree with their single-row references", "[kernels]") {
    std::mt19937 rng(5);
    std::normal_distribution<float> g(0.0f, 1.0f);
    std::uniform_int_distribution<int> byte(-127, 127);
    const std::size_t rows = 4;
    std::vector<float> q(1100);
    std::vector<float> m(rows * 1100);
    std::vector<std::int8_t> qi(1100);
    std::vector<std::int8_t> mi(rows * 1100);
    for (auto& x : q) {
        x = g(rng);
    }
    for (auto& x : m) {
        x = g(rng);
    }
    for (auto& x : qi) {
        x = static_cast<std::int8_t>(byte(rng));
    }
    for (auto& x : mi) {
        x = static_cast<std::int8_t>(byte(rng));
    }
    for (const std::string& isa : scout::detail::simd::available()) {
        const scout::detail::simd::Kernels* k = scout::detail::simd::find(isa);
        REQUIRE(k != nullptr);
        for (std::size_t n : {0U, 1U, 7U, 8U, 15U, 16U, 17U, 31U, 32U, 33U, 100U, 384U, 1024U}) {
            INFO(isa << " n=" << n);
            const float* fr[4] = {
                &m[0], &m[1100 + 1], &m[2200 + 2], &m[3300 + 3]};  // unaligned rows
            float out[4];
            k->dot_rows(q.data(), fr, n, out);
            const std::int8_t* ir[4] = {&mi[0], &mi[1100 + 1], &mi[2200 + 2], &mi[3300 + 3]};
            std::int32_t iout[4];
            k->dot_rows_i8(qi.data(), ir, n, iout);
            for (std::size_t r = 0; r < rows; ++r) {
                // Bit-identical to the single-row kernel of the same ISA (same summation order).
                CHECK(out[r] == k->dot(q.data(), fr[r], n));
                CHECK(out[r] == Approx(scalar().dot(q.data(), fr[r], n)).margin(1e-3));
                CHECK(iout[r] == scalar().dot_i8(qi.data(), ir[r], n));
                CHECK(k->dot_i8(qi.data(), ir[r], n) == iout[r]);
            }
        }
    }
}

TEST_CASE("next_above finds the first block that holds a larger value", "[kernels]") {
    for (const std::string& isa : scout::detail::simd::available()) {
        const scout::detail::simd::Kernels* k = scout::detail::simd::find(isa);
        for (std::size_t n : {0U, 1U, 15U, 16U, 17U, 40U, 257U}) {
            for (std::size_t hot = 0; hot <= n; ++hot) {
                std::vector<float> v(n + 1, 1.0f);
                if (hot < n) {
                    v[hot] = 5.0f;
                }
                INFO(isa << " n=" << n << " hot=" << hot);
                const std::size_t at = k->next_above(v.data(), 0, n, 2.0f);
                if (hot == n) {
                    CHECK(at == n);
                } else {
                    // The reported block contains the hot element, and no earlier block does.
                    CHECK(at <= hot);
                    CHECK(hot < at + scout::detail::simd::kScanBlock);
                }
                CHECK(k->next_above(v.data(), 0, n, 10.0f) == n);
            }
        }
    }
}

TEST_CASE("block_max gives the largest value of every block", "[kernels]") {
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> score(0, 1000);
    for (const std::string& isa : scout::detail::simd::available()) {
        const scout::detail::simd::Kernels* k = scout::detail::simd::find(isa);
        for (std::size_t n : {1U, 15U, 16U, 17U, 40U, 257U, 2792U}) {
            std::vector<float> v(n);
            for (float& x : v) {
                x = static_cast<float>(score(rng)) * 0.37f;
            }
            const std::size_t blocks =
                (n + scout::detail::simd::kScanBlock - 1) / scout::detail::simd::kScanBlock;
            std::vector<float> got(blocks + 1, -1.0f);
            k->block_max(v.data(), n, got.data());
            INFO(isa << " n=" << n);
            for (std::size_t b = 0; b < blocks; ++b) {
                const auto first =
                    v.begin() + static_cast<std::ptrdiff_t>(b * scout::detail::simd::kScanBlock);
                const auto last =
                    b + 1 == blocks ? v.end() : first + scout::detail::simd::kScanBlock;
                CHECK(got[b] == *std::max_element(first, last));
            }
            CHECK(got[blocks] == -1.0f);  // nothing written past the last block
        }
    }
}

TEST_CASE("the active kernels follow the documented preference", "[kernels]") {
    // SCOUT_FORCE_ISA when it names an available set, else AVX2, AVX-512, SSE2, scalar in that
    // order; with AVX2 chosen automatically, the int8 kernels come from AVX-512 when it runs.
    const auto isas = scout::detail::simd::available();
    const auto has = [&](std::string_view isa) {
        return std::find(isas.begin(), isas.end(), isa) != isas.end();
    };
    const char* forced = std::getenv("SCOUT_FORCE_ISA");
    std::string expected;
    if (forced != nullptr && has(forced)) {
        expected = forced;
    } else {
        for (std::string_view isa : {"avx2", "avx512", "sse2", "scalar"}) {
            if (has(isa)) {
                expected = std::string(isa);
                break;
            }
        }
    }
    const scout::detail::simd::Kernels& active = scout::detail::simd::active();
    CHECK(std::string(active.isa) == expected);
    const bool wide_int8 = forced == nullptr && expected == "avx2" && has("avx512");
    const scout::detail::simd::Kernels* int8_source =
        scout::detail::simd::find(wide_int8 ? "avx512" : expected);
    REQUIRE(int8_source != nullptr);
    CHECK(active.dot_i8 == int8_source->dot_i8);
    CHECK(active.dot_rows_i8 == int8_source->dot_rows_i8);
    CHECK(active.dot == scout::detail::simd::find(expected)->dot);
    CHECK(scout::detail::simd::find("no-such-isa") == nullptr);
}

TEST_CASE("int8 quantization gives the scalar reference's codes and scale", "[kernels]") {
    std::mt19937 rng(11);
    std::normal_distribution<float> g(0.0f, 1.0f);
    std::vector<float> v(1100);
    std::vector<std::int8_t> got(v.size());
    std::vector<std::int8_t> want(v.size());
    for (std::size_t round = 0; round < 40; ++round) {
        for (float& x : v) {
            x = g(rng);
        }
        if (round % 4 == 1) {
            // Values whose scaled form ends in exactly .5: rounding to even must agree.
            for (std::size_t i = 0; i < v.size(); ++i) {
                v[i] = static_cast<float>(static_cast<int>(i % 255) - 127) + 0.5f;
            }
            v[0] = 127.0f;
        } else if (round % 4 == 2) {
            std::fill(v.begin(), v.end(), 0.0f);  // zero vector: zero codes, scale 0
        }
        for (const std::string& isa : scout::detail::simd::available()) {
            const scout::detail::simd::Kernels* k = scout::detail::simd::find(isa);
            REQUIRE(k != nullptr);
            for (std::size_t n : {1U, 7U, 8U, 17U, 64U, 255U, 256U, 384U, 1024U}) {
                for (std::size_t offset : {0U, 1U}) {
                    INFO(isa << " round=" << round << " n=" << n << " offset=" << offset);
                    std::fill(got.begin(), got.end(), std::int8_t{99});
                    std::fill(want.begin(), want.end(), std::int8_t{99});
                    const float s = k->quantize_i8(v.data() + offset, n, got.data());
                    const float r = scalar().quantize_i8(v.data() + offset, n, want.data());
                    CHECK(s == r);
                    CHECK(
                        std::equal(got.begin(), got.begin() + static_cast<long>(n), want.begin()));
                    CHECK(got[n] == 99);  // nothing written past n
                }
            }
        }
    }
}

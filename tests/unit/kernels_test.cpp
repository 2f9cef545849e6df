// kernels_test.cpp: every SIMD implementation the CPU runs against the scalar reference.
// Integer-valued inputs make every summation order exact, so equality is exact.
#include <random>

#include <catch2/catch.hpp>

#include "simd/kernels.hpp"

namespace {
const scout::simd::Kernels& scalar() { return *scout::simd::find("scalar"); }
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
    for (const std::string& isa : scout::simd::available()) {
        const scout::simd::Kernels* k = scout::simd::find(isa);
        REQUIRE(k != nullptr);
        for (std::size_t n : {0, 1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 384, 1024}) {
            for (std::size_t offset : {0, 1, 3}) {  // unaligned starts
                INFO(isa << " n=" << n << " offset=" << offset);
                CHECK(k->dot(a.data() + offset, b.data() + offset, n) ==
                      scalar().dot(a.data() + offset, b.data() + offset, n));
            }
        }
    }
}

TEST_CASE("next_above finds the first block that holds a larger value", "[kernels]") {
    for (const std::string& isa : scout::simd::available()) {
        const scout::simd::Kernels* k = scout::simd::find(isa);
        for (std::size_t n : {0, 1, 15, 16, 17, 40, 257}) {
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
                    CHECK(hot < at + scout::simd::kScanBlock);
                }
                CHECK(k->next_above(v.data(), 0, n, 10.0f) == n);
            }
        }
    }
}

TEST_CASE("the active kernels are one of the available ones", "[kernels]") {
    const auto isas = scout::simd::available();
    CHECK(std::find(isas.begin(), isas.end(), std::string(scout::simd::active().isa)) != isas.end());
    CHECK(scout::simd::find("no-such-isa") == nullptr);
}

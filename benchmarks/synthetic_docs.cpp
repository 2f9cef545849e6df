// synthetic_docs.cpp: see synthetic_docs.hpp.
#include "synthetic_docs.hpp"

#include <cmath>

#include "util/split_mix.hpp"

namespace scout::bench {
namespace {

using Rng = detail::SplitMix64;

constexpr std::size_t kVocabulary = 20000;

const std::vector<std::string>& vocabulary() {
    static const std::vector<std::string> words = [] {
        static constexpr const char* kSyllables[] = {"ka",
                                                     "lo",
                                                     "mi",
                                                     "ne",
                                                     "ru",
                                                     "ta",
                                                     "shi",
                                                     "vo",
                                                     "den",
                                                     "par",
                                                     "gen",
                                                     "str",
                                                     "qu",
                                                     "fi",
                                                     "zo",
                                                     "bel",
                                                     "mon",
                                                     "tr"};
        constexpr std::size_t n = sizeof(kSyllables) / sizeof(kSyllables[0]);
        std::vector<std::string> out;
        Rng rng(7);
        for (std::size_t i = 0; i < kVocabulary; ++i) {
            std::string w;
            const std::size_t len = 2 + rng.next() % 3;
            for (std::size_t s = 0; s < len; ++s) {
                w += kSyllables[rng.next() % n];
            }
            out.push_back(w);
        }
        return out;
    }();
    return words;
}

/// Zipf(1) rank by inverse transform over the harmonic approximation.
const std::string& zipf_word(Rng& rng) {
    const double h = std::log(static_cast<double>(kVocabulary)) + 0.5772;
    const double r = std::exp(rng.uniform() * h - 0.5772);
    const auto idx = static_cast<std::size_t>(r) % kVocabulary;
    return vocabulary()[idx];
}

}  // namespace

std::vector<std::string> synthetic_texts(std::size_t count, std::size_t words, std::uint64_t seed) {
    Rng rng(seed);
    std::vector<std::string> out;
    out.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        std::string text = zipf_word(rng) + "_" + zipf_word(rng) + "Tool: ";
        for (std::size_t w = 0; w < words; ++w) {
            text += zipf_word(rng);
            text += (w % 9 == 8) ? ". " : " ";
        }
        out.push_back(std::move(text));
    }
    return out;
}

std::vector<float> synthetic_vectors(std::size_t count, std::size_t dim, std::uint64_t seed) {
    Rng rng(seed);
    std::vector<float> out(count * dim);
    for (std::size_t i = 0; i < count; ++i) {
        double norm = 0;
        for (std::size_t d = 0; d < dim; ++d) {
            const float v = static_cast<float>(rng.uniform() * 2.0 - 1.0);
            out[i * dim + d] = v;
            norm += static_cast<double>(v) * static_cast<double>(v);
        }
        const auto inv = static_cast<float>(1.0 / std::sqrt(norm));
        for (std::size_t d = 0; d < dim; ++d) {
            out[i * dim + d] *= inv;
        }
    }
    return out;
}

CatalogSpec synthetic_catalog(std::size_t tools, std::uint64_t seed) {
    Rng rng(seed);
    const std::vector<std::string> descriptions = synthetic_texts(tools, 24, seed + 1);
    CatalogSpec spec;
    for (std::size_t i = 0; i < tools; ++i) {
        if (i % 10 == 0) {
            spec.servers.push_back({"server-" + std::to_string(i / 10),
                                    "Synthetic server " + zipf_word(rng) + " " + zipf_word(rng),
                                    "",
                                    "",
                                    ServerStatus::active,
                                    {}});
        }
        ToolSpec t;
        t.name = zipf_word(rng) + "_" + zipf_word(rng) + "_" + std::to_string(i);
        t.description = descriptions[i];
        t.input_schema = R"({"type":"object","properties":{")" + zipf_word(rng) +
                         R"(":{"type":"string","description":")" + zipf_word(rng) + " " +
                         zipf_word(rng) + R"("}}})";
        spec.servers.back().tools.push_back(std::move(t));
    }
    return spec;
}

}  // namespace scout::bench

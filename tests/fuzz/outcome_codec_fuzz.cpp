// outcome_codec_fuzz.cpp: libFuzzer target for the OUTC section reader (recorded execution
// outcomes). Any bytes give corrupt or a prior within its limits that encodes back to the same
// bytes and answers endorsements in [0, 1); never a crash, a leak or undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "persist/outcome_codec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::uint8_t> bytes(data, size);
    auto prior = scout::detail::decode_outcomes(bytes);
    if (!prior.ok()) {
        return 0;
    }
    const auto& lim = scout::detail::OutcomePrior::limits();
    if (prior->tools().size() > lim.max_tools || prior->terms().size() > lim.max_terms ||
        scout::detail::encode_outcomes(prior.value()) !=
            std::string(reinterpret_cast<const char*>(data), size)) {
        __builtin_trap();
    }
    std::vector<std::string> terms;
    for (const auto& [term, tools] : prior->terms()) {
        terms.push_back(term);
    }
    for (const auto& [tool, counts] : prior->tools()) {
        const double e = prior->endorsement(terms, tool);
        if (!(e >= 0 && e < 1)) {
            __builtin_trap();
        }
    }
    prior->record(terms, "fuzz\ntool", true);
    return 0;
}

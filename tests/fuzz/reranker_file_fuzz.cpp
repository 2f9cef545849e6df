// reranker_file_fuzz.cpp: libFuzzer target for the re-ranker's weights file reader. Any bytes
// must give a clean Status or a model whose every number is finite and whose text form reads
// back to the same model, never a crash, a leak or undefined behaviour.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "scout/reranker.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    auto model = scout::Reranker::parse(bytes);
    if (model.ok()) {
        for (const double w : model->weights) {
            if (!std::isfinite(w)) {
                __builtin_trap();
            }
        }
        auto again = scout::Reranker::parse(model->serialize());
        if (!again.ok() || !(again.value() == model.value())) {
            __builtin_trap();
        }
    }
    return 0;
}

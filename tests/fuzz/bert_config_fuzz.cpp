// bert_config_fuzz.cpp: libFuzzer target for config.json parsing: a clean Status or a config
// whose sizes are within the documented bounds. Built by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "transformer/bert_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto config = scout::detail::bert::parse_bert_config(
        std::string_view(reinterpret_cast<const char*>(data), size));
    if (config.ok() &&
        (config->hidden == 0 || config->hidden > 8192 || config->hidden % config->heads != 0 ||
         config->layers > 128 || config->vocab_size > (1U << 22))) {
        __builtin_trap();
    }
    return 0;
}

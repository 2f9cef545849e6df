// json_shape_fuzz.cpp: libFuzzer target for the index reader's JSON check (src/util/json_check).
// On any bytes it must not crash, and wherever it gives a verdict that verdict must be the
// parser's: an object exactly when parse_json accepts the text and gives an object.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "util/json_check.hpp"
#include "util/json_limits.hpp"

using scout::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    // A small depth bound too, so the fuzzer reaches it with short inputs.
    for (const std::size_t depth : {std::size_t{4}, scout::detail::kMaxJsonDepth}) {
        const scout::detail::JsonShape shape = scout::detail::json_shape(text, depth);
        auto parsed = scout::detail::parse_json(text, depth);
        const bool object = parsed.ok() && parsed->is_object();
        if (shape != scout::detail::JsonShape::unsure) {
            check((shape == scout::detail::JsonShape::object) == object);
        }
        check(scout::detail::is_json_object(text, depth) == object);
    }
    return 0;
}

// calibration_file_fuzz.cpp: libFuzzer target for the fusion calibration file reader. Any bytes
// must give a clean Status or settings that are within the option table's bounds and whose
// text form reads back to the same calibration, never a crash, a leak or undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "scout/options.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    auto calibration = scout::parse_calibration(bytes);
    if (calibration.ok()) {
        scout::CatalogOptions options;
        options.fusion = calibration->fusion;
        if (!scout::check_options(options).ok()) {
            __builtin_trap();
        }
        auto again = scout::parse_calibration(scout::format_calibration(*calibration));
        if (!again.ok() || !(again.value() == calibration.value())) {
            __builtin_trap();
        }
    }
    return 0;
}

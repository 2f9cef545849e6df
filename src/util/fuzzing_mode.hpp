// fuzzing_mode.hpp: the switch a fuzz target turns on so that mutated inputs get past stored
// checksums to the parsers behind them (the libFuzzer convention). Nothing but a fuzz target
// calls skip_checksums_for_fuzzing(); everywhere else every checksum is compared. A runtime
// switch rather than a compile-time one, so one sanitizer build serves both the tests (which
// check that damaged files are refused) and the fuzz targets.
#pragma once

namespace scout::detail {

void skip_checksums_for_fuzzing() noexcept;
bool checksums_skipped_for_fuzzing() noexcept;

}  // namespace scout::detail

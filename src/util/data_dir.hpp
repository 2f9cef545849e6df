// data_dir.hpp: where scout finds the data it ships (the static word model, the token counter's
// rank files) at run time, without any path of the build machine: the folder $SCOUT_DATA_DIR
// names, then folders found relative to the binary that holds scout's code.
#pragma once

#include <filesystem>
#include <vector>

namespace scout::detail {

/// The folder of the binary that holds scout's code: libscout.so, the Python extension, or the
/// executable a static libscout is linked into. Resolved (symbolic links followed); empty when
/// the platform cannot tell.
[[nodiscard]] std::filesystem::path own_binary_dir();

/// The folders searched for shipped data, in order, without checking that they exist:
///   1. $SCOUT_DATA_DIR, when set and not empty;
///   2. <own_binary_dir()>/<libdir to datadir>, i.e. <prefix>/share/scout for a library in
///      <prefix>/lib (and the same from <prefix>/bin, for an executable linking scout
///      statically): an install under any prefix, and a build tree, which CMake lays out the
///      same way;
///   3. <own_binary_dir()>/share/scout: a bundle that carries its data beside its binary (the
///      Python wheel, whose extension is scout/_scout*.so with its data in scout/share/scout).
[[nodiscard]] std::vector<std::filesystem::path> data_dirs();

}  // namespace scout::detail

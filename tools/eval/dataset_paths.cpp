// dataset_paths.cpp: see dataset_paths.hpp.
#include "eval/dataset_paths.hpp"

#include <cstdlib>

namespace scout::eval {
namespace {

const char* non_empty_env(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? value : nullptr;
}

}  // namespace

std::filesystem::path source_root() {
    if (const char* dir = non_empty_env("SCOUT_SOURCE_DIR")) {
        return dir;
    }
    return SCOUT_SOURCE_ROOT;
}

std::filesystem::path datasets_dir() {
    if (const char* dir = non_empty_env("SCOUT_DATASETS")) {
        return dir;
    }
    return (source_root() / ".." / "shared" / "datasets").lexically_normal();
}

std::filesystem::path training_dir() {
    if (const char* dir = non_empty_env("SCOUT_TRAINING")) {
        return dir;
    }
    return (source_root() / ".." / "shared" / "training").lexically_normal();
}

}  // namespace scout::eval

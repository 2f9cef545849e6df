// data_dir.cpp: see data_dir.hpp. The binary is found with dl_iterate_phdr (the loaded object
// whose segments hold this function); the main program has no name there, so /proc/self/exe
// names it.
#include "util/data_dir.hpp"

#include <link.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <system_error>

namespace scout::detail {
namespace {

// The paths from the install's bindir and libdir to its datadir/scout, relative ("../share/scout"
// for the usual layout); CMake computes them from GNUInstallDirs.
#ifndef SCOUT_DATA_FROM_LIBDIR
#define SCOUT_DATA_FROM_LIBDIR "../share/scout"
#endif
#ifndef SCOUT_DATA_FROM_BINDIR
#define SCOUT_DATA_FROM_BINDIR "../share/scout"
#endif

struct Search {
    std::uintptr_t address = 0;
    bool found = false;
    bool main_program = false;
    std::string name;
};

int find_object(dl_phdr_info* info, std::size_t, void* data) {
    auto* search = static_cast<Search*>(data);
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& segment = info->dlpi_phdr[i];
        if (segment.p_type != PT_LOAD) {
            continue;
        }
        const std::uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
        if (search->address >= begin && search->address < begin + segment.p_memsz) {
            search->found = true;
            search->name = info->dlpi_name != nullptr ? info->dlpi_name : "";
            search->main_program = search->name.empty();
            return 1;
        }
    }
    return 0;
}

std::filesystem::path resolve_dir(const std::filesystem::path& file) {
    std::error_code ec;
    std::filesystem::path resolved = std::filesystem::canonical(file, ec);
    return (ec ? std::filesystem::absolute(file, ec) : resolved).parent_path();
}

}  // namespace

std::filesystem::path own_binary_dir() {
    Search search;
    search.address = reinterpret_cast<std::uintptr_t>(&own_binary_dir);
    dl_iterate_phdr(find_object, &search);
    if (!search.found) {
        return {};
    }
    return resolve_dir(search.main_program ? std::filesystem::path("/proc/self/exe")
                                           : std::filesystem::path(search.name));
}

std::vector<std::filesystem::path> data_dirs() {
    std::vector<std::filesystem::path> dirs;
    if (const char* dir = std::getenv("SCOUT_DATA_DIR"); dir != nullptr && *dir != '\0') {
        dirs.emplace_back(dir);
    }
    if (const std::filesystem::path own = own_binary_dir(); !own.empty()) {
        for (const char* relative :
             {SCOUT_DATA_FROM_LIBDIR, SCOUT_DATA_FROM_BINDIR, "share/scout"}) {
            std::filesystem::path dir = (own / relative).lexically_normal();
            if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) {
                dirs.push_back(std::move(dir));
            }
        }
    }
    return dirs;
}

}  // namespace scout::detail

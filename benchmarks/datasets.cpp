// datasets.cpp: finding and loading the benchmark datasets.
#include "datasets.hpp"

#include <algorithm>

#include "scout/catalog_loader.hpp"

namespace scout::bench {

std::size_t tool_count(const CatalogSpec& spec) {
    std::size_t n = 0;
    for (const ServerSpec& s : spec.servers) {
        n += s.tools.size();
    }
    return n;
}

Result<DatasetList> load_datasets(const std::filesystem::path& root,
                                  const std::filesystem::path& shared_dir,
                                  const eval::SyntheticOptions& synthetic) {
    DatasetList list;
    auto catalog = load_catalog_file(root / "data/enterprise_catalog.json");
    if (!catalog) {
        return catalog.status();
    }
    auto queries = eval::load_queries(root / "data/queries-49.json");
    if (!queries) {
        return queries.status();
    }
    auto grown = eval::synthesize_catalog(catalog.value(), synthetic);
    if (!grown) {
        return grown.status();
    }
    list.datasets.push_back({"enterprise", std::move(catalog.value()), queries.value()});
    list.datasets.push_back(
        {"enterprise+synthetic", std::move(grown.value()), std::move(queries.value())});

    std::error_code ec;
    if (!std::filesystem::is_directory(shared_dir, ec)) {
        list.notes.push_back("no dataset directory at " + shared_dir.string() +
                             "; public datasets skipped");
        return list;
    }
    std::vector<std::filesystem::path> dirs;
    for (const auto& entry : std::filesystem::directory_iterator(shared_dir, ec)) {
        if (entry.is_directory()) {
            dirs.push_back(entry.path());
        }
    }
    std::sort(dirs.begin(), dirs.end());
    for (const auto& dir : dirs) {
        const std::string name = dir.filename().string();
        if (!std::filesystem::exists(dir / "queries.json") ||
            !std::filesystem::exists(dir / "catalog.json")) {
            list.notes.push_back(
                name + ": no catalog.json + queries.json pair (catalog-only datasets are skipped)");
            continue;
        }
        auto spec = load_catalog_file(dir / "catalog.json");
        auto labelled = eval::load_queries(dir / "queries.json");
        if (!spec || !labelled) {
            list.notes.push_back(
                name + ": skipped: " + (spec ? labelled.status() : spec.status()).message());
            continue;
        }
        list.datasets.push_back({name, std::move(spec.value()), std::move(labelled.value())});
    }
    return list;
}

}  // namespace scout::bench

// main.cpp: the README's quickstart, built and run by ctest: index a catalog file, search it
// within one server's scope, print the hits. Usage: scout-quickstart [catalog.json]
#include <iostream>
#include <string>
#include <vector>

#include <scout/scout.hpp>

int main(int argc, char** argv) {
    const std::string path = argc > 1 ? argv[1] : "data/enterprise_catalog.json";

    auto embedder = scout::StaticEmbedder::load_default();  // the trained model in data/
    auto catalog = scout::Catalog::create({}, embedder ? *embedder : nullptr);  // null: BM25 only
    auto spec = scout::load_catalog_file(path);  // or build ServerSpec values
    if (!spec) {
        std::cerr << spec.status().to_string() << "\n";  // names the file and the bad entry
        return 1;
    }
    if (scout::Status s = catalog->upsert_servers(*spec); !s.ok() || !catalog->commit()) {
        std::cerr << "cannot index " << path << ": " << s.to_string() << "\n";
        return 1;
    }

    scout::Searcher searcher = catalog->searcher();  // cheap; take one per request
    auto result =
        searcher.search("create a pull request",
                        {.top_k = 3, .servers = std::vector<std::string>{"github-enterprise"}});
    if (!result) {
        std::cerr << result.status().to_string() << "\n";
        return 1;
    }
    for (const scout::Hit& hit : result->hits) {
        std::cout << hit.name << "  " << hit.input_schema << "\n";  // enhanced name + JSON schema
    }
    return 0;
}

// main.cpp: the `scout` command: search and evaluate MCP tool catalogs.
#include <cstring>
#include <exception>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace {

constexpr const char* kUsage = R"(usage: scout <command> [options]

commands:
  search --catalog FILE|--index FILE [--top-k K] [--mode hybrid|bm25|dense] [--json] QUERY...
  eval   --catalog FILE|--index FILE --queries FILE [--top-k K] [--mode hybrid|bm25|dense|all] [--json]
         [--ranks FILE]  one JSON line per query: rank of its first relevant tool, and the top hit
  index  --catalog FILE --out INDEX   build the index once and save it (see docs/FORMAT.md)
  tokens --encoding cl100k_base|o200k_base --file FILE   (prints the token count)
  synth  [--catalog FILE] [--seed N] [--servers N] [--tools N] [--out FILE]

common options:
  --embedder static[:PATH]|http|hashing[:DIM]|none
                                  dense-branch embedder (default static: the GloVe model in
                                  ~/.cache/scout; BM25 only, with a note, when it is missing)
  --embedder-url URL              with http: an OpenAI-compatible service (POST URL/embeddings)
  --embedder-model NAME           with http: the model name sent in each request
  --embedder-dimensions N         with http: ask for N dimensions (else learned from a probe)
  --server NAME                   restrict results to this server (repeatable)
  --environment LABEL             restrict results to servers with this environment label
  --embed-timeout-ms MS           give up on the query embedding after MS and answer with BM25
  --action off|W[,BOOST]          weight of the query's action term (list, delete, ...) that
                                  matches tools whose name has that action, and the score boost
                                  of those tools (default 1,0.05)
  --pairs off|W                   weight of the query's adjacent word pairs, matched against the
                                  pairs of tool names and descriptions (default 0.5)
  --compounds off|W               weight of compound words joined or split against the catalog's
                                  words ("key vault" -> keyvault, cosmosdb -> cosmos db; default 1)
  --neighbours off|N[,W[,MIN]]    word-vector expansion: each query word adds its N nearest
                                  catalog words (cosine >= MIN) at weight W x cosine (3,0.1,0.6)
  --events FILE                   append search events to FILE as JSON lines
)";

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
        std::cout << kUsage;
        return argc < 2 ? scout::cli::kExitBadInput : scout::cli::kExitOk;
    }
    try {
        const std::string command = argv[1];
        if (command == "search") {
            return scout::cli::run_search(argc, argv);
        }
        if (command == "eval") {
            return scout::cli::run_eval(argc, argv);
        }
        if (command == "index") {
            return scout::cli::run_index(argc, argv);
        }
        if (command == "tokens") {
            return scout::cli::run_tokens(argc, argv);
        }
        if (command == "synth") {
            return scout::cli::run_synth(argc, argv);
        }
        std::cerr << "scout: unknown command '" << command << "'\n" << kUsage;
        return scout::cli::kExitBadInput;
    } catch (const std::exception& e) {
        std::cerr << "scout: internal error: " << e.what() << "\n";
        return scout::cli::kExitFailure;
    }
}

// query_text_fuzz.cpp: libFuzzer target for the query path: any bytes as a query (and its
// alternatives) through Searcher::search on fixed catalogs, BM25-only and hybrid with the hashing
// and the shipped static embedder. The query analysis, the lexical signals (lexicon, word pairs,
// compounds, the action), exact names, scope, fusion and the automatic cut all read the text.
// Whatever the bytes, a search returns an error with a message or at most kMaxTopK hits from
// the scope, with finite scores.
//
// Input layout: byte 0 the options (bits 0-1 mode, 2 auto_k, 3 exact_name_first, 4 a one-server
// scope, 5 outcome_prior), byte 1 top_k, the rest the query and its alternatives separated by
// 0x1F bytes.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scout/catalog.hpp"
#include "scout/embedder.hpp"
#include "scout/searcher.hpp"

#include "fuzz_check.hpp"

using scout::fuzz::check;

namespace {

scout::ToolSpec tool(std::string name, std::string description, std::string schema = {}) {
    scout::ToolSpec t;
    t.name = std::move(name);
    t.description = std::move(description);
    t.input_schema = std::move(schema);
    return t;
}

scout::ServerSpec server(std::string name,
                         std::string description,
                         std::string environment,
                         std::vector<scout::ToolSpec> tools) {
    scout::ServerSpec s;
    s.name = std::move(name);
    s.description = std::move(description);
    s.environment = std::move(environment);
    s.tools = std::move(tools);
    return s;
}

/// Names and descriptions in the shapes the analyzer splits: camel, snake, kebab and dotted
/// identifiers, compounds, stop words, non-Latin scripts.
scout::CatalogSpec spec() {
    scout::CatalogSpec c;
    c.servers = {
        server(
            "files",
            "File storage: read, write and list files and folders",
            "prod",
            {tool(
                 "read_file",
                 "Read a file's contents from the store",
                 R"({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]})"),
             tool("listFolderItems", "List the items of a folder, newest first"),
             tool("delete-file", "Delete a file permanently"),
             tool("files.search", "Full-text search over file names and contents; 検索 ファイル")}),
        server("mail",
               "Email: send, read and archive messages",
               "dev",
               {tool("send_email", "Send an email message to one or more recipients"),
                tool("archiveThread", "Archive a mail thread"),
                tool("get_inbox", "Get the newest messages of the inbox")}),
        server("jira",
               "Issue tracker: create, update and close tickets",
               "",
               {tool("create_issue", "Create a Jira issue with a summary and a description"),
                tool("transitionIssue", "Move an issue to another workflow state"),
                tool("add_comment", "Comment on an issue")}),
    };
    return c;
}

/// One searcher per embedder (none, hashing, the shipped static model when it loads), each
/// pinning its catalog's snapshot.
const std::vector<scout::Searcher>& searchers() {
    static const std::vector<scout::Searcher> made = [] {
        std::vector<scout::Searcher> out;
        std::vector<std::shared_ptr<scout::Embedder>> embedders{
            nullptr, std::make_shared<scout::HashingEmbedder>(16)};
        if (auto model = scout::StaticEmbedder::load_default()) {
            embedders.push_back(model.value());
        }
        for (const auto& embedder : embedders) {
            auto catalog = scout::Catalog::create(scout::CatalogOptions{}, embedder);
            check(catalog.ok());
            check(catalog->upsert_servers(spec()).ok());
            check(catalog->commit().ok());
            out.push_back(catalog->searcher());
        }
        return out;
    }();
    return made;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) {
        return 0;
    }
    const std::uint8_t flags = data[0];
    scout::SearchOptions options;
    options.mode = static_cast<scout::Mode>((flags & 3U) % 3U);
    options.auto_k = (flags & 4U) != 0;
    options.exact_name_first = (flags & 8U) != 0;
    if ((flags & 16U) != 0) {
        options.servers = std::vector<std::string>{"mail"};
    }
    options.outcome_prior = (flags & 32U) != 0;
    options.top_k = data[1];

    const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);
    std::string query;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        if (i == text.size() || text[i] == '\x1f') {
            std::string part(text.substr(start, i - start));
            if (start == 0) {
                query = std::move(part);
            } else {
                options.alternatives.push_back(std::move(part));
            }
            start = i + 1;
        }
    }

    for (const scout::Searcher& searcher : searchers()) {
        auto result = searcher.search(query, options);
        if (!result) {
            check(!result.status().message().empty());
            continue;
        }
        check(result->hits.size() <= scout::SearchOptions::kMaxTopK);
        if (!options.auto_k) {
            check(result->hits.size() <=
                  std::clamp<std::size_t>(options.top_k, 1, scout::SearchOptions::kMaxTopK));
        }
        for (const scout::Hit& hit : result->hits) {
            check(std::isfinite(hit.score));
            check(!hit.name.empty());
            check(!options.servers || hit.server == "mail");
        }
    }
    return 0;
}

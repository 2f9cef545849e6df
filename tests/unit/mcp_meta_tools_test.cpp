// mcp_meta_tools_test.cpp: the MCP layer: meta-tool definitions from templates, tool_search
// results, exact-name short-circuit, execute_tool routing and scope checks, conditional
// tools/list injection. Tool calls go to a fake executor that records what it was asked.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <map>
#include <set>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"
#include "scout/mcp/meta_tools.hpp"
#include "scout/token_counter.hpp"

#include "support/fixture_skip.hpp"
#include "support/temp_dir.hpp"

using scout::Catalog;
using scout::Searcher;
using scout::ServerSpec;
using scout::ToolKey;
using scout::ToolSpec;
using scout::mcp::Connector;
using scout::mcp::Json;
using scout::mcp::MetaTools;

namespace {

ToolSpec tool(std::string name, std::string description, std::string annotations = "") {
    return ToolSpec{std::move(name),
                    "",
                    std::move(description),
                    R"({"type":"object","properties":{"message":{"type":"string"}}})",
                    std::move(annotations)};
}

Catalog make_catalog() {
    auto created = Catalog::create();
    REQUIRE(created.ok());
    Catalog catalog = std::move(created.value());
    ServerSpec everything{
        "everything",
        "Reference server",
        "",
        "dev",
        scout::ServerStatus::active,
        {tool("echo", "Echoes back the input message", R"({"readOnlyHint":true})"),
         tool("add", "Adds two numbers and returns the sum"),
         tool("do_it", "Run the default action of the reference server")}};
    ServerSpec github{"github",
                      "Source hosting",
                      "",
                      "prod",
                      scout::ServerStatus::active,
                      {tool("create_issue", "Open a new issue in a repository"),
                       tool("echo_webhook", "Send a test webhook event to a repository")}};
    ServerSpec mail{"mail",
                    "Email",
                    "",
                    "prod",
                    scout::ServerStatus::active,
                    {tool("send_email", "Send an email message to a recipient"),
                     tool("add", "Add a contact to the address book")}};
    REQUIRE(catalog.upsert_server(everything).ok());
    REQUIRE(catalog.upsert_server(github).ok());
    REQUIRE(catalog.upsert_server(mail).ok());
    REQUIRE(catalog.commit().ok());
    return catalog;
}

struct FakeExecutor {
    std::vector<std::pair<ToolKey, Json>> calls;
    scout::mcp::Executor fn() {
        return [this](const ToolKey& key, const Json& args) -> scout::Result<Json> {
            calls.emplace_back(key, args);
            if (key.tool == "add" && key.server == "everything") {
                return scout::Status{scout::Errc::unavailable, "backend down"};
            }
            return Json{{"content", {{{"type", "text"}, {"text", "upstream:" + key.tool}}}},
                        {"_meta", {{"marker", 42}}}};
        };
    }
};

const Json& matches(const Json& result) {
    return result.at("structuredContent").at("matches");
}

}  // namespace

TEST_CASE("meta-tool definitions are honest and come from templates", "[mcp]") {
    Catalog catalog = make_catalog();
    Connector c;
    c.environment = "prod";
    c.templates.tool_search =
        "Find among {tool_count} tools on {server_count} servers in "
        "{environment}.{environment_note}";
    MetaTools meta(c);
    Json search = meta.tool_search_definition(catalog.searcher());
    CHECK(search["name"] == "tool_search");
    // Bound to prod: 4 tools on 2 servers are in scope.
    CHECK(search["description"] ==
          "Find among 4 tools on 2 servers in prod. Only tools of the prod environment are "
          "searched.");
    CHECK(search["annotations"]["readOnlyHint"] == true);
    CHECK(search["annotations"]["idempotentHint"] == true);
    CHECK(search["inputSchema"]["properties"]["top_k"]["default"] == 5);
    CHECK(search["inputSchema"]["properties"]["top_k"]["maximum"] == 20);
    CHECK(search["inputSchema"]["properties"]["scope"]["enum"] ==
          Json::array({"my_servers", "all_servers"}));
    Json exec = meta.execute_tool_definition(catalog.searcher());
    CHECK(exec["name"] == "execute_tool");
    CHECK(exec["annotations"]["readOnlyHint"] == false);
    CHECK(exec["inputSchema"]["properties"]["tool_name"]["description"].get<std::string>().find(
              "Do not guess") != std::string::npos);
}

TEST_CASE("templates parse from JSON and reject bad input", "[mcp]") {
    auto t = scout::mcp::parse_templates(R"({"tool_search":"Search {environment} tools"})");
    REQUIRE(t.ok());
    CHECK(t->tool_search == "Search {environment} tools");
    CHECK(t->execute_tool == scout::mcp::DescriptionTemplates{}.execute_tool);
    CHECK_FALSE(scout::mcp::parse_templates("not json").ok());
    CHECK_FALSE(scout::mcp::parse_templates(R"({"tool_serch":"x"})").ok());
    CHECK_FALSE(scout::mcp::parse_templates(R"({"query":5})").ok());
    CHECK_FALSE(scout::mcp::parse_templates("[]").ok());
    CHECK(scout::mcp::load_templates("/nonexistent/templates.json").status().code() ==
          scout::Errc::io_error);
}

TEST_CASE("templates are read bounded: a FIFO, a device or a directory is refused at once",
          "[mcp]") {
    scout::test::TempDir dir;
    const std::string fifo = dir.file("templates.fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);  // no writer: a blocking open would never return
    for (const std::string& path : {fifo, std::string("/dev/zero"), dir.file("")}) {
        INFO(path);
        // On a thread, waited for at most 10 s: a load stuck in open() is then released by
        // opening the FIFO's write end, so a regression fails here instead of hanging.
        auto loading =
            std::async(std::launch::async, [path] { return scout::mcp::load_templates(path); });
        const bool quick = loading.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
        if (!quick) {
            const int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
            if (w >= 0) {
                ::close(w);
            }
        }
        CHECK(quick);
        const auto loaded = loading.get();
        REQUIRE_FALSE(loaded.ok());
        CHECK(loaded.status().code() == scout::Errc::io_error);
        CHECK(loaded.status().message().find(path) != std::string::npos);
        CHECK(loaded.status().message().find("not a regular file") != std::string::npos);
    }
    const std::string big = dir.write("big.json", std::string((1U << 20) + 1, ' '));
    const auto too_big = scout::mcp::load_templates(big);
    REQUIRE_FALSE(too_big.ok());
    CHECK(too_big.status().message().find("larger than") != std::string::npos);
}

TEST_CASE("tool_search returns text and structured matches", "[mcp]") {
    Catalog catalog = make_catalog();
    MetaTools meta(Connector{});
    Json r = meta.tool_search(catalog.searcher(), {{"query", "echo back the input message"}});
    REQUIRE(r["isError"] == false);
    REQUIRE(r["content"].size() == 1);
    CHECK(r["content"][0]["type"] == "text");
    CHECK(Json::parse(r["content"][0]["text"].get<std::string>()) == r["structuredContent"]);
    CHECK(r["structuredContent"]["query"] == "echo back the input message");
    const Json& m = matches(r);
    REQUIRE_FALSE(m.empty());
    CHECK(m[0]["server"] == "everything");
    CHECK(m[0]["tool"] == "echo");
    CHECK(m[0]["name"] == "everything_echo");
    CHECK(m[0]["inputSchema"]["type"] == "object");
    CHECK(m[0]["annotations"]["readOnlyHint"] == true);
    CHECK(m[0]["description"] == "Echoes back the input message");
}

TEST_CASE("tool_search clamps top_k and validates arguments", "[mcp]") {
    Catalog catalog = make_catalog();
    MetaTools meta(Connector{});
    Searcher s = catalog.searcher();
    CHECK(matches(meta.tool_search(s, {{"query", "a"}, {"top_k", 0}})).size() <= 1);
    CHECK(
        matches(meta.tool_search(s, {{"query", "send add echo issue email default"}, {"top_k", 2}}))
            .size() == 2);
    CHECK(matches(
              meta.tool_search(s, {{"query", "send add echo issue email default"}, {"top_k", 500}}))
              .size() == 7);
    CHECK(meta.tool_search(s, {{"query", ""}})["isError"] == true);
    CHECK(meta.tool_search(s, Json::object())["isError"] == true);
    CHECK(meta.tool_search(s, Json::array())["isError"] == true);
    CHECK(meta.tool_search(s, {{"query", "x"}, {"top_k", "five"}})["isError"] == true);
    CHECK(meta.tool_search(s, {{"query", "x"}, {"scope", "everything"}})["isError"] == true);
    CHECK(meta.tool_search(s, {{"query", std::string("\xff\xfe bad utf8")}})["isError"] == true);
}

TEST_CASE("scope and environment binding filter tool_search", "[mcp]") {
    Catalog catalog = make_catalog();
    Connector c;
    c.my_servers = std::vector<std::string>{"github"};
    MetaTools meta(c);
    Searcher s = catalog.searcher();
    const Json mine = meta.tool_search(
        s,
        {{"query", "send email add echo issue default"}, {"scope", "my_servers"}, {"top_k", 20}});
    REQUIRE_FALSE(matches(mine).empty());
    for (const Json& m : matches(mine)) {
        CHECK(m["server"] == "github");
    }
    CHECK(matches(meta.tool_search(s,
                                   {{"query", "send email add echo issue default"},
                                    {"scope", "all_servers"},
                                    {"top_k", 20}}))
              .size() == 7);

    Connector dev;
    dev.environment = "dev";
    MetaTools dev_meta(dev);
    const Json m = matches(
        dev_meta.tool_search(s, {{"query", "send email add echo issue default"}, {"top_k", 20}}));
    REQUIRE(m.size() == 3);
    for (const Json& hit : m) {
        CHECK(hit["server"] == "everything");
    }
    dev.bind_environment = false;
    CHECK(matches(MetaTools(dev).tool_search(
                      s, {{"query", "send email add echo issue default"}, {"top_k", 20}}))
              .size() == 7);
}

TEST_CASE("an exact tool name is returned first", "[mcp]") {
    Catalog catalog = make_catalog();
    MetaTools meta(Connector{});
    Searcher s = catalog.searcher();
    // "github_echo_webhook" is an enhanced name; plain "send_email" is unique; "add" is not.
    CHECK(matches(meta.tool_search(s, {{"query", "github_echo_webhook"}})).at(0)["name"] ==
          "github_echo_webhook");
    Json r = meta.tool_search(s, {{"query", "send_email"}, {"top_k", 3}});
    CHECK(matches(r).at(0)["name"] == "mail_send_email");
    std::set<std::string> names;
    for (const Json& m : matches(r)) {
        CHECK(names.insert(m["name"].get<std::string>()).second);  // no duplicate
    }
    // Both words of "do_it" are stop words: only the exact-name rule can find it.
    CHECK(matches(meta.tool_search(s, {{"query", "do_it"}})).at(0)["name"] == "everything_do_it");
    CHECK(
        matches(meta.tool_search(s, {{"query", "everything_do_it"}, {"top_k", 1}})).at(0)["name"] ==
        "everything_do_it");
    // Outside the environment scope, the exact name is not short-circuited in.
    Connector dev;
    dev.environment = "dev";
    const Json dev_result = MetaTools(dev).tool_search(s, {{"query", "mail_send_email"}});
    for (const Json& m : matches(dev_result)) {
        CHECK(m["server"] != "mail");
    }
}

TEST_CASE("execute_tool routes through the executor and passes results through", "[mcp]") {
    Catalog catalog = make_catalog();
    MetaTools meta(Connector{});
    Searcher s = catalog.searcher();
    FakeExecutor fake;
    Json args{{"message", "hi"}};
    Json r = meta.execute_tool(
        s, {{"tool_name", "echo"}, {"server_name", "everything"}, {"arguments", args}}, fake.fn());
    CHECK(r == Json{{"content", {{{"type", "text"}, {"text", "upstream:echo"}}}},
                    {"_meta", {{"marker", 42}}}});
    REQUIRE(fake.calls.size() == 1);
    CHECK(fake.calls[0].first == ToolKey{"everything", "echo"});
    CHECK(fake.calls[0].second == args);

    // Enhanced name, with and without the server name; missing arguments become {}.
    CHECK(meta.execute_tool(s,
                            {{"tool_name", "mail_send_email"}},
                            fake.fn())["content"][0]["text"] == "upstream:send_email");
    CHECK(
        meta.execute_tool(s, {{"tool_name", "mail_send_email"}, {"server_name", "mail"}}, fake.fn())
            .value("isError", false) == false);
    CHECK(fake.calls.back().second == Json::object());
    CHECK(fake.calls.size() == 3);

    // Executor failure becomes an isError result.
    Json failed =
        meta.execute_tool(s, {{"tool_name", "add"}, {"server_name", "everything"}}, fake.fn());
    CHECK(failed["isError"] == true);
    CHECK(failed["content"][0]["text"].get<std::string>().find("backend down") !=
          std::string::npos);
}

TEST_CASE("execute_tool rejects unknown, mismatched and out-of-scope tools", "[mcp]") {
    Catalog catalog = make_catalog();
    Connector c;
    c.allowed_servers = std::vector<std::string>{"everything", "mail"};
    MetaTools meta(c);
    Searcher s = catalog.searcher();
    FakeExecutor fake;
    auto text = [](const Json& r) { return r["content"][0]["text"].get<std::string>(); };
    Json unknown =
        meta.execute_tool(s, {{"tool_name", "nope"}, {"server_name", "everything"}}, fake.fn());
    CHECK(unknown["isError"] == true);
    CHECK(text(unknown).find("tool_search") != std::string::npos);
    CHECK(meta.execute_tool(
              s, {{"tool_name", "echo"}, {"server_name", "mail"}}, fake.fn())["isError"] == true);
    CHECK(meta.execute_tool(s,
                            {{"tool_name", "mail_send_email"}, {"server_name", "everything"}},
                            fake.fn())["isError"] == true);
    CHECK(meta.execute_tool(s,
                            {{"tool_name", "create_issue"}, {"server_name", "github"}},
                            fake.fn())["isError"] == true);
    CHECK(meta.execute_tool(
              s,
              {{"tool_name", "echo"}, {"server_name", "everything"}, {"arguments", "x"}},
              fake.fn())["isError"] == true);
    CHECK(meta.execute_tool(s, {{"tool_name", 7}}, fake.fn())["isError"] == true);
    CHECK(meta.execute_tool(s, Json(nullptr), fake.fn())["isError"] == true);
    CHECK(fake.calls.empty());
    CHECK(meta.call_tool(s, "no_such_tool", Json::object(), fake.fn())["isError"] == true);
}

TEST_CASE("a DEGRADED server's tools cannot be executed", "[mcp]") {
    Catalog catalog = make_catalog();
    MetaTools meta(Connector{});
    FakeExecutor fake;
    REQUIRE(catalog.set_server_status("everything", scout::ServerStatus::degraded).ok());
    REQUIRE(catalog.commit().ok());
    Json r = meta.execute_tool(
        catalog.searcher(), {{"tool_name", "echo"}, {"server_name", "everything"}}, fake.fn());
    CHECK(r["isError"] == true);
    CHECK(fake.calls.empty());
    const Json after = meta.tool_search(catalog.searcher(), {{"query", "echo"}, {"top_k", 20}});
    for (const Json& m : matches(after)) {
        CHECK(m["server"] != "everything");
    }
}

TEST_CASE("tool_definition is the tool as the full tools/list serves it", "[mcp]") {
    Catalog catalog = make_catalog();
    Connector c;
    c.tool_search_enabled = false;
    const Json all = MetaTools(c).list_tools(catalog.searcher());
    const std::vector<scout::Hit> hits = catalog.searcher().list_tools({});
    REQUIRE(hits.size() == all["tools"].size());
    for (const scout::Hit& hit : hits) {
        const Json definition = scout::mcp::tool_definition(hit);
        CHECK(definition["name"] == hit.name);
        CHECK(std::count(all["tools"].begin(), all["tools"].end(), definition) == 1);
    }
    scout::Hit echo;
    echo.name = "everything_echo";
    echo.title = "Echo";
    echo.description = "Echoes";
    echo.input_schema = R"({"type":"object","properties":{"m":{"type":"string"}}})";
    echo.annotations = R"({"readOnlyHint":true})";
    const Json definition = scout::mcp::tool_definition(echo);
    CHECK(definition["title"] == "Echo");
    CHECK(definition["inputSchema"]["properties"]["m"]["type"] == "string");
    CHECK(definition["annotations"]["readOnlyHint"] == true);
    echo.title.clear();
    echo.annotations.clear();
    echo.input_schema.clear();
    const Json bare = scout::mcp::tool_definition(echo);
    CHECK_FALSE(bare.contains("title"));
    CHECK_FALSE(bare.contains("annotations"));
    CHECK(bare["inputSchema"] == Json{{"type", "object"}});
}

TEST_CASE("tools/list injects the meta-tools only when search is on and the index non-empty",
          "[mcp]") {
    Catalog catalog = make_catalog();
    Connector c;
    MetaTools meta(c);
    Json on = meta.list_tools(catalog.searcher());
    REQUIRE(on["tools"].size() == 2);
    CHECK(on["tools"][0]["name"] == "tool_search");
    CHECK(on["tools"][1]["name"] == "execute_tool");

    c.tool_search_enabled = false;
    MetaTools full(c);
    Json all = full.list_tools(catalog.searcher());
    REQUIRE(all["tools"].size() == 7);
    std::set<std::string> names;
    for (const Json& t : all["tools"]) {
        names.insert(t["name"].get<std::string>());
    }
    CHECK(names.count("everything_echo") == 1);
    CHECK(names.count("mail_add") == 1);
    // A listed tool is callable directly by its enhanced name.
    FakeExecutor fake;
    CHECK(full.call_tool(
              catalog.searcher(), "mail_add", Json::object(), fake.fn())["content"][0]["text"] ==
          "upstream:add");
    REQUIRE(fake.calls.size() == 1);
    CHECK(fake.calls[0].first == ToolKey{"mail", "add"});

    auto empty = Catalog::create();
    REQUIRE(empty.ok());
    CHECK(meta.list_tools(empty->searcher())["tools"].empty());
    CHECK_FALSE(meta.injects_meta_tools(empty->searcher()));
    CHECK(meta.tool_search(empty->searcher(), {{"query", "echo"}})["structuredContent"]["matches"]
              .empty());
}

TEST_CASE("tool_search fuses alternative phrasings", "[mcp]") {
    Catalog catalog = make_catalog();
    MetaTools meta(Connector{});
    const Searcher s = catalog.searcher();
    Json def = meta.tool_search_definition(s);
    const Json& alt = def["inputSchema"]["properties"]["alternatives"];
    CHECK(alt["type"] == "array");
    CHECK(alt["items"]["type"] == "string");
    CHECK(alt["maxItems"] == 8);
    CHECK(alt["description"].get<std::string>().find("Up to 8 other phrasings") == 0);
    CHECK(def["description"].get<std::string>().find("alternatives") != std::string::npos);

    // The query's own words match nothing; the alternative names the tool's words.
    CHECK(matches(meta.tool_search(s, {{"query", "zqxj blorf"}})).empty());
    Json r = meta.tool_search(
        s, {{"query", "zqxj blorf"}, {"alternatives", Json::array({"send an email message"})}});
    REQUIRE(r["isError"] == false);
    REQUIRE_FALSE(matches(r).empty());
    CHECK(matches(r)[0]["name"] == "mail_send_email");
    // Each match says which phrasing found it best: here only the alternative matched.
    CHECK(matches(r)[0]["best_phrasing"] == 1);
    CHECK(def["inputSchema"]["properties"]["alternatives"]["description"].get<std::string>().find(
              "best_phrasing") != std::string::npos);
    Json both = meta.tool_search(
        s, {{"query", "open a new issue"}, {"alternatives", Json::array({"send an email"})}});
    REQUIRE(both["isError"] == false);
    std::map<std::string, int> phrasing_of;
    for (const Json& m : matches(both)) {
        phrasing_of[m["name"].get<std::string>()] = m["best_phrasing"].get<int>();
    }
    CHECK(phrasing_of.at("github_create_issue") == 0);
    CHECK(phrasing_of.at("mail_send_email") == 1);
    // Without alternatives the answer has no such field.
    Json plain = meta.tool_search(s, {{"query", "open a new issue"}});
    REQUIRE_FALSE(matches(plain).empty());
    CHECK_FALSE(matches(plain)[0].contains("best_phrasing"));

    CHECK(meta.tool_search(s, {{"query", "x"}, {"alternatives", "send"}})["isError"] == true);
    CHECK(meta.tool_search(s, {{"query", "x"}, {"alternatives", Json::array({""})}})["isError"] ==
          true);
    CHECK(meta.tool_search(s, {{"query", "x"}, {"alternatives", Json::array({1})}})["isError"] ==
          true);
    CHECK(meta.tool_search(s, {{"query", "x"}, {"alternatives", Json(9, "a")}})["isError"] == true);
}

TEST_CASE("tool_search answers within max_tokens", "[mcp][tokens]") {
    auto loaded = scout::TokenCounter::load_default(scout::TokenEncoding::cl100k_base);
    if (!loaded) {
        SCOUT_SKIP_WITHOUT_FIXTURE("BPE rank files unavailable");
    }
    auto counter = std::make_shared<const scout::TokenCounter>(std::move(loaded.value()));
    Catalog catalog = make_catalog();
    const Searcher s = catalog.searcher();
    const Json query{{"query", "send add echo issue email default webhook"}};

    // Without a counter the input is not offered, and refused.
    MetaTools plain(Connector{});
    CHECK_FALSE(
        plain.tool_search_definition(s)["inputSchema"]["properties"].contains("max_tokens"));
    Json q = query;
    q["max_tokens"] = 100;
    CHECK(plain.tool_search(s, q)["isError"] == true);

    Connector c;
    c.token_counter = counter;
    MetaTools meta(c);
    CHECK(meta.tool_search_definition(s)["inputSchema"]["properties"]["max_tokens"]["minimum"] ==
          1);
    const std::size_t all =
        matches(meta.tool_search(s, {{"query", query["query"]}, {"top_k", 20}})).size();
    REQUIRE(all >= 4);
    for (std::size_t budget : {std::size_t{1},
                               std::size_t{150},
                               std::size_t{250},
                               std::size_t{400},
                               std::size_t{100000}}) {
        q["max_tokens"] = budget;
        const Json r = meta.tool_search(s, q);
        REQUIRE(r["isError"] == false);
        const Json& m = matches(r);
        REQUIRE_FALSE(m.empty());  // at least one complete match
        CHECK_FALSE(m[0].contains("trimmed"));
        const std::size_t tokens = counter->count(r["content"][0]["text"].get<std::string>());
        if (m.size() > 1) {
            CHECK(tokens <= budget);
        }
        CHECK(m.size() + r["structuredContent"]["omitted"].get<std::size_t>() == all);
        if (budget == 1) {
            CHECK(m.size() == 1);
        }
        if (budget == 100000) {
            CHECK(m.size() == all);  // top_k defaults to the maximum under a budget
        }
    }
    CHECK(meta.tool_search(s, {{"query", "x"}, {"max_tokens", 0}})["isError"] == true);
    CHECK(meta.tool_search(s, {{"query", "x"}, {"max_tokens", "ten"}})["isError"] == true);

    // A connector-wide default budget applies when the call gives none.
    c.max_tokens = 1;
    MetaTools bounded(c);
    CHECK(matches(bounded.tool_search(s, query)).size() == 1);
}

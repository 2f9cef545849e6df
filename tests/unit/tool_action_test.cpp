// tool_action_test.cpp: the action read off tool names and queries, and its index term.
#include "analysis/tool_action.hpp"

#include <string>

#include <catch2/catch.hpp>

using scout::detail::action_of_query;
using scout::detail::action_of_tool;
using scout::detail::ToolAction;

TEST_CASE("a tool's action is its first action verb, in any naming style", "[action]") {
    CHECK(action_of_tool("github", "create_pull_request") == ToolAction::create);
    CHECK(action_of_tool("bitrise", "delete_artifact") == ToolAction::remove);
    CHECK(action_of_tool("azure-keyvault", "keyvault_certificate_list") == ToolAction::list);
    CHECK(action_of_tool("files", "getFileContents") == ToolAction::read);
    CHECK(action_of_tool("trends", "get-weibo-trending") == ToolAction::read);
    CHECK(action_of_tool("slack", "SendMessage") == ToolAction::send);
    CHECK(action_of_tool("jobs", "cancel_job") == ToolAction::stop);
    CHECK(action_of_tool("tickets", "tickets.update") == ToolAction::update);
    CHECK(action_of_tool("x", "compare_schemas") == ToolAction::none);
    CHECK(action_of_tool("x", "") == ToolAction::none);
}

TEST_CASE("leading name words that repeat the server's name are not read as the action",
          "[action]") {
    CHECK(action_of_tool("azure-search", "search_index_get") == ToolAction::read);
    CHECK(action_of_tool("azure-search", "search_service_list") == ToolAction::list);
    // A name that is only the server's word still has that action.
    CHECK(action_of_tool("wiki-search", "search") == ToolAction::search);
}

TEST_CASE("inflected verbs and nouns that merely look like verbs", "[action]") {
    CHECK(action_of_query("deleting old branches") == ToolAction::remove);
    CHECK(action_of_query("stopped containers should be restarted") == ToolAction::stop);
    CHECK(action_of_query("removes a user from a group") == ToolAction::remove);
    // "settings" is not "set" and "news" is not "new": no action from them.
    CHECK(action_of_query("settings of the store") == ToolAction::none);
    CHECK(action_of_tool("x", "news_feed") == ToolAction::none);
}

TEST_CASE("a query's action comes from its first content words", "[action]") {
    CHECK(action_of_query("Remove build artifacts") == ToolAction::remove);
    CHECK(action_of_query("Please create a new repository") == ToolAction::create);
    CHECK(action_of_query("Can you help me find flights to Paris") == ToolAction::search);
    CHECK(action_of_query("upload report.pdf to the shared drive") == ToolAction::upload);
    // A verb further in is a clause of its own, not the request.
    CHECK(action_of_query("the production database backups nightly job should be deleted") ==
          ToolAction::none);
    CHECK(action_of_query("") == ToolAction::none);
    CHECK(action_of_query("???") == ToolAction::none);
}

TEST_CASE("a read of many things is a list", "[action]") {
    CHECK(action_of_query("Show me the certificates in the key vault kv1") == ToolAction::list);
    CHECK(action_of_query("Get the key k1 from vault kv1") == ToolAction::read);
    CHECK(action_of_query("Show me the details of storage account sa1") == ToolAction::read);
    CHECK(action_of_query("Show me the PostgreSQL databases in server s1") == ToolAction::list);
    CHECK(action_of_query("What secrets are in the key vault kv1?") == ToolAction::list);
    CHECK(action_of_query("What does the log say about errors?") == ToolAction::none);
    CHECK(action_of_query("Which region is closest?") == ToolAction::none);
}

TEST_CASE("action terms cannot collide with analyzed words", "[action]") {
    CHECK(scout::detail::action_term(ToolAction::none).empty());
    const std::string term = scout::detail::action_term(ToolAction::list);
    CHECK(term.find("list") != std::string::npos);
    CHECK(static_cast<unsigned char>(term[0]) < 0x20);
    CHECK(scout::detail::action_term(ToolAction::read) !=
          scout::detail::action_term(ToolAction::list));
}

TEST_CASE("hostile text is harmless", "[action]") {
    const std::string huge(1 << 20, 'x');
    CHECK(action_of_query(huge) == ToolAction::none);
    CHECK(action_of_tool(huge, huge) == ToolAction::none);
    CHECK(action_of_query("delete \xff\xfe the file") == ToolAction::remove);
    CHECK(action_of_tool("s", "\xc3(delete") == ToolAction::remove);
}

// tool_action.hpp: the operation a tool performs (get, list, create, delete, ...) read off its
// name, and the operation a query asks for read off its wording. Catalogs name tools after
// CRUD verbs (get_issue, keyvault_key_list, deleteFile), and queries state the same intent in
// other words ("remove the file", "show me the keys"); matching the two separates siblings that
// share every other word, such as get_artifact and delete_artifact.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace scout::detail {

enum class ToolAction : unsigned char {
    none,
    read,  ///< one item: get, show, describe, view
    list,  ///< many items: list, enumerate; "show me the keys"
    create,
    update,
    remove,
    search,
    run,
    stop,
    send,
    upload,
    download,
};

[[nodiscard]] std::string_view action_name(ToolAction action) noexcept;

/// The action of a tool: its first name word that is an action verb, after dropping leading
/// words that repeat the server's name (azure-search/search_index_get is a read, not a search).
/// Name words come from identifier splitting, so snake, camel and kebab case all work.
[[nodiscard]] ToolAction action_of_tool(std::string_view server_name, std::string_view tool_name);
/// The same with the server name's plain_words (word_pairs.hpp) already split, for a caller
/// that asks for each tool of a server.
[[nodiscard]] ToolAction action_of_tool(const std::vector<std::string>& server_words,
                                        std::string_view tool_name);

/// The action a query asks for: an action verb among its first three content words (a read
/// whose object is plural, "show me the keys in vault v", becomes a list), else a
/// "what/which <plural> ..." question, which asks for a list. none when the query names none.
[[nodiscard]] ToolAction action_of_query(std::string_view query);
/// The same from the query's plain_words (word_pairs.hpp), for a caller that has them already.
[[nodiscard]] ToolAction action_of_words(const std::vector<std::string>& words);
[[nodiscard]] ToolAction action_of_words(std::span<const std::string_view> words);

/// The index term that carries an action: it has a control byte, so no analyzed word can equal
/// it. Empty for none.
[[nodiscard]] std::string action_term(ToolAction action);

}  // namespace scout::detail

// meta_tools.hpp: the MCP-facing layer. Definitions and handlers of the two meta-tools,
// tool_search and execute_tool, and the tools/list answer that injects them. This is the one
// module whose public header exposes nlohmann::json: it speaks MCP's JSON shapes directly
// (CallToolResult, Tool definitions), so hosts can embed the answers in their JSON-RPC replies.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "scout/searcher.hpp"
#include "scout/status.hpp"
#include "scout/token_counter.hpp"
#include "scout/types.hpp"

namespace scout::mcp {

using Json = nlohmann::json;

inline constexpr std::string_view kToolSearch = "tool_search";
inline constexpr std::string_view kExecuteTool = "execute_tool";

/// Texts of the meta-tool definitions. Operators change them without code through a JSON file
/// (load_templates). Placeholders, replaced when a definition is rendered:
///   {environment}      the connector's environment label ("prod", "dev"; "any" when unset)
///   {environment_note} " Only tools of the <label> environment are searched." or empty
///   {tool_count}       number of tools inside the connector's scope
///   {server_count}     number of servers inside the connector's scope
///   {max_top_k}        upper bound of top_k (20)
///   {max_alternatives} most alternative phrasings accepted (8)
struct DescriptionTemplates {
    std::string tool_search =
        "Search the catalog of {tool_count} tools on {server_count} MCP servers "
        "(environment: {environment}) and return the best matches with their full input "
        "schemas. Call this first whenever you need a capability you do not see among your "
        "tools, then call execute_tool with a returned tool. Give alternatives (other phrasings in "
        "the words a tool's name or description might use) to find tools your wording "
        "misses.{environment_note}";
    std::string query = "What you want to do, in natural language, or an exact tool name.";
    std::string top_k = "How many tools to return (1 to {max_top_k}, default 5).";
    std::string alternatives =
        "Up to {max_alternatives} other phrasings of the same need, searched together with "
        "the query: use the words a tool's name or description would use (synonyms, the "
        "technical term, the product name), e.g. query \"remember this for later\" with "
        "alternatives [\"store a memory\", \"save note\"]. Each match then gives "
        "best_phrasing: 0 for the query, i for the i-th alternative.";
    std::string max_tokens =
        "Most tokens this answer may take: as many top matches as fit are returned (top_k "
        "defaults to {max_top_k} then), long descriptions shortened first and schemas last, "
        "marked in \"trimmed\"; the first match is always complete.";
    std::string scope =
        "my_servers: only servers the user added; all_servers: every active server (default).";
    std::string execute_tool =
        "Run a tool found by tool_search on its MCP server and return the server's result "
        "unchanged (environment: {environment}).";
    std::string tool_name =
        "The tool name exactly as tool_search returned it (field \"name\" or \"tool\"). "
        "Do not guess: call tool_search first.";
    std::string server_name =
        "The server name exactly as tool_search returned it (field \"server\"). Do not guess.";
    std::string arguments = "Arguments for the tool, matching its inputSchema.";
};

/// Reads templates from JSON text: an object whose keys (tool_search, query, top_k,
/// alternatives, max_tokens, scope, execute_tool, tool_name, server_name, arguments) override the
/// defaults; unknown keys and non-string values are invalid_argument.
[[nodiscard]] Result<DescriptionTemplates> parse_templates(std::string_view json_text);
/// Same, from a file: io_error when it cannot be read, is not a regular file (a FIFO, a device
/// and a directory are refused at once, never read or waited on) or is over 1 MiB.
[[nodiscard]] Result<DescriptionTemplates> load_templates(const std::string& path);

enum class Scope : std::uint8_t { my_servers, all_servers };

/// One MCP connector (an endpoint a client connects to): its scope and labels.
struct Connector {
    /// Environment label shown in the descriptions ("prod", "dev"); empty for none.
    std::string environment;
    /// When true and `environment` is set, searches and executions are limited to servers with
    /// that environment label (SearchOptions::environment): environment-aware routing.
    bool bind_environment = true;
    /// Servers this connector may reach at all (nullopt = every active server).
    std::optional<std::vector<std::string>> allowed_servers;
    /// Servers the user added ("my_servers" scope); nullopt = same as allowed_servers.
    std::optional<std::vector<std::string>> my_servers;
    Scope default_scope = Scope::all_servers;
    /// When false, tools/list always serves the full tool list.
    bool tool_search_enabled = true;
    Mode mode = Mode::hybrid;
    DescriptionTemplates templates;
    /// Counts the tokens of tool_search answers when a budget applies (max_tokens); null:
    /// tool_search refuses max_tokens.
    std::shared_ptr<const TokenCounter> token_counter;
    /// Default token budget of a tool_search answer (0 = none); a call's max_tokens overrides it.
    std::size_t max_tokens = 0;
    /// Learning from executions: tool_search re-ranks with the catalog's outcome prior
    /// (SearchOptions::outcome_prior; the host records outcomes with Catalog::record_outcome).
    bool outcome_prior = false;
};

/// Runs one tool upstream. Returns the upstream CallToolResult JSON, passed to the client
/// unmodified, or an error (rendered as an isError result). Called on the caller's thread.
using Executor = std::function<Result<Json>(const ToolKey& tool, const Json& arguments)>;

/// Stateless apart from its connector: every call takes the Searcher (one pinned snapshot) it
/// should answer from. Thread-safe (all methods const). No exception escapes: malformed
/// arguments, unknown tools and executor failures become `isError: true` CallToolResults.
class MetaTools {
public:
    explicit MetaTools(Connector connector);

    [[nodiscard]] const Connector& connector() const noexcept { return connector_; }

    /// MCP Tool definitions of tool_search and execute_tool (name, description, inputSchema,
    /// annotations), rendered from the templates for this snapshot.
    [[nodiscard]] Json tool_search_definition(const Searcher& searcher) const;
    [[nodiscard]] Json execute_tool_definition(const Searcher& searcher) const;

    /// The tools/list result: {"tools": [the two meta-tools]} when tool search is enabled and
    /// the index (within scope) is non-empty, else {"tools": [every tool in scope]} named by
    /// enhanced names.
    [[nodiscard]] Json list_tools(const Searcher& searcher) const;
    /// True when list_tools serves the meta-tools.
    [[nodiscard]] bool injects_meta_tools(const Searcher& searcher) const;

    /// tools/call dispatch: the two meta-tools, else (when the full list is being served) an
    /// enhanced tool name routed straight to the executor.
    [[nodiscard]] Json call_tool(const Searcher& searcher,
                                 std::string_view name,
                                 const Json& arguments,
                                 const Executor& executor) const;

    /// tool_search handler: {"query", "top_k"?, "scope"?, "alternatives"?, "max_tokens"?} ->
    /// CallToolResult with one text block
    /// and structuredContent {"query", "matches": [...]}.
    [[nodiscard]] Json tool_search(const Searcher& searcher, const Json& arguments) const;
    /// execute_tool handler: {"tool_name", "server_name"?, "arguments"?}.
    [[nodiscard]] Json execute_tool(const Searcher& searcher,
                                    const Json& arguments,
                                    const Executor& executor) const;

    /// The search options a scope maps to (servers allow-list, environment, mode).
    [[nodiscard]] SearchOptions scope_options(Scope scope) const;
    /// The tool `tool_name` (enhanced, or plain together with `server_name`) denotes, if it is
    /// indexed and inside this connector's scope.
    [[nodiscard]] std::optional<Hit> lookup(const Searcher& searcher,
                                            std::string_view tool_name,
                                            std::string_view server_name) const;

private:
    Connector connector_;
};

/// A CallToolResult holding one text block and `isError: true`.
[[nodiscard]] Json error_result(std::string_view message);

/// The MCP Tool definition of an indexed tool, as list_tools serves it when it lists every tool:
/// named by its enhanced name, with its title and annotations when it has them. For a host that
/// adds tools of its choice (pinned ones, say) next to the meta-tools.
[[nodiscard]] Json tool_definition(const Hit& hit);

}  // namespace scout::mcp

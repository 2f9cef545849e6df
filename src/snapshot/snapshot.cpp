// snapshot.cpp: what a snapshot holds, measured (Searcher::memory_usage).
#include "snapshot/snapshot.hpp"

namespace scout::detail {
namespace {

/// Bytes of one hash-map node beyond its key and value payloads (next pointer, cached hash,
/// allocator rounding) on a 64-bit libstdc++; an estimate, as memory_usage() documents.
constexpr std::size_t kHashNodeOverhead = 48;

std::size_t tool_bytes(const ToolRecord& t) noexcept {
    // The enhanced name is counted with the names; the other views, with the source they view.
    return t.server.size() + t.tool.size() + t.title.size() + t.description.size() +
           t.input_schema.size() + t.annotations.size();
}

std::size_t server_bytes(const ServerRecord& s) noexcept {
    const std::size_t index_entry =
        s.name.capacity() + kHashNodeOverhead;  // its server_index key copy
    return s.name.capacity() + s.description.capacity() + s.category.capacity() +
           s.environment.capacity() + index_entry;
}

}  // namespace

std::optional<ToolId> resolve_enhanced_name(const Snapshot& snap, std::string_view name) {
    const ToolNames& names = *snap.names;
    const auto i = names.enhanced.resolve(name);
    if (!i || *i >= names.tools.size() || names.tools[*i] == kNotIndexed) {
        return std::nullopt;
    }
    return names.tools[*i];
}

MemoryUsage memory_usage(const Snapshot& snap) noexcept {
    MemoryUsage m;
    m.documents = snap.tools.capacity() * sizeof(ToolRecord) +
                  snap.servers->records.capacity() * sizeof(ServerRecord);
    for (const ToolRecord& t : snap.tools) {
        m.documents += tool_bytes(t);
    }
    for (const ServerRecord& s : snap.servers->records) {
        m.documents += server_bytes(s);
    }
    m.names = snap.names->enhanced.memory_bytes() + snap.names->tools.capacity() * sizeof(ToolId) +
              snap.names->by_plain.memory_bytes();
    m.bm25 = snap.bm25.memory_bytes();
    m.dense = snap.dense ? snap.dense->memory_bytes() : 0;
    return m;
}

}  // namespace scout::detail

// document_cache.cpp: see document_cache.hpp.
#include <functional>
#include <string_view>

#include "scout/tool_document.hpp"
#include "snapshot/document_cache.hpp"
#include "util/hash.hpp"

namespace scout::detail {
namespace {

std::uint64_t combine(std::uint64_t h, std::string_view field) noexcept {
    // Length first, so ("ab", "c") and ("a", "bc") differ.
    h = mix64(h ^ field.size());
    return mix64(h ^ std::hash<std::string_view>{}(field));
}

}  // namespace

std::uint64_t DocumentCache::key(const ServerSpec& server, const ToolSpec& tool) noexcept {
    std::uint64_t h = kFnvOffset;
    for (std::string_view f : {std::string_view(server.name), std::string_view(server.description),
                               std::string_view(server.category), std::string_view(server.environment),
                               std::string_view(tool.name), std::string_view(tool.title),
                               std::string_view(tool.description), std::string_view(tool.input_schema),
                               std::string_view(tool.annotations)}) {
        h = combine(h, f);
    }
    return h;
}

CachedDocument* DocumentCache::get(std::uint64_t key, const ServerSpec& server, const ToolSpec& tool,
                                   const Analyzer& analyzer, std::size_t& rendered) {
    if (auto it = entries_.find(key); it != entries_.end()) {
        return &it->second;
    }
    auto doc = make_tool_document(server, tool);
    if (!doc) {
        return nullptr;  // validated at upsert; unreachable in practice
    }
    ++rendered;
    CachedDocument entry;
    const std::string* fields[5] = {&doc->name, &doc->server, &doc->server_description,
                                    &doc->description, &doc->parameters};
    for (std::size_t f = 0; f < 5; ++f) {
        analyzer.analyze(*fields[f], entry.field_terms[f]);
    }
    entry.text = doc->text();
    return &entries_.emplace(key, std::move(entry)).first->second;
}

void DocumentCache::retain(const std::vector<std::uint64_t>& live) {
    if (live.size() == entries_.size()) {
        return;  // every entry was used by this build (keys are distinct per entry)
    }
    std::unordered_map<std::uint64_t, CachedDocument> kept;
    kept.reserve(live.size());
    for (std::uint64_t k : live) {
        if (auto it = entries_.find(k); it != entries_.end()) {
            kept.emplace(k, std::move(it->second));
            entries_.erase(it);
        }
    }
    entries_ = std::move(kept);
}

}  // namespace scout::detail

// index_table_test.cpp: the open-addressing table of indices: lookups by the caller's keys,
// inserts that keep the first index of a key, growth, and hashes that collide.
#include "util/index_table.hpp"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

using scout::detail::IndexTable;

namespace {

/// Keys with a hash the test chooses, so collisions are certain.
struct Keys {
    std::vector<std::string> keys;
    std::uint32_t insert(IndexTable& table, const std::string& key, std::uint32_t hash) {
        const auto fresh = static_cast<std::uint32_t>(keys.size());
        const std::uint32_t at =
            table.insert(hash, fresh, [&](std::uint32_t i) { return keys[i] == key; });
        if (at == fresh) {
            keys.push_back(key);
        }
        return at;
    }
    std::uint32_t find(const IndexTable& table, const std::string& key, std::uint32_t hash) const {
        return table.find(hash, [&](std::uint32_t i) { return keys[i] == key; });
    }
};

}  // namespace

TEST_CASE("an index table finds what it holds and keeps a key's first index", "[names]") {
    IndexTable table;
    Keys keys;
    CHECK(keys.find(table, "a", 1) == IndexTable::kNone);
    // Every key shares one of three hashes, and the table grows from empty past 1000 keys.
    for (std::uint32_t i = 0; i < 1000; ++i) {
        CHECK(keys.insert(table, "key" + std::to_string(i), i % 3) == i);
    }
    CHECK(keys.insert(table, "key7", 7 % 3) == 7);
    CHECK(table.size() == 1000);
    for (std::uint32_t i = 0; i < 1000; ++i) {
        CHECK(keys.find(table, "key" + std::to_string(i), i % 3) == i);
    }
    CHECK(keys.find(table, "key7", 2) == IndexTable::kNone);  // right key, other hash
    CHECK(keys.find(table, "key1000", 1) == IndexTable::kNone);
    CHECK(table.memory_bytes() >= 2 * 1000 * 2 * sizeof(std::uint32_t));
}

TEST_CASE("an index table sized for n keys holds them without growing", "[names]") {
    IndexTable table(100);
    const std::size_t bytes = table.memory_bytes();
    Keys keys;
    for (std::uint32_t i = 0; i < 100; ++i) {
        keys.insert(table, std::to_string(i), i * 2654435761U);
    }
    CHECK(table.memory_bytes() == bytes);
    for (std::uint32_t i = 0; i < 100; ++i) {
        CHECK(keys.find(table, std::to_string(i), i * 2654435761U) == i);
    }
}

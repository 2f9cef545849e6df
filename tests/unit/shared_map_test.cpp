// shared_map_test.cpp: SharedMap behaves as an ordered map, and its copies never see each
// other's edits, across bucket splits and removals.
#include "util/shared_map.hpp"

#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

using scout::detail::SharedMap;

namespace {

std::map<std::string, int> as_std(const SharedMap<int>& m) {
    std::map<std::string, int> out;
    std::string last;
    bool first = true;
    for (const auto& [key, value] : m) {
        CHECK((first || last < key));  // strictly ascending
        first = false;
        last = key;
        out.emplace(key, value);
    }
    CHECK(out.size() == m.size());
    return out;
}

std::string key_of(std::uint32_t i) {
    return "server-" + std::to_string(i * 7919U % 10007U);
}

}  // namespace

TEST_CASE("SharedMap matches std::map under random edits", "[shared_map]") {
    SharedMap<int> m;
    std::map<std::string, int> expected;
    std::mt19937 rng(42);
    for (int step = 0; step < 20000; ++step) {
        const std::string key = key_of(static_cast<std::uint32_t>(rng() % 3000));
        switch (rng() % 4) {
            case 0:
            case 1:
                m[key] = step;
                expected[key] = step;
                break;
            case 2: {
                const auto [value, added] = m.emplace(key, -step);
                const auto [it, want] = expected.emplace(key, -step);
                CHECK(added == want);
                CHECK(*value == it->second);
                break;
            }
            default: {
                auto it = m.find(key);
                CHECK((it != m.end()) == expected.contains(key));
                if (it != m.end()) {
                    CHECK(it->second == expected[key]);
                    m.erase(it);
                    expected.erase(key);
                }
            }
        }
    }
    CHECK(as_std(m) == expected);
    CHECK(m.size() > 1000);  // many buckets
    const SharedMap<int>& read = m;
    CHECK(read.find("absent") == read.end());
    CHECK((read.find(key_of(1)) == read.end()) != read.contains(key_of(1)));
}

TEST_CASE("SharedMap copies are independent both ways", "[shared_map]") {
    SharedMap<int> original;
    for (std::uint32_t i = 0; i < 1000; ++i) {
        original[key_of(i)] = static_cast<int>(i);
    }
    const auto before = as_std(original);
    SharedMap<int> copy = original;
    // Edits on the copy: an assignment through find, an insertion that splits, an erasure.
    copy.find(key_of(5))->second = -1;
    for (std::uint32_t i = 1000; i < 1300; ++i) {
        copy[key_of(i)] = 1;
    }
    copy.erase(copy.find(key_of(7)));
    CHECK(as_std(original) == before);
    // Edits on the original after the copy leave the copy alone.
    const auto copied = as_std(copy);
    original.find(key_of(9))->second = -9;
    original.erase(original.find(key_of(11)));
    original["aaa"] = 3;
    CHECK(as_std(copy) == copied);
    CHECK(original.find(key_of(9))->second == -9);
    CHECK(copy.find(key_of(9))->second == 9);
    // Erasing everything empties buckets away.
    SharedMap<int> drained = copy;
    while (!drained.empty()) {
        drained.erase(drained.find(drained.begin()->first));
    }
    CHECK(drained.begin() == drained.end());
    CHECK(as_std(copy) == copied);
}

TEST_CASE("SharedMap: one const map copied on several threads at once",
          "[shared_map][concurrency]") {
    SharedMap<int> built;
    for (std::uint32_t i = 0; i < 2000; ++i) {
        built[key_of(i)] = static_cast<int>(i);
    }
    const SharedMap<int> frozen = std::move(built);  // its buckets still marked its own
    std::vector<std::thread> threads;
    std::vector<std::size_t> sizes(4);
    for (std::size_t t = 0; t < sizes.size(); ++t) {
        threads.emplace_back([&, t] {
            SharedMap<int> mine = frozen;
            mine[key_of(static_cast<std::uint32_t>(t))] = -1;
            mine["extra-" + std::to_string(t)] = 1;
            sizes[t] = mine.size();
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    for (const std::size_t size : sizes) {
        CHECK(size == 2001);
    }
    CHECK(frozen.size() == 2000);
    CHECK(frozen.find(key_of(0))->second == 0);
}

TEST_CASE("SharedMap::same_entries compares keys and values, skipping shared buckets",
          "[shared_map]") {
    SharedMap<int> a;
    for (std::uint32_t i = 0; i < 3000; ++i) {
        a[key_of(i)] = static_cast<int>(i);
    }
    SharedMap<int> b = a;
    std::size_t calls = 0;
    const auto same = [&calls](int x, int y) {
        ++calls;
        return x == y;
    };
    CHECK(a.same_entries(b, same));
    CHECK(calls == 0);  // every bucket shared

    b.find(key_of(17))->second = -1;  // one bucket copied
    calls = 0;
    CHECK_FALSE(a.same_entries(b, same));
    CHECK(calls > 0);
    CHECK(calls < 200);  // that bucket only
    b.find(key_of(17))->second = 17;
    CHECK(a.same_entries(b, same));

    // Another key in place of one: same size, different keys.
    b.erase(b.find(key_of(5)));
    b["zz-other"] = 5;
    CHECK_FALSE(a.same_entries(b, same));
    CHECK_FALSE(b.same_entries(a, same));
    // Equal contents built differently (other bucket boundaries) still compare equal.
    SharedMap<int> c;
    for (std::uint32_t i = 3000; i-- > 0;) {
        c[key_of(i)] = static_cast<int>(i);
    }
    CHECK(a.same_entries(c, same));
    c[key_of(3001)] = 1;
    CHECK_FALSE(a.same_entries(c, same));
}

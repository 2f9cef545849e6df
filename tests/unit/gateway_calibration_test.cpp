// gateway_calibration_test.cpp: the gateway's fusion calibration file (--calibration, the
// config's "calibration"): the key and its path, the file's refusals (each naming the file), the
// model check against the embedder, the settings the catalog is created with, and what SIGHUP
// does with a good, a changed and a bad file.
#include <memory>
#include <optional>
#include <string>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"
#include "scout/embedder.hpp"
#include "scout/options.hpp"

#include "config.hpp"
#include "config_reload.hpp"
#include "fusion_calibration.hpp"
#include "support/temp_dir.hpp"

namespace {

using scout::Calibration;
using scout::gateway::CalibrationFile;

/// A calibration a strong dense branch would get: far from the defaults.
Calibration strong_dense_calibration(const std::string& model) {
    Calibration c;
    c.model_id = model;
    c.fusion.gated_dense_weight = 3;
    c.fusion.overlap_power = 0;
    c.fusion.gated_confidence_power = 2;
    return c;
}

bool says(const scout::Status& s, const std::string& text) {
    return s.message().find(text) != std::string::npos;
}

}  // namespace

TEST_CASE("the config's calibration key is read and resolved against the config's folder",
          "[gateway][calibration]") {
    using scout::gateway::parse_gateway_config;
    auto parsed = parse_gateway_config(R"({"mcpServers": {}, "calibration": "fit.txt"})");
    REQUIRE(parsed.ok());
    CHECK(parsed->calibration_path == "fit.txt");
    CHECK(parse_gateway_config(R"({"mcpServers": {}})")->calibration_path.empty());

    const scout::test::TempDir dir;
    const std::string config =
        dir.write("servers.json", R"({"mcpServers": {}, "calibration": "fits/fit.txt"})");
    auto loaded = scout::gateway::load_gateway_config(config);
    REQUIRE(loaded.ok());
    CHECK(loaded->calibration_path == dir.file("fits/fit.txt"));
    auto reloaded = scout::gateway::load_reloadable_config(config, {});
    REQUIRE(reloaded.ok());
    CHECK(reloaded->calibration_path == dir.file("fits/fit.txt"));
    dir.write("absolute.json", R"({"mcpServers": {}, "calibration": "/etc/scout/fit.txt"})");
    CHECK(scout::gateway::load_gateway_config(dir.file("absolute.json"))->calibration_path ==
          "/etc/scout/fit.txt");

    // --calibration wins over the key.
    CHECK(scout::gateway::calibration_path("flag.txt", *loaded) == "flag.txt");
    CHECK(scout::gateway::calibration_path("", *loaded) == dir.file("fits/fit.txt"));

    for (const char* bad : {R"({"mcpServers": {}, "calibration": 3})",
                            R"({"mcpServers": {}, "calibration": ""})",
                            R"({"mcpServers": {}, "calibration": ["a"]})"}) {
        auto refused = parse_gateway_config(bad);
        REQUIRE_FALSE(refused.ok());
        CHECK(says(refused.status(), "calibration: must be the path of a calibration file"));
    }
}

TEST_CASE("a gateway's calibration file is refused, naming it, when bad or for another model",
          "[gateway][calibration]") {
    const scout::test::TempDir dir;
    const auto embedder = std::make_shared<scout::HashingEmbedder>(16);
    const std::string good_text =
        scout::format_calibration(strong_dense_calibration(embedder->model_id()));
    const std::string good = dir.write("good.txt", good_text);
    std::string note;

    SECTION("a good file gives its settings to the catalog the gateway creates") {
        auto started = scout::gateway::start_calibration(good, "hashing:16", embedder, note);
        REQUIRE(started.ok());
        REQUIRE(started->has_value());
        CHECK(note.empty());
        CHECK((*started)->path == good);
        scout::CatalogOptions options;
        options.fusion = (*started)->calibration.fusion;
        auto catalog = scout::Catalog::create(options, embedder);
        REQUIRE(catalog.ok());
        CHECK(catalog->options().fusion.gated_dense_weight == 3);
        CHECK(catalog->options().fusion.gated_confidence_power == 2);
        CHECK_FALSE(catalog->options().fusion == scout::FusionOptions{});
        const std::string line =
            scout::gateway::describe_calibration(**started, catalog->options());
        CHECK(line.rfind("calibration: " + good + ", model scout-hashing-v1-16: ", 0) == 0);
        CHECK(line.find("fusion.gated_dense_weight 3") != std::string::npos);
    }
    SECTION("no path, no calibration") {
        auto started = scout::gateway::start_calibration("", "hashing:16", embedder, note);
        REQUIRE(started.ok());
        CHECK_FALSE(started->has_value());
    }
    SECTION("each bad file is an error that names it and says why") {
        const auto refused = [&](const std::string& path, const std::string& why) {
            auto started = scout::gateway::start_calibration(path, "hashing:16", embedder, note);
            REQUIRE_FALSE(started.ok());
            CHECK(started.status().message().find(path) != std::string::npos);
            CHECK(says(started.status(), why));
        };
        refused(dir.file("missing.txt"), "missing.txt");
        refused(dir.write("truncated.txt", good_text.substr(0, good_text.size() - 4)), "truncated");
        refused(dir.write("no-end.txt", good_text.substr(0, good_text.rfind("end"))), "'end'");
        refused(dir.write("malformed.txt", "scout-calibration 1\nmodel m\nfusion.nope 1\nend\n"),
                "unknown key 'fusion.nope'");
        refused(dir.write("json.txt", "{\"fusion\": 1}\n"), "not a calibration file");
        refused(dir.file(""), "");  // a directory, not a file
        auto other = scout::gateway::start_calibration(
            good, "hashing:32", std::make_shared<scout::HashingEmbedder>(32), note);
        REQUIRE_FALSE(other.ok());
        CHECK(other.status().code() == scout::Errc::embedder_mismatch);
        CHECK(says(other.status(), good));
        CHECK(says(other.status(), "'scout-hashing-v1-16', not 'scout-hashing-v1-32'"));
    }
    SECTION("with the embedder none it is refused; an embedder missing at start skips it") {
        auto none = scout::gateway::start_calibration(good, "none", nullptr, note);
        REQUIRE_FALSE(none.ok());
        CHECK(says(none.status(), good));
        CHECK(says(none.status(), "BM25 only"));
        CHECK_FALSE(scout::gateway::check_calibration_file(good, "none").ok());
        CHECK(scout::gateway::check_calibration_file(good, "static").ok());
        auto missing = scout::gateway::start_calibration(good, "static", nullptr, note);
        REQUIRE(missing.ok());
        CHECK_FALSE(missing->has_value());
        CHECK(note.find("not applied") != std::string::npos);
        // Still read: a bad file is refused even then.
        CHECK_FALSE(
            scout::gateway::start_calibration(dir.file("missing.txt"), "static", nullptr, note)
                .ok());
    }
}

TEST_CASE("SIGHUP rechecks the calibration: a bad file refuses, a change waits for a restart",
          "[gateway][calibration][reload]") {
    using scout::gateway::check_reloaded_calibration;
    const scout::test::TempDir dir;
    const std::string model = "scout-hashing-v1-16";
    const Calibration running_settings = strong_dense_calibration(model);
    const std::string path = dir.write("fit.txt", scout::format_calibration(running_settings));
    const std::optional<CalibrationFile> running = CalibrationFile{path, running_settings};
    std::string change;

    CHECK(check_reloaded_calibration(path, "hashing:16", model, running, change).ok());
    CHECK(change.empty());

    // Another setting in the same file: applied at the next start only.
    Calibration other = running_settings;
    other.fusion.gated_dense_weight = 1;
    dir.write("fit.txt", scout::format_calibration(other));
    CHECK(check_reloaded_calibration(path, "hashing:16", model, running, change).ok());
    CHECK(change.find("needs a restart") != std::string::npos);
    // Removed from the config: also a change.
    CHECK(check_reloaded_calibration("", "hashing:16", model, running, change).ok());
    CHECK(change.find(path + " -> none") != std::string::npos);

    // A bad file refuses the reload, naming the file.
    const std::string text = scout::format_calibration(running_settings);
    dir.write("fit.txt", text.substr(0, text.size() - 2));
    auto s = check_reloaded_calibration(path, "hashing:16", model, running, change);
    CHECK_FALSE(s.ok());
    CHECK(says(s, path));
    other.model_id = "scout-hashing-v1-32";
    dir.write("fit.txt", scout::format_calibration(other));
    s = check_reloaded_calibration(path, "hashing:16", model, running, change);
    CHECK(s.code() == scout::Errc::embedder_mismatch);
    CHECK_FALSE(
        check_reloaded_calibration(dir.file("gone.txt"), "hashing:16", model, running, change)
            .ok());
    // The embedder none refuses any calibration; BM25 alone by fallback only reads it.
    dir.write("fit.txt", scout::format_calibration(running_settings));
    CHECK_FALSE(check_reloaded_calibration(path, "none", "", std::nullopt, change).ok());
    CHECK(check_reloaded_calibration(path, "static", "", std::nullopt, change).ok());
    CHECK(change.empty());
}

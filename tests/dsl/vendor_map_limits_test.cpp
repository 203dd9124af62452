// Vendor maps are read under the limits of policy files (docs/policy-format.md, Limits;
// docs/vendor-maps.md): too large a file is refused before it is parsed, a file with too many
// values (an aliased value counted each time it is used) or with a YAML tag is not read, each with
// RB112 limit-exceeded or RB004 wrong-type at its position.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "rebound/dsl/input_limits.hpp"
#include "rebound/dsl/vendor_map_loader.hpp"
#include "run_command.hpp"

namespace {

namespace fs = std::filesystem;
using rebound::dsl::DiagnosticCode;
using rebound::dsl::VendorMapSource;

rebound::dsl::VendorMapLoadResult load_text(const std::string& text) {
    return rebound::dsl::load_vendor_map_sources({VendorMapSource{"map.yaml", text}});
}

const std::string kHeader =
    "rebound_vendor_map: 1\n"
    "vendor: mysql\n"
    "sources: { ref: \"MySQL reference\" }\n"
    "rules:\n";
const std::string kRule = "  - { native: 1213, category: deadlock, source: ref }\n";

// The one diagnostic of a map that does not load.
rebound::dsl::Diagnostic only_diagnostic(const std::string& text) {
    const auto result = load_text(text);
    for (const auto& d : result.diagnostics) {
        INFO(rebound::dsl::format_diagnostic(d));
    }
    REQUIRE(result.diagnostics.size() == 1);
    CHECK(result.classifier == nullptr);
    CHECK(result.diagnostics.front().file == "map.yaml");
    return result.diagnostics.front();
}

}  // namespace

TEST_CASE("a vendor map larger than 1 MiB is refused before it is parsed",
          "[vendor_maps][limits]") {
    const std::string padding(rebound::dsl::kMaxInputBytes, '#');
    const std::string text = padding + "\n" + kHeader + kRule;
    REQUIRE(load_text(kHeader + kRule).classifier != nullptr);
    const auto d = only_diagnostic(text);
    CHECK(d.code == DiagnosticCode::LimitExceeded);
    CHECK(d.message == "the file has " + std::to_string(text.size()) +
                           " bytes, more than the limit of 1048576 (1 MiB) for a vendor map");
    // In a directory, the file is refused by its size and the directory gives no classifier.
    const fs::path directory = rebound::testing::make_temporary_directory("rebound-map-limits");
    fs::copy_file(fs::path(REBOUND_VENDOR_MAP_DIR) / "generic.yaml", directory / "generic.yaml");
    std::ofstream(directory / "mysql.yaml") << text;
    const auto result = rebound::dsl::load_vendor_maps(directory);
    fs::remove_all(directory);
    CHECK(result.classifier == nullptr);
    REQUIRE(result.diagnostics.size() == 1);
    CHECK(result.diagnostics[0].code == DiagnosticCode::LimitExceeded);
    CHECK(result.diagnostics[0].file == (directory / "mysql.yaml").generic_string());
}

TEST_CASE("a vendor map whose aliases multiply its values past 100,000 is not read",
          "[vendor_maps][limits]") {
    // Six levels of ten: a million values from a few hundred bytes.
    const std::string text = kHeader + kRule +
                             "  - native: 1205\n"
                             "    category: lock_timeout\n"
                             "    source: ref\n"
                             "    note:\n"
                             "      a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                             "      b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                             "      c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                             "      d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                             "      e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
                             "      f: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n";
    const auto d = only_diagnostic(text);
    CHECK(d.code == DiagnosticCode::LimitExceeded);
    CHECK(d.message ==
          "the file has more than 100000 values (an aliased value counts each time "
          "it is used): the rest was not read");
    CHECK(d.position.line >= 10);
    CHECK(d.position.line <= 15);
    CHECK(d.position.column > 0);
}

TEST_CASE("a vendor map with more than 100,000 values is not read", "[vendor_maps][limits]") {
    std::string text = kHeader;
    for (std::size_t i = 0; i <= rebound::dsl::kMaxNodes; ++i) {
        text += "  - 0\n";
    }
    REQUIRE(text.size() < rebound::dsl::kMaxInputBytes);
    // One diagnostic, not one per item that is not a rule.
    const auto d = only_diagnostic(text);
    CHECK(d.code == DiagnosticCode::LimitExceeded);
    CHECK(d.position.line == 5);
    CHECK(d.position.column == 3);
}

TEST_CASE("a YAML tag in a vendor map is an error at the tag", "[vendor_maps][limits]") {
    const auto on_value = only_diagnostic(
        kHeader + "  - { native: !!str 1213, category: !custom deadlock, source: ref }\n");
    CHECK(on_value.code == DiagnosticCode::WrongType);
    CHECK(on_value.message == "YAML tags are not supported, got '!custom'");
    CHECK(on_value.position.line == 5);
    CHECK(on_value.position.column == 37);
    const auto on_map = only_diagnostic(kHeader +
                                        "  - !!map { native: 1213, category: deadlock, "
                                        "source: ref }\n");
    CHECK(on_map.message == "YAML tags are not supported, got '!!map'");
    CHECK(on_map.position.line == 5);
}

TEST_CASE("the vendor-map fuzz corpus stays within the limits and loads as it did",
          "[vendor_maps][limits]") {
    // The seeds that are whole maps (copies of shipped maps, as they were when the corpus was
    // made) load; the others fail for what they are, never for a limit.
    std::size_t seeds = 0;
    std::size_t loaded = 0;
    for (const auto& entry :
         fs::directory_iterator(fs::path(REBOUND_FUZZ_CORPUS_DIR) / "vendor_map")) {
        std::ifstream in(entry.path(), std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
        const auto result = load_text(text);
        INFO(entry.path().filename().string());
        for (const auto& d : result.diagnostics) {
            CHECK(d.code != DiagnosticCode::LimitExceeded);
            CHECK(d.message.find("YAML tags") == std::string::npos);
        }
        ++seeds;
        loaded += result.classifier != nullptr ? 1U : 0U;
    }
    CHECK(seeds == 15);
    CHECK(loaded == 10);
}

// A vendor map directory with a map that is not a file (a dangling symlink, a directory, a FIFO)
// or without generic.yaml is refused with RB109, and `classify` and `decide` exit 2: a missing
// map must not turn MySQL deadlocks into `unknown` errors that are never retried.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <functional>

#include "rebound/dsl/vendor_map_loader.hpp"
#include "run_command.hpp"

namespace fs = std::filesystem;
using rebound::dsl::DiagnosticCode;

namespace {

struct VendorMapCopy {
    fs::path path = rebound::testing::make_temporary_directory("rebound-vendor-faults");
    VendorMapCopy() {
        for (const auto& entry : fs::directory_iterator(REBOUND_VENDOR_MAP_DIR)) {
            fs::copy_file(entry.path(), path / entry.path().filename());
        }
    }
    ~VendorMapCopy() {
        std::error_code ignored;
        fs::remove_all(path, ignored);
    }
};

}  // namespace

TEST_CASE("a vendor map that is not a file, or no generic.yaml, is refused with RB109",
          "[vendor-map][faults]") {
    const std::vector<std::pair<std::string, std::function<void(const fs::path&)>>> faults{
        {"the symlink cannot be followed",
         [](const fs::path& dir) {
             fs::remove(dir / "mysql.yaml");
             fs::create_symlink("..data/mysql.yaml", dir / "mysql.yaml");
         }},
        {"a directory, not a file",
         [](const fs::path& dir) {
             fs::remove(dir / "mysql.yaml");
             fs::create_directory(dir / "mysql.yaml");
         }},
        {"not a regular file",
         [](const fs::path& dir) {
             fs::remove(dir / "mysql.yaml");
             REQUIRE(::mkfifo((dir / "mysql.yaml").c_str(), 0600) == 0);
         }},
        {"has no generic.yaml", [](const fs::path& dir) { fs::remove(dir / "generic.yaml"); }},
    };
    for (const auto& [message, make_fault] : faults) {
        INFO(message);
        VendorMapCopy copy;
        REQUIRE(rebound::dsl::load_vendor_maps(copy.path).classifier != nullptr);
        make_fault(copy.path);
        const rebound::dsl::VendorMapLoadResult result = rebound::dsl::load_vendor_maps(copy.path);
        CHECK(result.classifier == nullptr);
        REQUIRE_FALSE(result.diagnostics.empty());
        CHECK(result.diagnostics.front().code == DiagnosticCode::UnreadableFile);
        CHECK(result.diagnostics.front().message.find(message) != std::string::npos);

        const auto classify = rebound::testing::run_command(
            {REBOUND_CLI_PATH, "classify", "--vendor", "mysql", "--native", "1213", "--vendor-maps",
             copy.path.string()});
        CHECK(classify.exit_code == 2);
        CHECK(classify.err.find("[RB109 unreadable-file]") != std::string::npos);
        const auto decide = rebound::testing::run_command(
            {REBOUND_CLI_PATH, "decide",
             std::string(REBOUND_SPEC_DIR) + "/conformance/01-fixed.yaml", "--handler", "H",
             "--attempt", "1", "--vendor", "mysql", "--native", "1213", "--vendor-maps",
             copy.path.string()});
        CHECK(decide.exit_code == 2);
        CHECK(decide.err.find("[RB109 unreadable-file]") != std::string::npos);
    }
}

// `rebound lint DIR` checks everything it is pointed at or says why it could not: empty
// directories, dangling and looping symlinks, files that are not regular, unreadable directories;
// and a Kubernetes ConfigMap mount is linted one file at a time, not twice.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "rebound/lint/policy_file_search.hpp"
#include "run_command.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using rebound::testing::CommandResult;

namespace {

constexpr std::string_view kPolicy = R"(rebound: 1
service: payments
policies:
  interactive:
    max_attempts: 3
    backoff: { type: exponential, initial: 50ms, max: 200ms }
    jitter: equal
    deadline: 3s
    retry_on: [deadlock, serialization_failure]
)";

struct TemporaryDirectory {
    fs::path path = rebound::testing::make_temporary_directory("rebound-lint-paths");
    ~TemporaryDirectory() {
        std::error_code ignored;
        fs::permissions(path / "locked", fs::perms::owner_all, ignored);
        fs::remove_all(path, ignored);
    }
    fs::path write(const std::string& name, std::string_view text) const {
        const fs::path file = path / name;
        fs::create_directories(file.parent_path());
        std::ofstream(file, std::ios::binary) << text;
        return file;
    }
};

CommandResult lint(const fs::path& directory) {
    return rebound::testing::run_command(
        {REBOUND_CLI_PATH, "lint", "--no-source", directory.string()});
}

}  // namespace

TEST_CASE("lint of an empty directory says no policy files were found and exits 2",
          "[lint][paths]") {
    TemporaryDirectory dir;
    dir.write("README.md", "not a policy\n");
    const CommandResult result = lint(dir.path);
    CHECK(result.exit_code == 2);
    CHECK(result.out.find("no policy files found") != std::string::npos);
    CHECK(result.out.find("[RB109 unreadable-file]") != std::string::npos);
}

TEST_CASE("lint reports dangling and looping .yaml symlinks and non-regular files, exit 2",
          "[lint][paths]") {
    TemporaryDirectory dir;
    dir.write("good/payments.yaml", kPolicy);
    fs::create_directories(dir.path / "bad");
    fs::create_symlink("gone.yaml", dir.path / "bad" / "dangling.yaml");
    fs::create_symlink("loop-b.yaml", dir.path / "bad" / "loop-a.yaml");
    fs::create_symlink("loop-a.yaml", dir.path / "bad" / "loop-b.yaml");
    REQUIRE(::mkfifo((dir.path / "bad" / "pipe.yaml").c_str(), 0600) == 0);

    const rebound::lint::PolicyFileSearch search =
        rebound::lint::find_policy_files({dir.path.string()});
    CHECK(search.files == std::vector<std::string>{(dir.path / "good/payments.yaml").string()});
    REQUIRE(search.problems.size() == 4);

    const CommandResult result = lint(dir.path);
    CHECK(result.exit_code == 2);
    for (const std::string name : {"dangling.yaml", "loop-a.yaml", "loop-b.yaml"}) {
        INFO(result.out);
        CHECK(result.out.find("bad/" + name + ": error: the symlink cannot be followed") !=
              std::string::npos);
    }
    CHECK(result.out.find("pipe.yaml: error: not a regular file") != std::string::npos);
}

TEST_CASE("lint reports a subdirectory it cannot read, exit 2", "[lint][paths]") {
    TemporaryDirectory dir;
    dir.write("payments.yaml", kPolicy);
    dir.write("locked/orders.yaml", kPolicy);
    fs::permissions(dir.path / "locked", fs::perms::none);
    const bool can_read_anyway = ::access((dir.path / "locked").c_str(), R_OK) == 0;  // root
    const CommandResult result = lint(dir.path);
    if (can_read_anyway) {
        CHECK(result.exit_code == 0);  // root reads it: both files linted
    } else {
        CHECK(result.exit_code == 2);
        CHECK(result.out.find("locked: error: cannot read the directory") != std::string::npos);
    }
}

TEST_CASE("lint of a Kubernetes ConfigMap mount lints each file once, by its own name",
          "[lint][paths]") {
    // The kubelet's layout: the files live in a timestamped hidden folder, `..data` points at
    // it, and each file name is a symlink through `..data`.
    TemporaryDirectory dir;
    dir.write("..2026_11_25_10_00_00.123/payments.yaml", kPolicy);
    fs::create_directory_symlink("..2026_11_25_10_00_00.123", dir.path / "..data");
    fs::create_symlink("..data/payments.yaml", dir.path / "payments.yaml");

    const CommandResult result = rebound::testing::run_command(
        {REBOUND_CLI_PATH, "lint", "--format", "json", dir.path.string()});
    CHECK(result.exit_code == 0);
    const json report = json::parse(result.out);
    CHECK(report["files"] == 1);
    CHECK(rebound::lint::find_policy_files({dir.path.string()}).files ==
          std::vector<std::string>{(dir.path / "payments.yaml").string()});
}

TEST_CASE("lint and explain report a directory named like a policy file, exit 2", "[lint][paths]") {
    // A `payments.yaml/` folder (a deployment that unpacked into the wrong place) must not leave
    // the service out silently; nor may a symlink to a directory by such a name.
    TemporaryDirectory dir;
    dir.write("orders.yaml", kPolicy);
    dir.write("payments.yaml/inner.yaml", kPolicy);
    fs::create_directory_symlink("payments.yaml", dir.path / "billing.json");

    const rebound::lint::PolicyFileSearch search =
        rebound::lint::find_policy_files({dir.path.string()});
    CHECK(search.files == std::vector<std::string>{(dir.path / "orders.yaml").string()});
    REQUIRE(search.problems.size() == 2);
    for (const auto& problem : search.problems) {
        CHECK(problem.code == rebound::dsl::DiagnosticCode::UnreadableFile);
        CHECK(problem.message == "a directory, not a file");
    }

    const CommandResult result = lint(dir.path);
    CHECK(result.exit_code == 2);
    INFO(result.out);
    CHECK(result.out.find("payments.yaml: error: a directory, not a file") != std::string::npos);
    CHECK(result.out.find("billing.json: error: a directory, not a file") != std::string::npos);

    const CommandResult explained = rebound::testing::run_command(
        {REBOUND_CLI_PATH, "explain", (dir.path / "payments.yaml").string()});
    CHECK(explained.exit_code == 2);
    CHECK(explained.err.find("payments.yaml: error: cannot read file") != std::string::npos);
}

// The policy directory and its watcher under the faults of operations: the directory deleted and
// created again or replaced, busy unrelated files, changes that never pause, dangling symlinks,
// the Kubernetes ConfigMap layout, and stop() while a reload compiles. The tests wait for the
// watcher's reports (condition variables with a generous limit), never for time to pass.
#include <catch2/catch.hpp>

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <map>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "rebound/dsl/policy_directory.hpp"
#include "rebound/dsl/policy_file_watcher.hpp"
#include "run_command.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using rebound::dsl::DiagnosticCode;
using rebound::dsl::Diagnostics;
using rebound::dsl::PolicyDirectoryStore;
using rebound::dsl::PolicyFileWatcher;
using rebound::dsl::PolicyFileWatcherOptions;

namespace {

constexpr auto kPatience = 20s;  // how long a test waits for a report that must come

std::string payments(int attempts) {
    return "rebound: 1\nservice: payments\npolicies:\n  interactive:\n    max_attempts: " +
           std::to_string(attempts) + "\n";
}

std::string service_file(const std::string& service) {
    return "rebound: 1\nservice: " + service + "\npolicies:\n  interactive:\n    max_attempts: 2\n";
}

struct TemporaryDirectory {
    fs::path parent = rebound::testing::make_temporary_directory("rebound-watcher-faults");
    fs::path path = parent / "policies";
    TemporaryDirectory() { fs::create_directories(path); }
    ~TemporaryDirectory() {
        std::error_code ignored;
        fs::remove_all(parent, ignored);
    }
};

// Writes through a temporary name and a rename, as deployment tools do.
void write_file(const fs::path& file, std::string_view text) {
    const fs::path temporary = file.parent_path() / (file.filename().string() + ".partial");
    std::ofstream(temporary) << text;
    fs::rename(temporary, file);
}

// What the watcher reported, for waiting on it.
class Reports {
  public:
    PolicyFileWatcherOptions options(std::chrono::milliseconds settle,
                                     std::chrono::milliseconds max_settle = 2s) {
        PolicyFileWatcherOptions result;
        result.settle = settle;
        result.max_settle = max_settle;
        result.on_reload = [this](bool swapped) {
            std::lock_guard lock(mutex_);
            ++(swapped ? swaps_ : failures_);
            changed_.notify_all();
        };
        return result;
    }

    PolicyDirectoryStore::DiagnosticsCallback diagnostics() {
        return [this](const Diagnostics& diagnostics) {
            std::lock_guard lock(mutex_);
            last_diagnostics_ = diagnostics;
        };
    }

    // Waits until the watcher reported `swaps` swaps (or `failures` failed reloads) in all.
    bool wait_for_swaps(int swaps) {
        return wait([&] { return swaps_ >= swaps; });
    }
    bool wait_for_failures(int failures) {
        return wait([&] { return failures_ >= failures; });
    }

    Diagnostics last_diagnostics() {
        std::lock_guard lock(mutex_);
        return last_diagnostics_;
    }

  private:
    template <typename Predicate>
    bool wait(Predicate done) {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, kPatience, done);
    }

    std::mutex mutex_;
    std::condition_variable changed_;
    int swaps_ = 0;
    int failures_ = 0;
    Diagnostics last_diagnostics_;
};

std::int64_t attempts_now(const PolicyDirectoryStore& store) {
    return store.current()->service("payments")->find("interactive")->max_attempts();
}

// Waits until a file named `name` is opened in the directory `inotify_fd` watches for IN_OPEN.
bool wait_for_open(int inotify_fd, std::string_view name) {
    const auto give_up = std::chrono::steady_clock::now() + kPatience;
    alignas(inotify_event) std::array<char, 4096> buffer{};
    while (std::chrono::steady_clock::now() < give_up) {
        pollfd ready{inotify_fd, POLLIN, 0};
        if (::poll(&ready, 1, 100) <= 0) {
            continue;
        }
        const ssize_t n = ::read(inotify_fd, buffer.data(), buffer.size());
        for (ssize_t at = 0; at < n;) {
            inotify_event event{};
            std::memcpy(&event, buffer.data() + at, sizeof event);
            const char* event_name = buffer.data() + at + sizeof(inotify_event);
            if (event.len > 0 && std::string_view(event_name) == name) {
                return true;
            }
            at += static_cast<ssize_t>(sizeof(inotify_event) + event.len);
        }
    }
    return false;
}

bool has_code(const Diagnostics& diagnostics, DiagnosticCode code) {
    return std::any_of(diagnostics.begin(), diagnostics.end(),
                       [code](const auto& d) { return d.code == code; });
}

}  // namespace

TEST_CASE("the watcher follows a directory deleted and created again", "[watcher][faults]") {
    TemporaryDirectory dir;
    write_file(dir.path / "payments.yaml", payments(3));
    PolicyDirectoryStore store;
    REQUIRE(rebound::dsl::reload_policy_directory(store, dir.path));
    Reports reports;
    PolicyFileWatcher watcher(store, dir.path, {}, reports.diagnostics(), reports.options(20ms));

    fs::remove_all(dir.path);
    REQUIRE(reports.wait_for_failures(1));  // the missing directory is reported
    CHECK(has_code(reports.last_diagnostics(), DiagnosticCode::UnreadableFile));
    CHECK(attempts_now(store) == 3);  // the last good snapshot stays

    fs::create_directories(dir.path);
    write_file(dir.path / "payments.yaml", payments(4));
    REQUIRE(reports.wait_for_swaps(1));
    CHECK(attempts_now(store) == 4);
    write_file(dir.path / "payments.yaml", payments(5));  // and keeps watching the new one
    REQUIRE(reports.wait_for_swaps(2));
    CHECK(attempts_now(store) == 5);
}

TEST_CASE("the watcher follows a directory moved aside and replaced by a new one",
          "[watcher][faults]") {
    TemporaryDirectory dir;
    write_file(dir.path / "payments.yaml", payments(3));
    PolicyDirectoryStore store;
    REQUIRE(rebound::dsl::reload_policy_directory(store, dir.path));
    Reports reports;
    PolicyFileWatcher watcher(store, dir.path, {}, reports.diagnostics(), reports.options(20ms));

    fs::rename(dir.path, dir.parent / "old");
    fs::create_directories(dir.path);
    write_file(dir.path / "payments.yaml", payments(6));
    REQUIRE(reports.wait_for_swaps(1));
    CHECK(attempts_now(store) == 6);
    // Changes in the old directory, now elsewhere, are not the policies any more.
    write_file(dir.parent / "old" / "payments.yaml", payments(9));
    write_file(dir.path / "payments.yaml", payments(7));
    REQUIRE(reports.wait_for_swaps(2));
    CHECK(attempts_now(store) == 7);
}

TEST_CASE("a log file written all the time does not postpone reloads", "[watcher][faults]") {
    TemporaryDirectory dir;
    write_file(dir.path / "payments.yaml", payments(3));
    PolicyDirectoryStore store;
    REQUIRE(rebound::dsl::reload_policy_directory(store, dir.path));
    Reports reports;
    // No maximum settle time to speak of: only ignoring app.log lets the reload happen.
    PolicyFileWatcher watcher(store, dir.path, {}, reports.diagnostics(),
                              reports.options(100ms, 1h));
    std::atomic<bool> writing = true;
    std::jthread logger([&] {
        std::ofstream log(dir.path / "app.log");
        while (writing) {
            log << "a line\n" << std::flush;
            std::ofstream(dir.path / "app.log.tmp") << "x";  // closed after writing
            std::this_thread::sleep_for(10ms);
        }
    });
    write_file(dir.path / "payments.yaml", payments(8));
    const bool swapped = reports.wait_for_swaps(1);
    writing = false;
    REQUIRE(swapped);
    CHECK(attempts_now(store) == 8);
}

TEST_CASE("changes that never pause are reloaded within the maximum settle time",
          "[watcher][faults]") {
    TemporaryDirectory dir;
    write_file(dir.path / "payments.yaml", payments(3));
    PolicyDirectoryStore store;
    REQUIRE(rebound::dsl::reload_policy_directory(store, dir.path));
    Reports reports;
    PolicyFileWatcher watcher(store, dir.path, {}, reports.diagnostics(),
                              reports.options(1h, 100ms));
    std::atomic<bool> writing = true;
    std::jthread writer([&] {
        for (int i = 0; writing; ++i) {
            write_file(dir.path / "payments.yaml", payments(10 + i % 2));
            std::this_thread::sleep_for(10ms);
        }
    });
    const bool swapped = reports.wait_for_swaps(1);
    writing = false;
    REQUIRE(swapped);
}

TEST_CASE("a dangling .yaml symlink fails the reload with a diagnostic and keeps the snapshot",
          "[watcher][faults]") {
    TemporaryDirectory dir;
    write_file(dir.path / "payments.yaml", payments(3));
    write_file(dir.path / "orders.yaml", service_file("orders"));
    PolicyDirectoryStore store;
    REQUIRE(rebound::dsl::reload_policy_directory(store, dir.path));
    Reports reports;
    PolicyFileWatcher watcher(store, dir.path, {}, reports.diagnostics(), reports.options(20ms));

    fs::remove(dir.path / "orders.yaml");
    fs::create_symlink("..data/orders.yaml", dir.path / "orders.yaml");
    REQUIRE(reports.wait_for_failures(1));
    const Diagnostics diagnostics = reports.last_diagnostics();
    REQUIRE(diagnostics.size() == 1);
    CHECK(diagnostics[0].code == DiagnosticCode::UnreadableFile);
    CHECK(diagnostics[0].file == (dir.path / "orders.yaml").string());
    CHECK(diagnostics[0].message.find("the symlink cannot be followed") != std::string::npos);
    CHECK(store.current()->service("orders") != nullptr);

    const auto loaded = rebound::dsl::load_policy_directory(dir.path);
    CHECK(loaded.directory == nullptr);
}

TEST_CASE("a directory named like a policy file fails the load with a diagnostic",
          "[watcher][faults]") {
    TemporaryDirectory dir;
    write_file(dir.path / "payments.yaml", payments(3));
    write_file(dir.path / "orders.yaml", service_file("orders"));
    PolicyDirectoryStore store;
    REQUIRE(rebound::dsl::reload_policy_directory(store, dir.path));

    // orders.yaml replaced by a folder of that name, then by a symlink to a folder: neither may
    // drop the orders service from a snapshot that loads.
    fs::remove(dir.path / "orders.yaml");
    fs::create_directory(dir.path / "orders.yaml");
    fs::create_directory(dir.parent / "folder");
    for (const bool through_symlink : {false, true}) {
        INFO("through a symlink: " << through_symlink);
        if (through_symlink) {
            fs::remove(dir.path / "orders.yaml");
            fs::create_directory_symlink(dir.parent / "folder", dir.path / "orders.yaml");
        }
        Diagnostics reported;
        CHECK_FALSE(rebound::dsl::reload_policy_directory(
            store, dir.path, {}, [&](const Diagnostics& diagnostics) { reported = diagnostics; }));
        REQUIRE(reported.size() == 1);
        CHECK(reported[0].code == DiagnosticCode::UnreadableFile);
        CHECK(reported[0].file == (dir.path / "orders.yaml").string());
        CHECK(reported[0].message == "a directory, not a file");
        CHECK(store.current()->service("orders") != nullptr);  // the last good snapshot stays
        CHECK(rebound::dsl::load_policy_directory(dir.path).directory == nullptr);
    }
}

TEST_CASE("a Kubernetes ConfigMap mount: atomic ..data swaps, bad update, file added, removed",
          "[watcher][faults]") {
    TemporaryDirectory dir;
    // The kubelet's layout: files in a timestamped folder, `..data` pointing at it, each file
    // name a symlink through `..data`; an update writes a new folder and renames a new `..data`
    // symlink over the old one.
    int version = 0;
    const auto publish = [&](const std::map<std::string, std::string>& files) {
        const std::string folder = "..2026_11_25_10_00_0" + std::to_string(++version);
        fs::create_directories(dir.path / folder);
        for (const auto& [name, text] : files) {
            std::ofstream(dir.path / folder / name) << text;
            if (!fs::is_symlink(dir.path / name)) {
                fs::create_symlink("..data/" + name, dir.path / name);
            }
        }
        fs::create_directory_symlink(folder, dir.path / "..data_tmp");
        fs::rename(dir.path / "..data_tmp", dir.path / "..data");
    };
    publish({{"payments.yaml", payments(3)}});
    PolicyDirectoryStore store;
    REQUIRE(rebound::dsl::reload_policy_directory(store, dir.path));
    CHECK(store.current()->files().size() == 1);
    Reports reports;
    PolicyFileWatcher watcher(store, dir.path, {}, reports.diagnostics(), reports.options(20ms));

    publish({{"payments.yaml", payments(4)}});  // a good update
    REQUIRE(reports.wait_for_swaps(1));
    CHECK(attempts_now(store) == 4);

    publish(
        {{"payments.yaml", "rebound: 1\nservice: payments\npolicies: {p: {max_attempts: 0}}\n"}});
    REQUIRE(reports.wait_for_failures(1));  // a bad update: the last good snapshot stays
    CHECK(attempts_now(store) == 4);

    publish({{"payments.yaml", payments(5)}, {"orders.yaml", service_file("orders")}});
    REQUIRE(reports.wait_for_swaps(2));  // a file added
    CHECK(attempts_now(store) == 5);
    CHECK(store.current()->service("orders") != nullptr);

    publish({{"payments.yaml", payments(5)}});  // orders.yaml removed: its symlink dangles
    REQUIRE(reports.wait_for_failures(2));
    CHECK(store.current()->service("orders") != nullptr);
    fs::remove(dir.path / "orders.yaml");  // the kubelet removes the stale symlink too
    REQUIRE(reports.wait_for_swaps(3));
    CHECK(store.current()->service("orders") == nullptr);
    CHECK(store.current()->files() == std::vector<fs::path>{dir.path / "payments.yaml"});
}

TEST_CASE("a symlink swapped by ln -sfn reloads its new target, and a broken one reports",
          "[watcher][faults]") {
    TemporaryDirectory dir;
    // Builds a version directory under a temporary name and renames it into place, so that the
    // watcher never sees it half-written.
    const auto release = [&](const std::string& version, int attempts) {
        const fs::path building = dir.parent / (version + ".building");
        fs::create_directories(building);
        std::ofstream(building / "payments.yaml") << payments(attempts);
        fs::rename(building, dir.parent / version);
    };
    // As `ln -sfn TARGET current` does: a new symlink under a temporary name, renamed over it.
    const fs::path current = dir.parent / "current";
    const auto switch_to = [&](const std::string& version) {
        const fs::path link = dir.parent / "current.tmp";
        fs::create_directory_symlink(version, link);
        fs::rename(link, current);
    };
    release("v1", 3);
    fs::create_directory_symlink("v1", current);
    PolicyDirectoryStore store;
    REQUIRE(rebound::dsl::reload_policy_directory(store, current));
    Reports reports;
    PolicyFileWatcher watcher(store, current, {}, reports.diagnostics(), reports.options(20ms));

    release("v2", 4);
    switch_to("v2");
    REQUIRE(reports.wait_for_swaps(1));
    CHECK(attempts_now(store) == 4);
    write_file(dir.parent / "v2" / "payments.yaml", payments(5));  // the new target is watched
    REQUIRE(reports.wait_for_swaps(2));
    CHECK(attempts_now(store) == 5);

    switch_to("v3");  // not released yet: the symlink dangles
    REQUIRE(reports.wait_for_failures(1));
    CHECK(has_code(reports.last_diagnostics(), DiagnosticCode::UnreadableFile));
    CHECK(attempts_now(store) == 5);  // the last good policies stay

    release("v3", 6);  // the target appears: looked for again, and loaded
    REQUIRE(reports.wait_for_swaps(3));
    CHECK(attempts_now(store) == 6);
}

TEST_CASE("a change made after the load and before the watcher started is reloaded",
          "[watcher][faults]") {
    TemporaryDirectory dir;
    write_file(dir.path / "payments.yaml", payments(3));
    write_file(dir.path / "orders.yaml", service_file("orders"));
    PolicyDirectoryStore store;
    REQUIRE(rebound::dsl::reload_policy_directory(store, dir.path));
    Reports reports;

    SECTION("a file's text changed") {
        write_file(dir.path / "payments.yaml", payments(4));
        PolicyFileWatcher watcher(store, dir.path, {}, reports.diagnostics(),
                                  reports.options(20ms));
        REQUIRE(reports.wait_for_swaps(1));
        CHECK(attempts_now(store) == 4);
        CHECK(watcher.reloads() == 1);
    }
    SECTION("a file removed") {
        fs::remove(dir.path / "orders.yaml");
        PolicyFileWatcher watcher(store, dir.path, {}, reports.diagnostics(),
                                  reports.options(20ms));
        REQUIRE(reports.wait_for_swaps(1));
        CHECK(store.current()->service("orders") == nullptr);
    }
    SECTION("nothing changed: no reload until a change") {
        CHECK(store.current()->matches_files_on_disk());
        PolicyFileWatcher watcher(store, dir.path, {}, reports.diagnostics(),
                                  reports.options(20ms));
        write_file(dir.path / "payments.yaml", payments(7));
        REQUIRE(reports.wait_for_swaps(1));
        CHECK(attempts_now(store) == 7);
        CHECK(store.generation() == 2);  // the change's reload only
        CHECK(store.current()->matches_files_on_disk());
    }
}

TEST_CASE("a directory load asked to stop loads no file and reports nothing", "[watcher][faults]") {
    TemporaryDirectory dir;
    write_file(dir.path / "payments.yaml", payments(3));
    std::stop_source stop;
    stop.request_stop();
    rebound::dsl::DirectoryLoadOptions options;
    options.stop = stop.get_token();
    const auto stopped = rebound::dsl::load_policy_directory(dir.path, options);
    CHECK(stopped.directory == nullptr);
    CHECK(stopped.diagnostics.empty());
    CHECK(rebound::dsl::load_policy_directory(dir.path).directory != nullptr);
}

TEST_CASE("stop() abandons a reload that is compiling instead of waiting for it",
          "[watcher][faults]") {
    TemporaryDirectory dir;
    // Many files at the policy limit: compiling them all takes far longer than the test waits.
    std::string big = "rebound: 1\nservice: s\npolicies:\n";
    for (int i = 0; i < 1000; ++i) {
        big += "  p" + std::to_string(i) + ": {max_attempts: 3, retry_on: [deadlock]}\n";
    }
    for (int file = 0; file < 60; ++file) {
        std::string text = big;
        text.replace(text.find("service: s"), 10, "service: s" + std::to_string(file));
        std::ofstream(dir.path / ("s" + std::to_string(file) + ".yaml")) << text;
    }
    PolicyDirectoryStore store;  // never loaded: the first snapshot would come from the watcher
    Reports reports;
    {
        PolicyFileWatcher watcher(store, dir.path, {}, reports.diagnostics(),
                                  reports.options(1ms, 1ms));
        const int opens = ::inotify_init1(IN_CLOEXEC);
        REQUIRE(::inotify_add_watch(opens, dir.path.c_str(), IN_OPEN) >= 0);
        std::ofstream(dir.path / "s0.yaml", std::ios::app) << "# touched\n";
        // The reload is under way once it opens the second file (s0, s1, s10, ... in order).
        REQUIRE(wait_for_open(opens, "s1.yaml"));
        ::close(opens);
        watcher.stop();
        CHECK(watcher.reloads() == 0);
    }
    CHECK(store.generation() == 0);
}

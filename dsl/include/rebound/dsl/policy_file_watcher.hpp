// PolicyFileWatcher: reloads a PolicyDirectoryStore when files of its directory change (Linux
// inotify), on a background std::jthread.
//
//   rebound::dsl::PolicyFileWatcher watcher(store, "/etc/rebound", {.handlers = &registry},
//                                           [](const auto& diagnostics) { log(diagnostics); });
//
// Any change in the directory (a file written and closed, created, moved in or out, deleted;
// also Kubernetes-style symlink swaps) starts a short settle period; when no further change
// arrives within it, the whole directory is reloaded once. A failed reload leaves the last good
// snapshot in the store and reports through the callback. The destructor (or stop()) ends the
// thread promptly and joins it; no callback runs after it returns.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <thread>

#include "rebound/dsl/policy_directory.hpp"

namespace rebound::dsl {

struct PolicyFileWatcherOptions {
    // How long the directory must stay quiet after a change before reloading.
    std::chrono::milliseconds settle{100};
    // Called after every reload with whether it swapped (optional; on the watcher thread).
    std::function<void(bool swapped)> on_reload{};
};

class PolicyFileWatcher {
  public:
    // Starts watching `directory` (it is not loaded now: load it first). `store`, and the
    // registries in `load_options`, must outlive the watcher. Throws std::system_error when
    // inotify cannot watch the directory.
    PolicyFileWatcher(PolicyDirectoryStore& store, std::filesystem::path directory,
                      DirectoryLoadOptions load_options,
                      PolicyDirectoryStore::DiagnosticsCallback on_diagnostics = {},
                      PolicyFileWatcherOptions options = {});
    ~PolicyFileWatcher();
    PolicyFileWatcher(const PolicyFileWatcher&) = delete;
    PolicyFileWatcher& operator=(const PolicyFileWatcher&) = delete;

    // Stops and joins the background thread. Idempotent.
    void stop();

    // Reloads completed by the watcher so far (successful or not).
    std::uint64_t reloads() const noexcept { return reloads_.load(); }

  private:
    void watch(const std::stop_token& stop);
    void reload();

    PolicyDirectoryStore& store_;
    std::filesystem::path directory_;
    DirectoryLoadOptions load_options_;
    PolicyDirectoryStore::DiagnosticsCallback on_diagnostics_;
    PolicyFileWatcherOptions options_;
    int inotify_fd_ = -1;
    int wake_fd_ = -1;
    std::atomic<std::uint64_t> reloads_{0};
    std::jthread thread_;  // last: started after every member it uses exists
};

}  // namespace rebound::dsl

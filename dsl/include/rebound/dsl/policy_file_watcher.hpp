// PolicyFileWatcher: reloads a PolicyDirectoryStore when files of its directory change (Linux
// inotify), on a background std::jthread.
//
//   rebound::dsl::PolicyFileWatcher watcher(store, "/etc/rebound", {.handlers = &registry},
//                                           [](const auto& diagnostics) { log(diagnostics); });
//
// A change to a policy file (written and closed, created, moved in or out, deleted), to a
// subdirectory or to a name starting with `..` (Kubernetes ConfigMap symlink swaps) starts a
// settle period; when no further such change arrives within it, or at the latest `max_settle`
// after the first change, the whole directory is reloaded once. Changes to other files (an
// `app.log` written beside the policies) are ignored. A failed reload leaves the last good
// snapshot in the store and reports through the callback.
//
// The directory may go away: deleted and created again, or moved aside and replaced (`mv`,
// `mkdir`). The watcher then reloads once (which fails and reports the missing directory), tries
// to watch the path again every settle period, and reloads as soon as it is back. It never stops
// watching silently.
//
// The path may be a symlink switched by deploys (`ln -sfn v2 current`, which renames a new link
// over the old one): the watcher also watches the directory holding the path's own name and,
// when that name is replaced or removed, watches what the path names now and reloads. A swap to
// a target that does not exist fails that reload (the store keeps its snapshot) and the target is
// looked for every settle period, as a directory that went away. (A symlink elsewhere in the path,
// such as /srv/current/policies with current the link, is resolved only when the watch is taken.)
//
// A change made before the watch was armed, after the store's snapshot was loaded (or while it
// loaded), is not lost: when the thread starts, it reloads unless the store holds a snapshot of
// this path whose files are still those on disk, with the same contents
// (PolicyDirectory::matches_files_on_disk; so also when the store holds no snapshot).
//
// The destructor (or stop()) ends the thread promptly, also while a reload is compiling (the
// reload is abandoned between files; the store keeps its snapshot), and joins it; no callback
// runs after it returns.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

#include "rebound/dsl/policy_directory.hpp"

namespace rebound::dsl {

struct PolicyFileWatcherOptions {
    // How long the directory must stay quiet after a change before reloading; also how often a
    // directory that went away is looked for again.
    std::chrono::milliseconds settle{100};
    // The longest a reload waits after the first change while changes keep arriving.
    std::chrono::milliseconds max_settle{2000};
    // Called after every reload with whether it swapped (optional; on the watcher thread).
    std::function<void(bool swapped)> on_reload{};
};

class PolicyFileWatcher {
  public:
    // Starts watching `directory` (load it first: the watcher reloads only when the files
    // changed since, see above). `store`, and the registries in `load_options`, must outlive the
    // watcher. Throws std::system_error when inotify cannot watch the directory, or when
    // `directory` is a symlink and the directory holding it cannot be watched.
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
    void reload(const std::stop_token& stop);
    // Watches directory_ again after it went away; whether it is watched now.
    bool rewatch();
    // Drops the watch of what directory_ named and watches what it names now (if anything).
    void retarget();
    // Watches the parent of directory_ for the replacement of directory_ itself.
    void watch_parent();
    // Whether the store holds a snapshot of directory_ as its files are now.
    bool snapshot_is_current() const;
    // Reads the pending events; whether any concerns the policies (and notes a lost watch).
    bool read_events();

    PolicyDirectoryStore& store_;
    std::filesystem::path directory_;
    DirectoryLoadOptions load_options_;
    PolicyDirectoryStore::DiagnosticsCallback on_diagnostics_;
    PolicyFileWatcherOptions options_;
    int inotify_fd_ = -1;
    int watch_ = -1;         // the watch descriptor of directory_; -1 while it is gone
    int parent_watch_ = -1;  // of the directory holding directory_'s own name; -1: none
    std::string link_name_;  // that name
    int wake_fd_ = -1;
    std::atomic<std::uint64_t> reloads_{0};
    std::jthread thread_;  // last: started after every member it uses exists
};

}  // namespace rebound::dsl

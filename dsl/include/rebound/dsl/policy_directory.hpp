// PolicyDirectory: every service file of one directory, compiled into one immutable snapshot,
// and the glue that keeps a PolicyStore of them current.
//
//   rebound::dsl::PolicyDirectoryStore store;
//   rebound::dsl::reload_policy_directory(store, "/etc/rebound", {.handlers = &registry},
//                                          [](const auto& diagnostics) { ... });
//   rebound::RetryExecutor executor({.resolver = rebound::dsl::make_resolver(store, registry,
//                                                                             "payments")});
//
// The directory's files with a policy extension (.yaml .yml .json .rebound, mixed freely; other
// files and subdirectories are ignored) are loaded in name order; a policy file name that is not
// a readable file (a dangling or looping symlink, a directory, a FIFO) is an error. A path naming
// one policy file instead of a directory loads that file alone, so a single-file service works
// the same way. The snapshot exists only when every file compiled, no two files name the same
// service, and every tier named by a registered handler is a policy of every service; otherwise
// the result carries the diagnostics and no snapshot, so a store keeps its last good one.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/dsl/diagnostic.hpp"
#include "rebound/handler_registry.hpp"
#include "rebound/policy.hpp"
#include "rebound/policy_set.hpp"
#include "rebound/policy_store.hpp"
#include "rebound/retry_executor.hpp"

namespace rebound::dsl {

class PolicyDirectory {
  public:
    using Services = std::map<std::string, std::shared_ptr<const PolicySet>, std::less<>>;

    // `fingerprints`: one per file, of its text as loaded (std::hash of the bytes); empty when
    // unknown, and matches_files_on_disk() is then false.
    PolicyDirectory(std::filesystem::path root, Services services,
                    std::vector<std::filesystem::path> files,
                    std::vector<std::size_t> fingerprints = {});

    const std::filesystem::path& root() const noexcept { return root_; }
    // Compiled service files by service name.
    const Services& services() const noexcept { return services_; }
    // The set of service `name`, or null.
    std::shared_ptr<const PolicySet> service(std::string_view name) const;
    // The files loaded, in name order.
    const std::vector<std::filesystem::path>& files() const noexcept { return files_; }
    // Whether root() still holds what this snapshot was loaded from: the same policy file names,
    // each with the same text (it reads them all). False when anything cannot be read. How
    // PolicyFileWatcher notices a change made before it started watching. Never throws.
    bool matches_files_on_disk() const noexcept;

  private:
    std::filesystem::path root_;
    Services services_;
    std::vector<std::filesystem::path> files_;
    std::vector<std::size_t> fingerprints_;
};

struct DirectoryLoadOptions {
    PolicyCompileOptions compile{};  // registries of error types and predicates
    // When given, annotation tiers are checked, and so are exact handler bindings: one that names
    // no registered handler (a typo such as `payments.captur`) is a warning (RB111
    // unknown-handler) with a did-you-mean, since the handler it meant falls back to its code
    // tier. Prefix bindings (`orders.*`) are not checked.
    const HandlerRegistry* handlers = nullptr;
    // With `handlers`: such a binding is an error, so the directory does not load.
    bool strict_bindings = false;
    // When stop is requested, loading ends before the next file and yields no directory and no
    // diagnostics: how PolicyFileWatcher::stop() returns promptly while a reload compiles.
    std::stop_token stop{};
};

struct DirectoryLoadResult {
    std::shared_ptr<const PolicyDirectory> directory;  // null when any error was found
    Diagnostics diagnostics;                           // every file's, in file order
};

// Never throws: unreadable directories and files, a policy file name that is a dangling symlink,
// a directory or not a regular file, and running out of memory are diagnostics. An empty
// directory (no policy file) is an error, so that a half-finished deployment is not taken for "no
// policies".
DirectoryLoadResult load_policy_directory(const std::filesystem::path& directory,
                                          const DirectoryLoadOptions& options = {});

using PolicyDirectoryStore = PolicyStore<PolicyDirectory, Diagnostics>;

// Loads `directory` and installs it in `store` when it compiled; returns whether it swapped.
// `on_diagnostics` (optional) receives the diagnostics when there are any.
bool reload_policy_directory(PolicyDirectoryStore& store, const std::filesystem::path& directory,
                             const DirectoryLoadOptions& options = {},
                             const PolicyDirectoryStore::DiagnosticsCallback& on_diagnostics = {});

// A resolver for RetryExecutor: at the start of each run, the policy of a handler in service
// `service` of the store's current snapshot (the built-in policy and code registrations only
// while the store is empty or lacks the service). `store` and `registry` must outlive it.
PolicyResolver make_resolver(const PolicyDirectoryStore& store, const HandlerRegistry& registry,
                             std::string service);

}  // namespace rebound::dsl

// PolicyStore: the current compiled policies of a process, swapped atomically on reload.
//
// Holds one immutable snapshot (any compiled type: a PolicySet, a directory of them) and hands it
// out as std::shared_ptr<const Snapshot>. Readers take the pointer and keep using what they got;
// a reload never changes it under them (docs/semantics.md, Reloading policy files).
//
//   rebound::PolicyStore<PolicySet, std::vector<std::string>> store;
//   store.reload([] { return compile_everything(); },            // -> Compiled
//                [](const auto& problems) { log(problems); });  // diagnostics, if any
//   std::shared_ptr<const PolicySet> now = store.current();
//
// reload() runs the compile function to the end before touching the snapshot, and swaps only when
// it produced one: after a failed reload the last good snapshot stays. Diagnostics (warnings
// too) go to the callback on every reload that has any.
//
// Thread safety: current() is safe from any number of threads and never waits for a compile: the
// compile runs outside any lock readers meet, and the swap holds the readers' lock only for one
// pointer exchange (the old snapshot is released after the lock). Readers share that lock, so
// they do not wait for each other. Reloads are serialised among themselves. (A shared_mutex
// rather than std::atomic<std::shared_ptr>: libstdc++ 12 releases that one's internal lock with
// relaxed ordering after a load, which ThreadSanitizer rightly reports as a race.)
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <utility>

namespace rebound {

template <typename Snapshot, typename Diagnostics>
class PolicyStore {
  public:
    // What a compile function returns: a snapshot (null on failure) and what it found.
    struct Compiled {
        std::shared_ptr<const Snapshot> snapshot;
        Diagnostics diagnostics;
    };
    using Compile = std::function<Compiled()>;
    using DiagnosticsCallback = std::function<void(const Diagnostics&)>;

    PolicyStore() = default;
    explicit PolicyStore(std::shared_ptr<const Snapshot> initial)
        : current_(std::move(initial)), generation_(current_ ? 1 : 0) {}
    PolicyStore(const PolicyStore&) = delete;
    PolicyStore& operator=(const PolicyStore&) = delete;

    // The current snapshot; null before the first successful reload.
    std::shared_ptr<const Snapshot> current() const noexcept {
        std::shared_lock lock(current_mutex_);
        return current_;
    }

    // How many snapshots were installed so far (0: none yet).
    std::uint64_t generation() const noexcept {
        return generation_.load(std::memory_order_acquire);
    }

    // Compiles with `compile` and installs the result when it is a snapshot. Returns whether it
    // swapped. `on_diagnostics` (optional) receives the diagnostics when there are any, whether
    // or not the reload succeeded. If `compile` or the callback throws, the exception propagates
    // and the snapshot is that of before the call, or the new one if only the callback threw.
    bool reload(const Compile& compile, const DiagnosticsCallback& on_diagnostics = {}) {
        std::lock_guard lock(reload_mutex_);
        Compiled compiled = compile();
        const bool swapped = compiled.snapshot != nullptr;
        if (swapped) {
            install(std::move(compiled.snapshot));
        }
        if (on_diagnostics && !is_empty(compiled.diagnostics)) {
            on_diagnostics(compiled.diagnostics);
        }
        return swapped;
    }

    // Installs `snapshot` (non-null) directly, e.g. one compiled elsewhere.
    void replace(std::shared_ptr<const Snapshot> snapshot) {
        std::lock_guard lock(reload_mutex_);
        if (snapshot) {
            install(std::move(snapshot));
        }
    }

  private:
    static bool is_empty(const Diagnostics& diagnostics) {
        if constexpr (requires { diagnostics.empty(); }) {
            return diagnostics.empty();
        } else {
            return false;
        }
    }

    void install(std::shared_ptr<const Snapshot> snapshot) {
        {
            std::unique_lock lock(current_mutex_);
            current_.swap(snapshot);
            generation_.fetch_add(1, std::memory_order_acq_rel);
        }
        // `snapshot` now holds the previous one, destroyed here, outside the lock.
    }

    mutable std::shared_mutex current_mutex_;
    std::shared_ptr<const Snapshot> current_;
    std::atomic<std::uint64_t> generation_{0};
    std::mutex reload_mutex_;
};

}  // namespace rebound

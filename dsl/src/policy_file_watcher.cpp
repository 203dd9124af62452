#include "rebound/dsl/policy_file_watcher.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <stop_token>
#include <string_view>
#include <system_error>

#include "rebound/dsl/syntax.hpp"

namespace rebound::dsl {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint32_t kWatchedEvents = IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM |
                                         IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF;
// Events after which the watch no longer follows the path: the directory was deleted or moved.
constexpr std::uint32_t kLostEvents = IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_UNMOUNT;
// Events of the parent directory after which the watched path names something else: the path
// itself was replaced (`ln -sfn v2 current` renames a new symlink over it) or removed. IN_MASK_ADD:
// should the parent be the watched directory itself, its watch keeps both masks.
constexpr std::uint32_t kParentEvents =
    IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_ONLYDIR | IN_MASK_ADD;

[[noreturn]] void throw_errno(const std::string& what) {
    throw std::system_error(errno, std::generic_category(), what);
}

// Whether a change to `name` (empty: the watched path itself) can change what loads: a policy
// file, a subdirectory, or a `..` name of a Kubernetes ConfigMap mount (`..data`).
bool concerns_policies(std::string_view name, std::uint32_t mask) {
    return name.empty() || (mask & (IN_ISDIR | IN_Q_OVERFLOW)) != 0 || name.starts_with("..") ||
           syntax_for_path(name).has_value();
}

int milliseconds_until(Clock::time_point when) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(when - Clock::now());
    return static_cast<int>(std::max<std::int64_t>(left.count(), 0));
}

}  // namespace

PolicyFileWatcher::PolicyFileWatcher(PolicyDirectoryStore& store, std::filesystem::path directory,
                                     DirectoryLoadOptions load_options,
                                     PolicyDirectoryStore::DiagnosticsCallback on_diagnostics,
                                     PolicyFileWatcherOptions options)
    : store_(store),
      directory_(std::move(directory)),
      load_options_(std::move(load_options)),
      on_diagnostics_(std::move(on_diagnostics)),
      options_(std::move(options)) {
    inotify_fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (inotify_fd_ < 0) {
        throw_errno("inotify_init1");
    }
    watch_ = ::inotify_add_watch(inotify_fd_, directory_.c_str(), kWatchedEvents);
    if (watch_ < 0) {
        const int saved = errno;
        ::close(inotify_fd_);
        errno = saved;
        throw_errno("cannot watch " + directory_.string());
    }
    watch_parent();
    wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd_ < 0) {
        const int saved = errno;
        ::close(inotify_fd_);
        errno = saved;
        throw_errno("eventfd");
    }
    thread_ = std::jthread([this](const std::stop_token& stop) { watch(stop); });
}

PolicyFileWatcher::~PolicyFileWatcher() {
    stop();
    ::close(inotify_fd_);
    ::close(wake_fd_);
}

void PolicyFileWatcher::stop() {
    if (thread_.joinable()) {
        thread_.request_stop();
        thread_.join();
    }
}

void PolicyFileWatcher::reload(const std::stop_token& stop) {
    DirectoryLoadOptions options = load_options_;
    options.stop = stop;
    bool swapped = false;
    try {
        swapped = reload_policy_directory(store_, directory_, options, on_diagnostics_);
    } catch (...) {
        // Only a callback can throw here (loading reports its failures as diagnostics); the
        // watcher thread must survive it, and the store kept its snapshot.
    }
    if (stop.stop_requested()) {
        return;  // abandoned: not a reload
    }
    reloads_.fetch_add(1);
    if (options_.on_reload) {
        try {
            options_.on_reload(swapped);
        } catch (...) {
            // As above: the callback's failure must not end the watching.
        }
    }
}

void PolicyFileWatcher::watch_parent() {
    // The path's last name: `current` of /etc/rebound/current and of /etc/rebound/current/.
    const std::filesystem::path path =
        directory_.has_filename() ? directory_ : directory_.parent_path();
    link_name_ = path.filename().string();
    if (link_name_.empty() || link_name_ == "." || link_name_ == "..") {
        return;  // no name of its own in a parent that could be replaced
    }
    const std::filesystem::path parent =
        path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    parent_watch_ = ::inotify_add_watch(inotify_fd_, parent.c_str(), kParentEvents);
    std::error_code error;
    if (parent_watch_ < 0 && std::filesystem::is_symlink(path, error)) {
        // A symlink's swap would go unnoticed: refuse rather than watch half of it.
        const int saved = errno;
        ::close(inotify_fd_);
        errno = saved;
        throw_errno("cannot watch " + parent.string() + " for swaps of the symlink " +
                    directory_.string());
    }
}

bool PolicyFileWatcher::rewatch() {
    watch_ = ::inotify_add_watch(inotify_fd_, directory_.c_str(), kWatchedEvents);
    return watch_ >= 0;
}

void PolicyFileWatcher::retarget() {
    // A moved directory keeps its watch, which would follow it elsewhere, and a swapped symlink
    // names another one: drop the watch and watch what the path names now (if anything).
    if (watch_ >= 0 && watch_ != parent_watch_) {
        ::inotify_rm_watch(inotify_fd_, watch_);
    }
    watch_ = -1;
    rewatch();
}

bool PolicyFileWatcher::read_events() {
    alignas(inotify_event) std::array<char, 4096> buffer{};
    bool relevant = false;
    for (;;) {
        const ssize_t n = ::read(inotify_fd_, buffer.data(), buffer.size());
        if (n <= 0) {
            return relevant;  // EAGAIN: drained
        }
        for (ssize_t at = 0; at < n;) {
            inotify_event event{};
            std::memcpy(&event, buffer.data() + at, sizeof event);
            const char* name_start = buffer.data() + at + sizeof(inotify_event);
            const std::string_view name(name_start,
                                        event.len == 0 ? 0 : ::strnlen(name_start, event.len));
            at += static_cast<ssize_t>(sizeof(inotify_event) + event.len);
            // The path was replaced (a symlink swapped) or removed; the watched directory was
            // deleted or moved away (the path may already be back); or events were lost, a swap
            // of the path among them maybe: watch the path's target anew.
            const bool path_swapped =
                parent_watch_ >= 0 && event.wd == parent_watch_ && name == link_name_ &&
                (event.mask & (IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM)) != 0;
            const bool watch_lost = event.wd == watch_ && (event.mask & kLostEvents) != 0;
            if (path_swapped || watch_lost || (event.mask & IN_Q_OVERFLOW) != 0) {
                retarget();
                relevant = true;
            } else if (event.wd == watch_) {
                relevant = relevant || concerns_policies(name, event.mask);
            }
        }
    }
}

bool PolicyFileWatcher::snapshot_is_current() const {
    const std::shared_ptr<const PolicyDirectory> snapshot = store_.current();
    return snapshot && snapshot->root() == directory_ && snapshot->matches_files_on_disk();
}

void PolicyFileWatcher::watch(const std::stop_token& stop) {
    // request_stop() wakes poll() through the eventfd.
    const std::stop_callback wake(stop, [this] {
        const std::uint64_t one = 1;
        [[maybe_unused]] const ssize_t written = ::write(wake_fd_, &one, sizeof one);
    });
    // The watch was armed before this thread started: whatever changed before it, after (or
    // while) the store's snapshot was loaded, shows here, and whatever changes from now on
    // raises an event.
    bool pending = !snapshot_is_current();
    Clock::time_point first_change = Clock::now();
    Clock::time_point last_change = first_change;
    while (!stop.stop_requested()) {
        int timeout = -1;
        if (pending) {
            timeout = milliseconds_until(
                std::min(last_change + options_.settle, first_change + options_.max_settle));
        } else if (watch_ < 0) {
            timeout = static_cast<int>(options_.settle.count());  // look for the path again
        }
        std::array<pollfd, 2> fds{{{inotify_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}}};
        const int ready = ::poll(fds.data(), fds.size(), timeout);
        if (ready < 0 && errno != EINTR) {
            return;  // nothing sensible to do: stop watching
        }
        if (stop.stop_requested()) {
            return;
        }
        const Clock::time_point now = Clock::now();
        bool changed = ready > 0 && (fds[0].revents & POLLIN) != 0 && read_events();
        if (watch_ < 0 && rewatch()) {
            changed = true;  // the directory is back: whatever it holds now must load
        }
        if (changed) {
            first_change = pending ? first_change : now;
            last_change = now;
            pending = true;
        }
        if (pending &&
            (now >= last_change + options_.settle || now >= first_change + options_.max_settle)) {
            pending = false;
            reload(stop);
        }
    }
}

}  // namespace rebound::dsl

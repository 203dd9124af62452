#include "rebound/dsl/policy_file_watcher.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <stop_token>
#include <system_error>

namespace rebound::dsl {
namespace {

constexpr std::uint32_t kWatchedEvents = IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM |
                                         IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF;

[[noreturn]] void throw_errno(const std::string& what) {
    throw std::system_error(errno, std::generic_category(), what);
}

// Reads every pending inotify event; returns whether there was any.
bool drain(int fd) {
    alignas(inotify_event) std::array<char, 4096> buffer{};
    bool any = false;
    for (;;) {
        const ssize_t n = ::read(fd, buffer.data(), buffer.size());
        if (n <= 0) {
            return any;  // EAGAIN: drained
        }
        any = true;
    }
}

}  // namespace

PolicyFileWatcher::PolicyFileWatcher(PolicyDirectoryStore& store, std::filesystem::path directory,
                                     DirectoryLoadOptions load_options,
                                     PolicyDirectoryStore::DiagnosticsCallback on_diagnostics,
                                     PolicyFileWatcherOptions options)
    : store_(store),
      directory_(std::move(directory)),
      load_options_(load_options),
      on_diagnostics_(std::move(on_diagnostics)),
      options_(std::move(options)) {
    inotify_fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (inotify_fd_ < 0) {
        throw_errno("inotify_init1");
    }
    if (::inotify_add_watch(inotify_fd_, directory_.c_str(), kWatchedEvents) < 0) {
        const int saved = errno;
        ::close(inotify_fd_);
        errno = saved;
        throw_errno("cannot watch " + directory_.string());
    }
    wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd_ < 0) {
        const int saved = errno;
        ::close(inotify_fd_);
        errno = saved;
        throw_errno("eventfd");
    }
    thread_ = std::jthread([this](std::stop_token stop) { watch(stop); });
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

void PolicyFileWatcher::reload() {
    const bool swapped =
        reload_policy_directory(store_, directory_, load_options_, on_diagnostics_);
    reloads_.fetch_add(1);
    if (options_.on_reload) {
        options_.on_reload(swapped);
    }
}

void PolicyFileWatcher::watch(const std::stop_token& stop) {
    // request_stop() wakes poll() through the eventfd.
    const std::stop_callback wake(stop, [this] {
        const std::uint64_t one = 1;
        [[maybe_unused]] const ssize_t written = ::write(wake_fd_, &one, sizeof one);
    });
    bool pending = false;
    while (!stop.stop_requested()) {
        std::array<pollfd, 2> fds{{{inotify_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}}};
        const int timeout = pending ? static_cast<int>(options_.settle.count()) : -1;
        const int ready = ::poll(fds.data(), fds.size(), timeout);
        if (ready < 0) {
            if (errno == EINTR) {
                continue;
            }
            return;  // nothing sensible to do: stop watching
        }
        if (stop.stop_requested()) {
            return;
        }
        if (ready == 0) {  // quiet for the settle period
            pending = false;
            reload();
            continue;
        }
        if ((fds[0].revents & POLLIN) != 0 && drain(inotify_fd_)) {
            pending = true;
        }
    }
}

}  // namespace rebound::dsl

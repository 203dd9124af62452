#include "run_command.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace rebound::testing {
namespace {

// Starts `arguments[0]` with the remaining arguments and `actions` on its descriptors; its process
// id, or -1 when it cannot be started.
pid_t spawn(const std::vector<std::string>& arguments, const posix_spawn_file_actions_t& actions) {
    std::vector<char*> argv;
    for (const std::string& argument : arguments) {
        argv.push_back(const_cast<char*>(argument.c_str()));
    }
    argv.push_back(nullptr);
    pid_t pid = 0;
    return posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) == 0 ? pid : -1;
}

// Waits for process `pid` to end; its exit code, or 128 + the signal that ended it.
int wait_for(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string make_temporary_directory(const std::string& prefix) {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (mkdtemp(pattern.data()) == nullptr) {
        throw std::runtime_error("cannot create a temporary directory");
    }
    return pattern;
}

CommandResult run_command(const std::vector<std::string>& arguments,
                          const CommandStreams& streams) {
    const std::string directory = make_temporary_directory("rebound-run");
    const std::string out_path = directory + "/out";
    const std::string err_path = directory + "/err";

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, streams.input.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_addopen(
        &actions, STDOUT_FILENO, streams.output.empty() ? out_path.c_str() : streams.output.c_str(),
        O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const pid_t pid = spawn(arguments, actions);
    posix_spawn_file_actions_destroy(&actions);
    if (pid < 0) {
        std::filesystem::remove_all(directory);
        throw std::runtime_error("cannot start " + arguments.front());
    }
    CommandResult result;
    result.exit_code = wait_for(pid);
    result.out = read_file(out_path);
    result.err = read_file(err_path);
    std::filesystem::remove_all(directory);
    return result;
}

PipedCommand::PipedCommand(const std::vector<std::string>& arguments) {
    std::signal(SIGPIPE, SIG_IGN);  // a write after the program ended fails instead of killing us
    int to_child[2];
    int from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0) {
        throw std::runtime_error("cannot create a pipe");
    }
    if (pipe2(from_child, O_CLOEXEC) != 0) {
        close(to_child[0]);
        close(to_child[1]);
        throw std::runtime_error("cannot create a pipe");
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    const pid_t pid = spawn(arguments, actions);
    posix_spawn_file_actions_destroy(&actions);
    close(to_child[0]);
    close(from_child[1]);
    input_ = to_child[1];
    output_ = from_child[0];
    if (pid < 0) {
        close(input_);
        close(output_);
        throw std::runtime_error("cannot start " + arguments.front());
    }
    pid_ = pid;
}

PipedCommand::~PipedCommand() {
    close_input();
    if (output_ >= 0) {
        close(output_);
    }
    if (pid_ > 0) {
        kill(pid_, SIGKILL);
        int status = 0;
        waitpid(pid_, &status, 0);
    }
}

bool PipedCommand::write(std::string_view text) {
    while (!text.empty()) {
        const ssize_t written = ::write(input_, text.data(), text.size());
        if (written < 0 && errno == EINTR) {
            continue;
        }
        if (written <= 0) {
            return false;
        }
        text.remove_prefix(static_cast<std::size_t>(written));
    }
    return true;
}

std::optional<std::string> PipedCommand::read_line(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        if (const std::size_t end = pending_.find('\n'); end != std::string::npos) {
            std::string line = pending_.substr(0, end);
            pending_.erase(0, end + 1);
            return line;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            return std::nullopt;
        }
        pollfd ready{output_, POLLIN, 0};
        const int polled = poll(&ready, 1, static_cast<int>(left.count()));
        if (polled < 0 && errno == EINTR) {
            continue;
        }
        if (polled <= 0) {
            return std::nullopt;
        }
        char buffer[4096];
        const ssize_t got = read(output_, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            return std::nullopt;
        }
        pending_.append(buffer, static_cast<std::size_t>(got));
    }
}

void PipedCommand::close_input() {
    if (input_ >= 0) {
        close(input_);
        input_ = -1;
    }
}

int PipedCommand::wait() {
    close_input();
    const int exit_code = wait_for(pid_);
    pid_ = -1;
    return exit_code;
}

}  // namespace rebound::testing

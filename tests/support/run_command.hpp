// Runs a program the way a user would, capturing its exit code, stdout and stderr.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rebound::testing {

struct CommandResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

// Where a program's standard input comes from and its standard output goes.
struct CommandStreams {
    std::string input = "/dev/null";  // a file to read, such as /dev/zero
    std::string output;               // a file to write, such as /dev/full; empty: captured
};

// Runs `arguments[0]` with the remaining arguments (no shell involved in quoting: each argument is
// passed as is), standard error captured, standard input and output as `streams` says. Throws
// std::runtime_error when the program cannot be started.
CommandResult run_command(const std::vector<std::string>& arguments,
                          const CommandStreams& streams = {});

// A program started with a pipe to its standard input and one from its standard output (standard
// error is discarded), to feed it and read its answers a line at a time while it runs. The
// destructor closes both pipes, kills the program if it still runs and waits for it.
class PipedCommand {
  public:
    // Throws std::runtime_error when the program cannot be started.
    explicit PipedCommand(const std::vector<std::string>& arguments);
    ~PipedCommand();
    PipedCommand(const PipedCommand&) = delete;
    PipedCommand& operator=(const PipedCommand&) = delete;

    // Writes `text` to the program's standard input; false when it cannot (the program closed it).
    bool write(std::string_view text);
    // The next line of the program's standard output (without its '\n'); nullopt when the output
    // ends, or when no whole line arrives within `timeout` (a bound against hanging, not a timing
    // measurement).
    std::optional<std::string> read_line(std::chrono::milliseconds timeout);
    // Closes the program's standard input (it reads the end of its input).
    void close_input();
    // Closes its input and waits for the program to end; its exit code.
    int wait();

  private:
    int pid_ = -1;
    int input_ = -1;
    int output_ = -1;
    std::string pending_;  // read, not yet returned
};

// The whole content of the file at `path` (empty when it cannot be read).
std::string read_file(const std::filesystem::path& path);

// A fresh empty directory under the system temporary directory, removed by the caller.
std::string make_temporary_directory(const std::string& prefix);

}  // namespace rebound::testing

// Runs a program the way a user would, capturing its exit code, stdout and stderr.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace rebound::testing {

struct CommandResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

// Runs `arguments[0]` with the remaining arguments (no shell involved in quoting: each argument is
// passed as is). Throws std::runtime_error when the program cannot be started.
CommandResult run_command(const std::vector<std::string>& arguments);

// The whole content of the file at `path` (empty when it cannot be read).
std::string read_file(const std::filesystem::path& path);

// A fresh empty directory under the system temporary directory, removed by the caller.
std::string make_temporary_directory(const std::string& prefix);

}  // namespace rebound::testing

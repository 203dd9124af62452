// A scratch directory for an example's files (its SQLite database, say), shared by the examples
// and by nothing else: a service keeps its data where it is deployed.
//
// Contract: the constructor creates a new, empty directory PREFIX-XXXXXX under
// std::filesystem::temp_directory_path() (mkdtemp: the name is unique and the directory is this
// object's alone), or throws std::system_error when it cannot. The destructor removes the
// directory and everything in it, ignoring errors. Neither copyable nor movable: one object owns
// one directory for its whole life.
#pragma once

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace examples {

class TemporaryDirectory {
  public:
    explicit TemporaryDirectory(std::string_view prefix) {
        std::string pattern =
            (std::filesystem::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
        if (::mkdtemp(pattern.data()) == nullptr) {
            throw std::system_error(errno, std::generic_category(),
                                    "cannot create a temporary directory " + pattern);
        }
        path_ = pattern;
    }
    ~TemporaryDirectory() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TemporaryDirectory(const TemporaryDirectory&) = delete;
    TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

    const std::filesystem::path& path() const noexcept { return path_; }

  private:
    std::filesystem::path path_;
};

}  // namespace examples

#include "file_checks.hpp"

#include <system_error>

namespace rebound::dsl::detail {

std::optional<std::string> not_a_regular_file(const std::filesystem::path& path) {
    std::error_code error;
    const std::filesystem::file_status status = std::filesystem::status(path, error);
    if (error) {
        const std::string reason = error.message();
        std::error_code ignored;
        return std::filesystem::is_symlink(path, ignored)
                   ? "the symlink cannot be followed: " + reason
                   : "cannot read file: " + reason;
    }
    switch (status.type()) {
        case std::filesystem::file_type::regular:
            return std::nullopt;
        case std::filesystem::file_type::directory:
            return "a directory, not a file";
        default:
            return "not a regular file";
    }
}

}  // namespace rebound::dsl::detail

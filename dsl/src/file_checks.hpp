// Whether a path the loaders are about to read is a file at all. Private to rebound::dsl.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace rebound::dsl::detail {

// Why `path` cannot be read as a file: "the symlink cannot be followed: ..." (dangling or
// looping), "cannot read file: ..." , "a directory, not a file", "not a regular file" (a FIFO, a
// socket, a device). nullopt for a regular file or a symlink to one.
std::optional<std::string> not_a_regular_file(const std::filesystem::path& path);

}  // namespace rebound::dsl::detail

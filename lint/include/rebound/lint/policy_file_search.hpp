// Finding the policy files `rebound lint` checks under the paths it is given, and everything on
// the way that would otherwise pass unchecked (docs/cli.md, rebound lint).
#pragma once

#include <string>
#include <vector>

#include "rebound/dsl/diagnostic.hpp"

namespace rebound::lint {

struct PolicyFileSearch {
    // Named files as given; under directories, the .yaml, .yml, .json and .rebound files in name
    // order (JSON Schemas, `*.schema.json`, skipped), each file once even when symlinks reach it
    // twice.
    std::vector<std::string> files;
    // RB109 for what could not be searched or read: a directory that cannot be listed, a policy
    // file name that is a dangling or looping symlink, a directory (not searched) or not a
    // regular file, and a directory holding no policy file at all.
    dsl::Diagnostics problems;
};

// Searches directories recursively, without following symlinks to directories and without
// entering hidden directories (names starting with '.', such as Kubernetes' `..data` and
// `..2026_*` ConfigMap folders, whose files are reached through the symlinks beside them).
PolicyFileSearch find_policy_files(const std::vector<std::string>& paths);

}  // namespace rebound::lint

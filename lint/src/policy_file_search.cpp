#include "rebound/lint/policy_file_search.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>

#include "rebound/dsl/syntax.hpp"

namespace rebound::lint {
namespace {

namespace fs = std::filesystem;

dsl::Diagnostic unreadable(const fs::path& path, std::string message) {
    dsl::Diagnostic d;
    d.code = dsl::DiagnosticCode::UnreadableFile;
    d.file = path.generic_string();
    d.message = std::move(message);
    return d;
}

bool names_policy_file(const fs::path& path) {
    const std::string name = path.generic_string();
    return dsl::syntax_for_path(name).has_value() && !name.ends_with(".schema.json");
}

bool is_hidden(const fs::path& path) {
    return path.filename().string().starts_with('.');
}

// One directory tree: its policy files (unsorted) and its problems.
class TreeSearch {
  public:
    TreeSearch(std::vector<std::string>& files, dsl::Diagnostics& problems)
        : files_(files), problems_(problems) {}

    void search(const fs::path& root) {
        std::vector<fs::path> pending{root};
        while (!pending.empty()) {
            const fs::path directory = std::move(pending.back());
            pending.pop_back();
            list(directory, pending);
        }
    }

  private:
    void list(const fs::path& directory, std::vector<fs::path>& pending) {
        std::error_code error;
        fs::directory_iterator it(directory, error);
        for (; !error && it != fs::directory_iterator(); it.increment(error)) {
            entry(it->path(), pending);
        }
        if (error) {
            problems_.push_back(
                unreadable(directory, "cannot read the directory: " + error.message()));
        }
    }

    void entry(const fs::path& path, std::vector<fs::path>& pending) {
        std::error_code error;
        const fs::file_status own = fs::symlink_status(path, error);
        if (own.type() == fs::file_type::directory && !names_policy_file(path)) {
            if (!is_hidden(path)) {
                pending.push_back(path);
            }
            return;
        }
        if (!names_policy_file(path)) {
            return;
        }
        // A directory named as a policy file (`payments.yaml/`), or a symlink to one, is reported
        // and not searched: a policy directory refuses it too, rather than drop the service.
        const fs::file_status target = fs::status(path, error);
        if (error) {
            problems_.push_back(
                unreadable(path, own.type() == fs::file_type::symlink
                                     ? "the symlink cannot be followed: " + error.message()
                                     : "cannot read file: " + error.message()));
        } else if (target.type() == fs::file_type::regular) {
            files_.push_back(path.generic_string());
        } else if (target.type() == fs::file_type::directory) {
            problems_.push_back(unreadable(path, "a directory, not a file"));
        } else {
            problems_.push_back(unreadable(path, "not a regular file"));
        }
    }

    std::vector<std::string>& files_;
    dsl::Diagnostics& problems_;
};

}  // namespace

PolicyFileSearch find_policy_files(const std::vector<std::string>& paths) {
    PolicyFileSearch result;
    std::set<fs::path> seen;  // canonical paths of the files found in directories
    for (const std::string& path : paths) {
        std::error_code error;
        if (!fs::is_directory(path, error)) {
            result.files.push_back(fs::path(path).generic_string());
            continue;
        }
        std::vector<std::string> found;
        const std::size_t problems_before = result.problems.size();
        TreeSearch(found, result.problems).search(path);
        std::sort(found.begin(), found.end());
        for (std::string& file : found) {
            const fs::path canonical = fs::weakly_canonical(file, error);
            if (error || seen.insert(canonical).second) {
                result.files.push_back(std::move(file));
            }
        }
        if (found.empty() && result.problems.size() == problems_before) {
            result.problems.push_back(unreadable(
                path, "no policy files found (.yaml, .yml, .json or .rebound) in this directory"));
        }
    }
    return result;
}

}  // namespace rebound::lint

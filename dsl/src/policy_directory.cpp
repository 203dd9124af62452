#include "rebound/dsl/policy_directory.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <optional>
#include <string_view>
#include <system_error>

#include "file_checks.hpp"
#include "rebound/dsl/input_limits.hpp"
#include "rebound/dsl/load.hpp"
#include "rebound/dsl/syntax.hpp"
#include "rebound/dsl/text_toolkit/suggestions.hpp"

namespace rebound::dsl {
namespace {

Diagnostic error_at(DiagnosticCode code, std::string file, std::string message) {
    Diagnostic d;
    d.code = code;
    d.severity = Severity::Error;
    d.file = std::move(file);
    d.message = std::move(message);
    return d;
}

// Adds `path` to `files` when it names a policy file (by extension) that is a regular file or a
// symlink to one. A policy file name that cannot be read as one (a dangling or looping symlink,
// as in a Kubernetes ConfigMap update caught halfway; a directory such as `payments.yaml/`; a
// FIFO) is a diagnostic, so that the directory does not load without it; other names are
// ignored.
std::optional<Diagnostic> add_if_policy_file(const std::filesystem::path& path,
                                             std::vector<std::filesystem::path>& files) {
    if (!syntax_for_path(path.string())) {
        return std::nullopt;
    }
    if (const std::optional<std::string> problem = detail::not_a_regular_file(path)) {
        return error_at(DiagnosticCode::UnreadableFile, path.string(), *problem);
    }
    files.push_back(path);
    return std::nullopt;
}

// The policy files of `directory` in name order, or a diagnostic when it cannot be listed. A
// single policy file stands for a directory holding only it.
std::vector<std::filesystem::path> policy_files(const std::filesystem::path& directory,
                                                Diagnostics& diagnostics) {
    std::vector<std::filesystem::path> files;
    std::error_code error;
    if (std::filesystem::is_regular_file(directory, error)) {
        if (syntax_for_path(directory.string())) {
            files.push_back(directory);
        } else {
            diagnostics.push_back(error_at(DiagnosticCode::UnreadableFile, directory.string(),
                                           "not a policy file: expected a directory or a .yaml, "
                                           ".yml, .json or .rebound file"));
        }
        return files;
    }
    std::filesystem::directory_iterator it(directory, error);
    for (; !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
        if (const std::optional<Diagnostic> problem = add_if_policy_file(it->path(), files)) {
            diagnostics.push_back(*problem);
        }
    }
    if (error) {
        diagnostics.push_back(error_at(DiagnosticCode::UnreadableFile, directory.string(),
                                       "cannot read the policy directory: " + error.message()));
        return {};
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) {
        diagnostics.push_back(
            error_at(DiagnosticCode::UnreadableFile, directory.string(),
                     "the policy directory holds no policy file (.yaml, .yml, .json or .rebound)"));
    }
    return files;
}

std::size_t fingerprint(std::string_view text) {
    return std::hash<std::string_view>{}(text);
}

// The fingerprint of the text of `file` as it is now; nullopt when it cannot be read or is beyond
// what a policy file may hold (so it could not have loaded).
std::optional<std::size_t> fingerprint_now(const std::filesystem::path& file) {
    std::error_code error;
    const std::uintmax_t size = std::filesystem::file_size(file, error);
    if (error || size > kMaxInputBytes) {
        return std::nullopt;
    }
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        return std::nullopt;
    }
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) {
        return std::nullopt;
    }
    return fingerprint(text);
}

// The binding key of `handler` is an exact name, not a `prefix.*` pattern.
bool is_exact_key(std::string_view key) {
    return !key.ends_with(".*");
}

// RB111 for every exact binding of `document` that names no handler of `registry`.
void check_bindings(const Document& document, const HandlerRegistry& registry, bool strict,
                    Diagnostics& diagnostics) {
    const std::vector<std::string_view> registered = registry.names();
    for (const HandlerNode& handler : document.handlers) {
        const std::string& key = handler.key.value;
        if (!is_exact_key(key) || registry.find(key) != nullptr) {
            continue;
        }
        Diagnostic d;
        d.code = DiagnosticCode::UnknownHandler;
        d.severity = strict ? Severity::Error : Severity::Warning;
        d.file = document.file;
        d.position = handler.key.position;
        d.field = "handlers." + key;
        d.message = "handler '" + key + "' is bound in service '" +
                    (document.service ? document.service->value : std::string()) +
                    "' but no handler of that name is registered in code; the binding applies to "
                    "nothing";
        const std::string close = did_you_mean(key, registered);
        d.suggestion = close.empty() ? "register the handler, or remove the binding" : close;
        diagnostics.push_back(std::move(d));
    }
}

// RB003 at the `service` line of `later`, which names the service of an earlier file.
Diagnostic duplicate_service(const LoadResult& later, const std::string& earlier_file) {
    Diagnostic d = error_at(
        DiagnosticCode::DuplicateKey, later.document.file,
        "service '" + later.policy_set->service() + "' is already defined in " + earlier_file);
    if (later.document.service) {
        d.position = later.document.service->position;
    }
    d.field = "service";
    d.suggestion = "give each file of a directory its own service name";
    return d;
}

}  // namespace

PolicyDirectory::PolicyDirectory(std::filesystem::path root, Services services,
                                 std::vector<std::filesystem::path> files,
                                 std::vector<std::size_t> fingerprints)
    : root_(std::move(root)),
      services_(std::move(services)),
      files_(std::move(files)),
      fingerprints_(std::move(fingerprints)) {}

bool PolicyDirectory::matches_files_on_disk() const noexcept {
    try {
        Diagnostics problems;
        if (fingerprints_.size() != files_.size() || policy_files(root_, problems) != files_ ||
            !problems.empty()) {
            return false;
        }
        for (std::size_t i = 0; i < files_.size(); ++i) {
            if (fingerprint_now(files_[i]) != fingerprints_[i]) {
                return false;
            }
        }
        return true;
    } catch (...) {
        return false;  // out of memory: say changed, and let a reload report it
    }
}

std::shared_ptr<const PolicySet> PolicyDirectory::service(std::string_view name) const {
    const auto it = services_.find(name);
    return it != services_.end() ? it->second : nullptr;
}

DirectoryLoadResult load_policy_directory(const std::filesystem::path& directory,
                                          const DirectoryLoadOptions& options) {
    DirectoryLoadResult result;
    const std::vector<std::filesystem::path> files = policy_files(directory, result.diagnostics);
    PolicyDirectory::Services services;
    std::vector<std::size_t> fingerprints;
    std::map<std::string, std::string, std::less<>> file_of_service;
    for (const std::filesystem::path& file : files) {
        if (options.stop.stop_requested()) {
            return {};
        }
        LoadResult loaded = load_file(file, options.compile);
        fingerprints.push_back(fingerprint(loaded.source));
        result.diagnostics.insert(result.diagnostics.end(),
                                  std::make_move_iterator(loaded.diagnostics.begin()),
                                  std::make_move_iterator(loaded.diagnostics.end()));
        if (!loaded.policy_set) {
            continue;
        }
        const std::string& service = loaded.policy_set->service();
        if (const auto it = file_of_service.find(service); it != file_of_service.end()) {
            result.diagnostics.push_back(duplicate_service(loaded, it->second));
            continue;
        }
        if (options.handlers != nullptr) {
            check_bindings(loaded.document, *options.handlers, options.strict_bindings,
                           result.diagnostics);
            for (const UnknownTier& unknown : options.handlers->unknown_tiers(*loaded.policy_set)) {
                result.diagnostics.push_back(error_at(
                    DiagnosticCode::UnknownPolicy, file.string(),
                    "handler '" + unknown.handler + "' is registered in code with tier '" +
                        unknown.tier + "', which is not a policy of service '" + service + "'"));
            }
        }
        file_of_service.emplace(service, file.string());
        services.emplace(service, std::move(loaded.policy_set));
    }
    if (!files.empty() && !has_errors(result.diagnostics)) {
        result.directory = std::make_shared<const PolicyDirectory>(directory, std::move(services),
                                                                   files, std::move(fingerprints));
    }
    return result;
}

bool reload_policy_directory(PolicyDirectoryStore& store, const std::filesystem::path& directory,
                             const DirectoryLoadOptions& options,
                             const PolicyDirectoryStore::DiagnosticsCallback& on_diagnostics) {
    return store.reload(
        [&] {
            try {
                DirectoryLoadResult loaded = load_policy_directory(directory, options);
                return PolicyDirectoryStore::Compiled{std::move(loaded.directory),
                                                      std::move(loaded.diagnostics)};
            } catch (const std::exception& e) {
                // Out of memory outside any one file (load_file reports its own): the last
                // good snapshot stays, and the callback hears why.
                return PolicyDirectoryStore::Compiled{
                    nullptr,
                    {error_at(DiagnosticCode::LimitExceeded, directory.string(),
                              std::string("loading the policy directory failed: ") + e.what())}};
            }
        },
        on_diagnostics);
}

PolicyResolver make_resolver(const PolicyDirectoryStore& store, const HandlerRegistry& registry,
                             std::string service) {
    return [&store, &registry, service = std::move(service)](std::string_view handler) {
        // The snapshot keeps its sets alive for this call: no further reference counting until
        // the one policy the run keeps.
        const std::shared_ptr<const PolicyDirectory> snapshot = store.current();
        const PolicySet* set = nullptr;
        if (snapshot) {
            const auto it = snapshot->services().find(service);
            set = it != snapshot->services().end() ? it->second.get() : nullptr;
        }
        const HandlerRegistry::Choice choice = registry.choose(handler, set);
        HandlerResolution resolution;
        resolution.policy = *choice.policy;
        resolution.via = choice.via;
        resolution.idempotent = choice.idempotent;
        resolution.idempotent_source = choice.idempotent_source;
        // binding_key stays empty: it would view the set, which may go with the next reload.
        return resolution;
    };
}

}  // namespace rebound::dsl

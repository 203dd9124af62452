// Loads the vendor map directory (docs/vendor-maps.md, Overriding the maps): every `*.yaml` file
// of it, through load_vendor_map_sources, refusing a directory that would silently lose a map
// (no generic.yaml, a map that is not a file, a file past the size limit).
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "file_checks.hpp"
#include "rebound/dsl/input_limits.hpp"
#include "rebound/dsl/load.hpp"
#include "rebound/dsl/vendor_map_loader.hpp"

#ifndef REBOUND_INSTALLED_VENDOR_MAP_DIR
#define REBOUND_INSTALLED_VENDOR_MAP_DIR "/usr/local/share/rebound/vendors"
#endif

namespace rebound::dsl {
namespace {

constexpr std::string_view kMapFileExtension = ".yaml";
// The map of the SQLSTATE rules every vendor shares; a directory without it is refused.
constexpr std::string_view kGenericMapFile = "generic.yaml";
// What a vendor map file is called in the messages of the input limits.
constexpr std::string_view kWhat = "a vendor map";

}  // namespace

VendorMapLoadResult load_vendor_maps(const std::filesystem::path& directory) {
    std::error_code error;
    std::vector<std::filesystem::path> paths;
    Diagnostics unreadable;
    const auto refuse = [&unreadable](const std::filesystem::path& path, std::string message) {
        Diagnostic diagnostic;
        diagnostic.code = DiagnosticCode::UnreadableFile;
        diagnostic.file = path.generic_string();
        diagnostic.message = std::move(message);
        unreadable.push_back(std::move(diagnostic));
    };
    for (std::filesystem::directory_iterator it(directory, error), end; !error && it != end;
         it.increment(error)) {
        if (it->path().extension() != kMapFileExtension) {
            continue;
        }
        // A map that is not a file (a dangling symlink, a directory, a FIFO) would take its
        // vendor's rules away silently: refused, as an unreadable file is.
        if (const std::optional<std::string> problem = detail::not_a_regular_file(it->path())) {
            refuse(it->path(), "cannot use this vendor map: " + *problem);
        } else {
            paths.push_back(it->path());
        }
    }
    if (!error && !paths.empty() &&
        std::none_of(paths.begin(), paths.end(), [](const std::filesystem::path& path) {
            return path.filename() == kGenericMapFile;
        })) {
        refuse(directory / kGenericMapFile,
               "the vendor map directory has no " + std::string(kGenericMapFile) +
                   ": the SQLSTATE rules every vendor shares would be missing");
    }
    if (error || paths.empty()) {
        VendorMapLoadResult result;
        Diagnostic diagnostic;
        diagnostic.code = DiagnosticCode::UnreadableFile;
        diagnostic.file = directory.generic_string();
        diagnostic.message =
            error ? "cannot read the vendor map directory: " + error.message()
                  : "the vendor map directory has no " + std::string(kMapFileExtension) + " files";
        diagnostic.suggestion =
            "set REBOUND_DATA_DIR to the directory that holds vendors/, or pass the directory";
        result.diagnostics = std::move(unreadable);
        result.diagnostics.push_back(std::move(diagnostic));
        return result;
    }
    std::sort(paths.begin(), paths.end());
    std::vector<VendorMapSource> sources;
    for (const std::filesystem::path& path : paths) {
        // Too large a file is refused before it is read, as a policy file is.
        std::error_code size_error;
        const std::uintmax_t size = std::filesystem::file_size(path, size_error);
        if (std::optional<Diagnostic> too_large =
                size_error ? std::nullopt : check_input_size(path.generic_string(), size, kWhat)) {
            unreadable.push_back(std::move(*too_large));
            continue;
        }
        std::ifstream stream(path, std::ios::binary);
        std::ostringstream text;
        text << stream.rdbuf();
        if (!stream) {
            Diagnostic diagnostic;
            diagnostic.code = DiagnosticCode::UnreadableFile;
            diagnostic.file = path.generic_string();
            diagnostic.message = "cannot read the vendor map file";
            unreadable.push_back(std::move(diagnostic));
            continue;
        }
        sources.push_back(VendorMapSource{path.generic_string(), text.str()});
    }
    VendorMapLoadResult result = load_vendor_map_sources(sources);
    if (!unreadable.empty()) {
        result.diagnostics.insert(result.diagnostics.begin(), unreadable.begin(), unreadable.end());
        result.classifier.reset();
    }
    return result;
}

std::shared_ptr<const SqlErrorClassifier> load_vendor_maps_or_throw(
    const std::filesystem::path& directory) {
    VendorMapLoadResult result = load_vendor_maps(directory);
    if (!result.classifier) {
        throw LoadError(std::move(result.diagnostics));
    }
    return result.classifier;
}

std::filesystem::path default_vendor_map_directory(
    const std::filesystem::path& package_data_directory) {
    // Read once per call; the environment is the embedder's to set, not ours to cache.
    if (const char* data_dir = std::getenv("REBOUND_DATA_DIR"); data_dir != nullptr && *data_dir) {
        return std::filesystem::path(data_dir) / "vendors";
    }
    if (!package_data_directory.empty()) {
        return package_data_directory / "vendors";
    }
    return std::filesystem::path(REBOUND_INSTALLED_VENDOR_MAP_DIR);
}

}  // namespace rebound::dsl

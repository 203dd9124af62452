// Vendor map loading: reads the vendor error maps (policies/vendors/*.yaml, format in
// docs/vendor-maps.md), validates them with positioned diagnostics and compiles them into one
// immutable SqlErrorClassifier.
//
//   rebound::dsl::VendorMapLoadResult r =
//       rebound::dsl::load_vendor_maps(rebound::dsl::default_vendor_map_directory());
//   for (const auto& d : r.diagnostics) std::cerr << rebound::dsl::format_diagnostic(d) << '\n';
//   if (r.classifier) { ... r.classifier->classify(record) ... }
//
// Loading collects every problem of every file (unknown keys with did-you-mean, unknown
// categories and vendors, duplicate rules, malformed SQLSTATEs) instead of stopping at the first.
// Thread safety: the functions share no state; the classifier they return is immutable.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rebound/dsl/diagnostic.hpp"
#include "rebound/sql_error_classifier.hpp"
#include "rebound/vendor.hpp"

namespace rebound::dsl {

// One map file's text, named as it should appear in diagnostics.
struct VendorMapSource {
    std::string file;
    std::string text;
};

// What was read from one file.
struct VendorMapFileSummary {
    std::string file;
    std::string text;              // for format_diagnostic's source lines
    std::optional<Vendor> vendor;  // absent when the file's `vendor` could not be read
    std::size_t rule_count = 0;    // rules read without error
};

struct VendorMapLoadResult {
    std::shared_ptr<const SqlErrorClassifier> classifier;  // null when any error was reported
    Diagnostics diagnostics;                               // every problem, file by file
    std::vector<VendorMapFileSummary> files;               // in file-name order
};

// Loads every `*.yaml` file of `directory` (not recursive), in file-name order. Each file holds
// the map of one vendor; two files of the same vendor are an error. A vendor without a file has
// no vendor rules (only the generic map applies to it). Never throws for bad input: a missing or
// unreadable directory or file is a diagnostic (RB109).
VendorMapLoadResult load_vendor_maps(const std::filesystem::path& directory);

// The same from texts already in memory (tests, embedders that ship maps inside the binary).
VendorMapLoadResult load_vendor_map_sources(const std::vector<VendorMapSource>& sources);

// Throws rebound::dsl::LoadError (load.hpp) with every error formatted when loading fails.
std::shared_ptr<const SqlErrorClassifier> load_vendor_maps_or_throw(
    const std::filesystem::path& directory);

// Where the shipped maps are: `$REBOUND_DATA_DIR/vendors` when that variable is set and not
// empty; else `<package_data_directory>/vendors` when `package_data_directory` is not empty;
// else `<prefix>/share/rebound/vendors` of the prefix the library was built for. The directory
// may not exist.
std::filesystem::path default_vendor_map_directory(
    const std::filesystem::path& package_data_directory);

// The same for the calling program. A program built against an installed Rebound with
// find_package(rebound) gets REBOUND_PACKAGE_DATA_DIR from the package's CMake config: the
// `share/rebound` directory next to the libraries it links, wherever the prefix was moved. A
// function of each translation unit (static), so that programs built with and without the
// package config do not disagree about one definition.
static inline std::filesystem::path default_vendor_map_directory() {
#ifdef REBOUND_PACKAGE_DATA_DIR
    return default_vendor_map_directory(std::filesystem::path(REBOUND_PACKAGE_DATA_DIR));
#else
    return default_vendor_map_directory(std::filesystem::path{});
#endif
}

}  // namespace rebound::dsl

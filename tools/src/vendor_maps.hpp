// Finding and loading the vendor error maps for `rebound classify` and `rebound decide`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "rebound/sql_error_classifier.hpp"

namespace rebound::cli {

// The maps directory: `explicit_directory` when not empty; else $REBOUND_DATA_DIR/vendors when
// set; else, for a binary run from its build tree, the source tree's policies/vendors; else
// <prefix>/share/rebound/vendors next to the binary when it exists; else the installed default.
std::filesystem::path vendor_map_directory(const std::string& explicit_directory);

// Loads the maps; on failure prints every diagnostic to stderr and sets `exit_code` to 2 for an
// unreadable directory, 1 for errors in a map, and returns null. When the maps load but none of
// them is the map of `requested` (a vendor other than generic), prints a note naming `command`
// and the directory on stderr: that vendor's errors are classified by the generic map alone.
std::shared_ptr<const SqlErrorClassifier> load_vendor_maps_or_report(
    const std::string& explicit_directory, int& exit_code, std::string_view command,
    std::optional<Vendor> requested);

// The record to classify from command-line options (views into the arguments, which must
// outlive it). An empty vendor means `generic`. Prints a usage error naming `command` and returns
// nullopt for an unknown vendor or phase, or a SQLSTATE that is not five letters and digits.
std::optional<SqlErrorRecord> sql_error_record(std::string_view command, const std::string& vendor,
                                               const std::string& sqlstate,
                                               std::optional<std::int64_t> native,
                                               const std::string& phase);

// Adds `--phase connect|execute|commit|rollback` (default execute) to `command`.
void add_phase_option(CLI::App& command, std::string& phase);

// Classifies one record as the ODBC adapter classifies a failed call in the record's phase, phase
// rules included (SqlErrorClassifier::classify_failure; docs/cli.md).
SqlFailureClassification classify_as_adapter(const SqlErrorClassifier& classifier,
                                             const SqlErrorRecord& record);

}  // namespace rebound::cli

#include "vendor_maps.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <system_error>
#include <vector>

#include "cli_support.hpp"
#include "rebound/dsl/vendor_map_loader.hpp"

namespace rebound::cli {
namespace {

std::filesystem::path executable_directory() {
    std::error_code error;
    const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
    return error ? std::filesystem::path{} : executable.parent_path();
}

bool directory_exists(const std::filesystem::path& path) {
    std::error_code error;
    return std::filesystem::is_directory(path, error);
}

}  // namespace

std::filesystem::path vendor_map_directory(const std::string& explicit_directory) {
    if (!explicit_directory.empty()) {
        return explicit_directory;
    }
    if (const char* data_dir = std::getenv("REBOUND_DATA_DIR"); data_dir != nullptr && *data_dir) {
        return dsl::default_vendor_map_directory();
    }
    const std::filesystem::path here = executable_directory();
#if defined(REBOUND_CLI_BUILD_DIR) && defined(REBOUND_SOURCE_VENDOR_MAP_DIR)
    std::error_code error;
    if (!here.empty() && std::filesystem::equivalent(here, REBOUND_CLI_BUILD_DIR, error) &&
        directory_exists(REBOUND_SOURCE_VENDOR_MAP_DIR)) {
        return REBOUND_SOURCE_VENDOR_MAP_DIR;
    }
#endif
    if (!here.empty()) {
        std::filesystem::path relocated = here.parent_path() / "share" / "rebound" / "vendors";
        if (directory_exists(relocated)) {
            return relocated;
        }
    }
    return dsl::default_vendor_map_directory();
}

std::shared_ptr<const SqlErrorClassifier> load_vendor_maps_or_report(
    const std::string& explicit_directory, int& exit_code, std::string_view command,
    std::optional<Vendor> requested) {
    const std::filesystem::path directory = vendor_map_directory(explicit_directory);
    const dsl::VendorMapLoadResult result = dsl::load_vendor_maps(directory);
    for (const dsl::Diagnostic& d : result.diagnostics) {
        const auto file = std::find_if(result.files.begin(), result.files.end(),
                                       [&](const auto& f) { return f.file == d.file; });
        std::cerr << dsl::format_diagnostic(d, file == result.files.end() ? "" : file->text)
                  << '\n';
    }
    if (!result.classifier) {
        const bool unreadable = std::any_of(
            result.diagnostics.begin(), result.diagnostics.end(),
            [](const dsl::Diagnostic& d) { return d.code == dsl::DiagnosticCode::UnreadableFile; });
        exit_code = unreadable ? kExitUsage : kExitInputErrors;
        return nullptr;
    }
    // A vendor without a map file is classified by the generic map alone (docs/vendor-maps.md,
    // Overriding the maps): allowed, but never silent, as a map that went missing looks the same.
    if (requested && *requested != Vendor::Generic &&
        std::none_of(result.files.begin(), result.files.end(),
                     [&](const dsl::VendorMapFileSummary& f) { return f.vendor == requested; })) {
        std::cerr << "rebound " << command << ": note: no vendor map for '" << to_string(*requested)
                  << "' in " << directory.generic_string()
                  << ": only the generic SQLSTATE rules apply\n";
    }
    return result.classifier;
}

std::optional<SqlErrorRecord> sql_error_record(std::string_view command, const std::string& vendor,
                                               const std::string& sqlstate,
                                               std::optional<std::int64_t> native,
                                               const std::string& phase) {
    SqlErrorRecord record;
    record.vendor = parse_vendor(vendor.empty() ? "generic" : vendor);
    if (!record.vendor) {
        std::cerr << "rebound " << command << ": unknown vendor '" << printable(vendor)
                  << "': expected one of postgresql mysql sqlserver oracle db2 sqlite cockroachdb "
                     "generic\n";
        return std::nullopt;
    }
    const auto parsed_phase = parse_database_phase(phase);
    if (!parsed_phase) {
        std::cerr << "rebound " << command << ": unknown phase '" << printable(phase)
                  << "': expected one of connect, execute, commit, rollback\n";
        return std::nullopt;
    }
    record.phase = *parsed_phase;
    const bool well_formed = std::all_of(sqlstate.begin(), sqlstate.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    });
    if (!sqlstate.empty() && (sqlstate.size() != 5 || !well_formed)) {
        std::cerr << "rebound " << command << ": SQLSTATE '" << printable(sqlstate)
                  << "' is not five letters and digits, such as 40001 or HYT00\n";
        return std::nullopt;
    }
    record.sqlstate = sqlstate;
    record.native_code = native;
    return record;
}

void add_phase_option(CLI::App& command, std::string& phase) {
    std::vector<std::string> names;
    names.reserve(kDatabasePhaseTable.size());
    for (const DatabasePhaseInfo& info : kDatabasePhaseTable) {
        names.emplace_back(info.wire_name);
    }
    command
        .add_option("--phase", phase,
                    "Phase of the failure (a session lost at commit leaves the outcome unknown)")
        ->check(CLI::IsMember(names))
        ->capture_default_str();
}

SqlFailureClassification classify_as_adapter(const SqlErrorClassifier& classifier,
                                             const SqlErrorRecord& record) {
    return classifier.classify_failure({&record, 1}, record.phase);
}

}  // namespace rebound::cli

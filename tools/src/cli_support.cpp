#include "cli_support.hpp"

#include <algorithm>
#include <iostream>

namespace rebound::cli {

std::optional<dsl::LoadResult> load_or_report(const std::string& path, int& exit_code) {
    dsl::LoadResult result = dsl::load_file(path);
    for (const dsl::Diagnostic& d : result.diagnostics) {
        std::cerr << dsl::format_diagnostic(d, result.source) << '\n';
    }
    if (result.policy_set) {
        return result;
    }
    const bool unreadable = std::any_of(
        result.diagnostics.begin(), result.diagnostics.end(),
        [](const dsl::Diagnostic& d) { return d.code == dsl::DiagnosticCode::UnreadableFile; });
    exit_code = unreadable ? kExitUsage : kExitInputErrors;
    return std::nullopt;
}

void print_line(std::string_view text) {
    std::cout << text;
    if (text.empty() || text.back() != '\n') {
        std::cout << '\n';
    }
}

}  // namespace rebound::cli

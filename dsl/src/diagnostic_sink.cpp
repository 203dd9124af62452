#include "diagnostic_sink.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace rebound::dsl::detail {

void add_error(Diagnostics& out, const std::string& file, DiagnosticCode code,
               SourcePosition position, std::string field, std::string message,
               std::string suggestion) {
    Diagnostic diagnostic;
    diagnostic.code = code;
    diagnostic.severity = Severity::Error;
    diagnostic.message = std::move(message);
    diagnostic.file = file;
    diagnostic.position = position;
    diagnostic.field = std::move(field);
    diagnostic.suggestion = std::move(suggestion);
    out.push_back(std::move(diagnostic));
}

std::string duplicate_message(std::string_view label, std::uint32_t first_line) {
    return "duplicate " + std::string(label) + " (first given at line " +
           std::to_string(first_line) + ")";
}

}  // namespace rebound::dsl::detail

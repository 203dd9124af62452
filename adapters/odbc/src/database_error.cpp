#include "rebound/odbc/database_error.hpp"

#include <utility>
#include <vector>

namespace rebound::odbc {

const DiagnosticRecord* DatabaseFailure::primary() const noexcept {
    if (!classified_record || *classified_record >= records.size()) {
        return nullptr;
    }
    return &records[*classified_record];
}

ErrorDescription DatabaseFailure::description() const noexcept {
    ErrorDescription description;
    description.category = category;
    description.vendor = vendor;
    description.sqlstate = sqlstate;
    if (const DiagnosticRecord* record = primary()) {
        description.native_code = record->native_code;
        description.message = record->message;
    }
    return description;
}

const DiagnosticRecord* DatabaseFailure::shown() const noexcept {
    if (const DiagnosticRecord* record = primary()) {
        return record;
    }
    return records.empty() ? nullptr : &records.front();
}

std::string DatabaseFailure::summary() const {
    std::string text(to_string(category));
    text += " (";
    const DiagnosticRecord* record = shown();
    if (record != nullptr) {
        text += record->sqlstate;
        text += ", native ";
        text += std::to_string(record->native_code);
        text += ", ";
    }
    text += "phase ";
    text += to_string(phase);
    text += ")";
    if (record != nullptr) {
        text += ": ";
        text += record->message;
    }
    return text;
}

DatabaseFailure classify_failure(const SqlErrorClassifier& classifier, std::optional<Vendor> vendor,
                                 DatabasePhase phase, std::vector<DiagnosticRecord> records,
                                 bool session_dead) {
    DatabaseFailure failure;
    failure.phase = phase;
    failure.vendor = vendor;
    failure.records = std::move(records);
    std::vector<SqlErrorRecord> inputs;
    inputs.reserve(failure.records.size());
    for (const DiagnosticRecord& record : failure.records) {
        inputs.push_back({.vendor = vendor,
                          .sqlstate = record.sqlstate,
                          .native_code = record.native_code,
                          .phase = phase});
    }
    // The maps and the phase rules, shared with `rebound classify` and `rebound decide`.
    const SqlFailureClassification result =
        classifier.classify_failure(inputs, phase, session_dead);
    failure.category = result.category;
    failure.matched = result.matched();
    failure.classified_record = result.record;
    if (const DiagnosticRecord* record = failure.primary()) {
        failure.sqlstate = std::string(normalize_sqlstate(record->sqlstate).view());
    }
    return failure;
}

DatabaseError::DatabaseError(DatabaseFailure failure)
    : std::runtime_error(failure.summary()), failure_(std::move(failure)) {}

}  // namespace rebound::odbc

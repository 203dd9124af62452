#include "rebound/odbc/database_error.hpp"

#include <utility>

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

namespace {

constexpr std::string_view kCommitConnectionRule = "commit_connection_loss:";
constexpr std::string_view kDeadSessionRule = "connection_dead";

}  // namespace

DatabaseFailure classify_failure(const SqlErrorClassifier& classifier, std::optional<Vendor> vendor,
                                 DatabasePhase phase, std::vector<DiagnosticRecord> records,
                                 bool session_dead) {
    DatabaseFailure failure;
    failure.phase = phase;
    failure.vendor = vendor;
    failure.records = std::move(records);
    SqlClassification best;
    for (std::size_t index = 0; index < failure.records.size(); ++index) {
        const DiagnosticRecord& record = failure.records[index];
        if (record.is_warning()) {
            continue;
        }
        SqlErrorRecord input;
        input.vendor = vendor;
        input.sqlstate = record.sqlstate;
        input.native_code = record.native_code;
        input.phase = phase;
        const SqlClassification result = classifier.classify(input);
        if (!failure.classified_record || result.specificity > best.specificity) {
            best = result;
            failure.classified_record = index;
        }
    }
    failure.category = best.category;
    failure.matched = std::string(best.matched);
    if (session_dead && failure.category == ErrorCategory::Unknown) {
        failure.category = ErrorCategory::ConnectionLost;
        failure.matched = std::string(kDeadSessionRule);
    }
    if (phase == DatabasePhase::Commit &&
        restart_scope(best.category) == RestartScope::Connection) {
        // The session ended while the commit was under way: the server may have committed before
        // it went (PostgreSQL answers 57P01 to a COMMIT it may have finished; MariaDB 1927), so
        // the outcome is unknown whatever the map says about the error in other phases.
        failure.category = ErrorCategory::CommitOutcomeUnknown;
        failure.matched = std::string(kCommitConnectionRule) + failure.matched;
    }
    if (const DiagnosticRecord* record = failure.primary()) {
        failure.sqlstate = std::string(normalize_sqlstate(record->sqlstate).view());
    }
    return failure;
}

DatabaseError::DatabaseError(DatabaseFailure failure)
    : std::runtime_error(failure.summary()), failure_(std::move(failure)) {}

}  // namespace rebound::odbc

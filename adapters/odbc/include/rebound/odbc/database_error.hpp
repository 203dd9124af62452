// DatabaseFailure and DatabaseError: one failed ODBC call, read and classified.
//
// A failure keeps every diagnostic record of the handle (warnings included, in driver order),
// the phase (connect, execute, commit, rollback), the vendor of the connection, and the
// classification of its most specific non-warning record (docs/categories.md).
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/error.hpp"
#include "rebound/odbc/diagnostic_record.hpp"
#include "rebound/sql_error_classifier.hpp"

namespace rebound::odbc {

struct DatabaseFailure {
    DatabasePhase phase = DatabasePhase::Execute;
    std::optional<Vendor> vendor;
    std::vector<DiagnosticRecord> records;
    ErrorCategory category = ErrorCategory::Unknown;
    std::string matched;  // the vendor-map rule that chose `category`; empty for `unknown`
    // Index in `records` of the record that was classified; nullopt when there were none.
    std::optional<std::size_t> classified_record;
    std::string sqlstate;  // of that record, normalised to ODBC 3 (normalize_sqlstate)

    // The record that decided the category, or null.
    const DiagnosticRecord* primary() const noexcept;

    // What the engine sees (category, SQLSTATE normalised, vendor, native code, message). The
    // views point into this failure, which must outlive the description.
    ErrorDescription description() const noexcept;

    // The record a reader is shown: primary(), or when no record decided the category, the first
    // one (unixODBC reports a driver it cannot load only as the warning 01000 "Can't open lib",
    // which is the whole explanation); null when there are no records.
    const DiagnosticRecord* shown() const noexcept;

    // `deadlock (40P01, native 1, phase execute): ERROR: deadlock detected ...`, of shown(): the
    // driver's SQLSTATE and message whenever it left a record. The message is the driver's text
    // as it is (data: escape it before printing it on a terminal).
    std::string summary() const;
};

// Classifies `records` read in `phase` on a connection of `vendor` with
// SqlErrorClassifier::classify_failure, which `rebound classify` and `rebound decide` use too:
// class-01 warnings are skipped; among the rest, the record whose rule is most specific wins (the
// earlier one on a tie); a failure without any non-warning record is `unknown`. Then the phase
// rules (docs/categories.md): `session_dead` (the driver reports the session gone,
// SQL_ATTR_CONNECTION_DEAD) makes a failure no rule recognised `connection_lost` (`matched` is
// `connection_dead`): a driver may report a dropped session with a code no vendor map knows yet,
// and a session that is gone must be replaced whatever the code. During a commit, a category whose
// restart scope is `connection` (connection_lost, admin_shutdown, ...; `connection_dead`
// included) becomes `commit_outcome_unknown`, with `matched` prefixed `commit_connection_loss:`:
// the server may have committed before the session went.
DatabaseFailure classify_failure(const SqlErrorClassifier& classifier, std::optional<Vendor> vendor,
                                 DatabasePhase phase, std::vector<DiagnosticRecord> records,
                                 bool session_dead = false);

// Thrown by Connection when an ODBC call fails. what() is failure().summary().
class DatabaseError : public std::runtime_error {
  public:
    explicit DatabaseError(DatabaseFailure failure);
    const DatabaseFailure& failure() const noexcept { return failure_; }
    ErrorCategory category() const noexcept { return failure_.category; }

  private:
    DatabaseFailure failure_;
};

}  // namespace rebound::odbc

// SqlErrorClassifier: precedence of the levels, phases, SQLSTATE normalisation, SQLite extended
// result codes, and picking the most specific of several diagnostic records.
#include "rebound/sql_error_classifier.hpp"

#include <catch2/catch.hpp>

#include "sql_error_rules.hpp"

#include <stdexcept>
#include <vector>

namespace {

using rebound::DatabasePhase;
using rebound::ErrorCategory;
using rebound::SqlErrorClassifier;
using rebound::SqlErrorRecord;
using rebound::SqlErrorRule;
using rebound::SqlRuleKey;
using rebound::Vendor;

using rebound::testing::native_rule;
using rebound::testing::state_rule;

SqlErrorRecord record(std::optional<Vendor> vendor, std::string_view sqlstate,
                      std::optional<std::int64_t> native = std::nullopt,
                      DatabasePhase phase = DatabasePhase::Execute) {
    return rebound::testing::error_record(vendor, sqlstate, native, phase);
}

// A small map with a rule at every level, so each test can tell the levels apart.
std::vector<SqlErrorRule> small_map() {
    std::vector<SqlErrorRule> rules{
        native_rule(Vendor::MySql, 1213, ErrorCategory::Deadlock),
        native_rule(Vendor::MySql, 1205, ErrorCategory::LockTimeout),
        state_rule(Vendor::MySql, SqlRuleKey::SqlState, "40001", ErrorCategory::Deadlock),
        state_rule(Vendor::MySql, SqlRuleKey::SqlStateClass, "23", ErrorCategory::DataError),
        state_rule(Vendor::Generic, SqlRuleKey::SqlState, "40001",
                   ErrorCategory::SerializationFailure),
        state_rule(Vendor::Generic, SqlRuleKey::SqlStateClass, "40",
                   ErrorCategory::SerializationFailure),
        state_rule(Vendor::Generic, SqlRuleKey::SqlStateClass, "23",
                   ErrorCategory::ConstraintViolation),
        state_rule(Vendor::Generic, SqlRuleKey::SqlStateClass, "01", ErrorCategory::Warning),
        state_rule(Vendor::Generic, SqlRuleKey::SqlStateClass, "42", ErrorCategory::SyntaxError),
        state_rule(Vendor::Generic, SqlRuleKey::SqlState, "HY000", ErrorCategory::Unknown),
        native_rule(Vendor::Sqlite, 5, ErrorCategory::LockTimeout),
        native_rule(Vendor::Sqlite, 19, ErrorCategory::ConstraintViolation),
        native_rule(Vendor::Sqlite, 517, ErrorCategory::SerializationFailure),
        native_rule(Vendor::Db2, -911, ErrorCategory::Deadlock),
        native_rule(Vendor::Oracle, 1, ErrorCategory::ConstraintViolation),
    };
    SqlErrorRule timeout;
    timeout.vendor = Vendor::Generic;
    timeout.key = SqlRuleKey::SqlState;
    timeout.sqlstate = "HYT00";
    timeout.set_category(DatabasePhase::Connect, ErrorCategory::ConnectionFailure);
    timeout.set_category(DatabasePhase::Execute, ErrorCategory::StatementTimeout);
    rules.push_back(timeout);
    SqlErrorRule link =
        state_rule(Vendor::Generic, SqlRuleKey::SqlState, "08S01", ErrorCategory::ConnectionLost);
    link.set_category(DatabasePhase::Commit, ErrorCategory::CommitOutcomeUnknown);
    rules.push_back(link);
    SqlErrorRule lost = native_rule(Vendor::MySql, 2013, ErrorCategory::ConnectionLost);
    lost.set_category(DatabasePhase::Commit, ErrorCategory::CommitOutcomeUnknown);
    rules.push_back(lost);
    return rules;
}

SqlErrorClassifier make_classifier() {
    return SqlErrorClassifier(small_map());
}

}  // namespace

TEST_CASE("each level of precedence wins over the ones below it", "[sql_classifier]") {
    const SqlErrorClassifier classifier = make_classifier();

    const auto native = classifier.classify(record(Vendor::MySql, "40001", 1205));
    CHECK(native.category == ErrorCategory::LockTimeout);
    CHECK(native.matched == "native:mysql:1205");

    const auto vendor_state = classifier.classify(record(Vendor::MySql, "40001", 9999));
    CHECK(vendor_state.category == ErrorCategory::Deadlock);
    CHECK(vendor_state.matched == "sqlstate:mysql:40001");

    const auto vendor_class = classifier.classify(record(Vendor::MySql, "23000", 9999));
    CHECK(vendor_class.category == ErrorCategory::DataError);
    CHECK(vendor_class.matched == "sqlstate_class:mysql:23");

    const auto generic_state = classifier.classify(record(Vendor::PostgreSql, "40001", 1));
    CHECK(generic_state.category == ErrorCategory::SerializationFailure);
    CHECK(generic_state.matched == "sqlstate:generic:40001");

    const auto generic_class = classifier.classify(record(Vendor::PostgreSql, "40P01"));
    CHECK(generic_class.category == ErrorCategory::SerializationFailure);
    CHECK(generic_class.matched == "sqlstate_class:generic:40");

    const auto nothing = classifier.classify(record(Vendor::PostgreSql, "XX000"));
    CHECK(nothing.category == ErrorCategory::Unknown);
    CHECK(nothing.matched.empty());
    CHECK(nothing.specificity == 0);

    CHECK(native.specificity > vendor_state.specificity);
    CHECK(vendor_state.specificity > vendor_class.specificity);
    CHECK(vendor_class.specificity > generic_state.specificity);
    CHECK(generic_state.specificity > generic_class.specificity);
    CHECK(generic_class.specificity > nothing.specificity);
}

TEST_CASE("without a vendor or with generic only the generic map applies", "[sql_classifier]") {
    const SqlErrorClassifier classifier = make_classifier();
    CHECK(classifier.classify(record(std::nullopt, "40001", 1213)).category ==
          ErrorCategory::SerializationFailure);
    CHECK(classifier.classify(record(Vendor::Generic, "40001", 1213)).matched ==
          "sqlstate:generic:40001");
    // A native code alone, of another vendor, matches nothing.
    CHECK(classifier.classify(record(Vendor::PostgreSql, "", 1213)).category ==
          ErrorCategory::Unknown);
}

TEST_CASE("the phase chooses among a rule's categories", "[sql_classifier]") {
    const SqlErrorClassifier classifier = make_classifier();
    CHECK(classifier.classify(record(Vendor::SqlServer, "HYT00", 0, DatabasePhase::Connect))
              .category == ErrorCategory::ConnectionFailure);
    CHECK(classifier.classify(record(Vendor::SqlServer, "HYT00", 0, DatabasePhase::Execute))
              .category == ErrorCategory::StatementTimeout);
    // No category for the commit phase: the rule does not apply, nothing below matches.
    const auto commit =
        classifier.classify(record(Vendor::SqlServer, "HYT00", 0, DatabasePhase::Commit));
    CHECK(commit.category == ErrorCategory::Unknown);
    CHECK(commit.matched.empty());

    CHECK(classifier.classify(record(Vendor::MySql, "08S01", 0, DatabasePhase::Commit)).category ==
          ErrorCategory::CommitOutcomeUnknown);
    CHECK(classifier.classify(record(Vendor::MySql, "08S01", 0, DatabasePhase::Execute)).category ==
          ErrorCategory::ConnectionLost);
    CHECK(
        classifier.classify(record(Vendor::MySql, "08S01", 2013, DatabasePhase::Commit)).category ==
        ErrorCategory::CommitOutcomeUnknown);
    CHECK(classifier.classify(record(Vendor::MySql, "08S01", 2013, DatabasePhase::Connect))
              .category == ErrorCategory::ConnectionLost);
}

TEST_CASE("ODBC 2 SQLSTATEs are normalised before lookup", "[sql_classifier]") {
    using rebound::normalize_sqlstate;
    CHECK(normalize_sqlstate("S1000").view() == "HY000");
    CHECK(normalize_sqlstate("S1T00").view() == "HYT00");
    CHECK(normalize_sqlstate("37000").view() == "42000");
    CHECK(normalize_sqlstate("S0002").view() == "42S02");
    CHECK(normalize_sqlstate("S0022").view() == "42S22");
    CHECK(normalize_sqlstate("01S03").view() == "01001");
    CHECK(normalize_sqlstate("70100").view() == "HY018");
    CHECK(normalize_sqlstate("s1t00").view() == "HYT00");
    CHECK(normalize_sqlstate("22003").view() == "22003");  // also a valid ODBC 3 state: kept
    CHECK(normalize_sqlstate("40001").view() == "40001");
    CHECK(normalize_sqlstate("4000").view() == "4000");
    CHECK(normalize_sqlstate("400011").view() == "40001");
    CHECK(normalize_sqlstate("").view().empty());

    const SqlErrorClassifier classifier = make_classifier();
    CHECK(classifier.classify(record(Vendor::Db2, "S1T00", std::nullopt, DatabasePhase::Connect))
              .category == ErrorCategory::ConnectionFailure);
    CHECK(classifier.classify(record(Vendor::Db2, "37000")).matched == "sqlstate_class:generic:42");
    CHECK(classifier.classify(record(Vendor::Db2, "40p01")).category ==
          ErrorCategory::SerializationFailure);
    // Malformed SQLSTATEs match nothing rather than a class.
    CHECK(classifier.classify(record(Vendor::Db2, "4000")).category == ErrorCategory::Unknown);
    CHECK(classifier.classify(record(Vendor::Db2, "40-01")).category == ErrorCategory::Unknown);
}

TEST_CASE("SQLite extended result codes reduce to the primary code unless named",
          "[sql_classifier]") {
    const SqlErrorClassifier classifier = make_classifier();
    // SQLITE_CONSTRAINT_UNIQUE (2067) -> SQLITE_CONSTRAINT (19).
    const auto unique = classifier.classify(record(Vendor::Sqlite, "HY000", 2067));
    CHECK(unique.category == ErrorCategory::ConstraintViolation);
    CHECK(unique.matched == "native:sqlite:19");
    // SQLITE_BUSY_SNAPSHOT (517) is named: it does not become SQLITE_BUSY (5).
    CHECK(classifier.classify(record(Vendor::Sqlite, "HY000", 517)).category ==
          ErrorCategory::SerializationFailure);
    // SQLITE_BUSY_RECOVERY (261) is not named: SQLITE_BUSY.
    CHECK(classifier.classify(record(Vendor::Sqlite, "HY000", 261)).matched == "native:sqlite:5");
    // Only SQLite reduces: Oracle 257 does not become ORA-00001.
    CHECK(classifier.classify(record(Vendor::Oracle, "", 257)).matched.empty());
    CHECK(classifier.classify(record(Vendor::Oracle, "", 1)).matched == "native:oracle:1");
}

TEST_CASE("negative native codes (Db2 SQLCODEs) are found", "[sql_classifier]") {
    const SqlErrorClassifier classifier = make_classifier();
    CHECK(classifier.classify(record(Vendor::Db2, "40001", -911)).matched == "native:db2:-911");
    CHECK(classifier.classify(record(Vendor::Db2, "", 911)).matched.empty());
}

TEST_CASE("the most specific of several records wins and warnings are skipped",
          "[sql_classifier]") {
    const SqlErrorClassifier classifier = make_classifier();
    const std::vector<SqlErrorRecord> records{
        record(Vendor::MySql, "01000", 1213),  // a warning: skipped even with a native match
        record(Vendor::MySql, "42000", 9999),  // generic class
        record(Vendor::MySql, "HY000", 1205),  // vendor native: the most specific
        record(Vendor::MySql, "40001", 9999),  // vendor SQLSTATE
    };
    const auto best = classifier.classify_most_specific(records);
    CHECK(best.category == ErrorCategory::LockTimeout);
    CHECK(best.matched == "native:mysql:1205");

    // On a tie the earlier record wins.
    const std::vector<SqlErrorRecord> tie{record(Vendor::MySql, "", 1213),
                                          record(Vendor::MySql, "", 1205)};
    CHECK(classifier.classify_most_specific(tie).category == ErrorCategory::Deadlock);

    // Only warnings: the first record's result.
    const std::vector<SqlErrorRecord> warnings{record(Vendor::MySql, "01004"),
                                               record(Vendor::MySql, "01000")};
    CHECK(classifier.classify_most_specific(warnings).category == ErrorCategory::Warning);
    // ODBC 2 warning 01S03 normalises to 01001 and is skipped too.
    const std::vector<SqlErrorRecord> odbc2{record(Vendor::MySql, "01S03", 1213),
                                            record(Vendor::MySql, "42000")};
    CHECK(classifier.classify_most_specific(odbc2).category == ErrorCategory::SyntaxError);

    CHECK(classifier.classify_most_specific({}).category == ErrorCategory::Unknown);
}

TEST_CASE("classify_failure applies the phase rules after the maps", "[sql_classifier]") {
    std::vector<SqlErrorRule> rules = small_map();
    rules.push_back(state_rule(Vendor::PostgreSql, SqlRuleKey::SqlState, "57P01",
                               ErrorCategory::AdminShutdown));
    SqlErrorRule rollback =
        state_rule(Vendor::PostgreSql, SqlRuleKey::SqlState, "40P01", ErrorCategory::Deadlock);
    rollback.set_category(DatabasePhase::Rollback, ErrorCategory::DataError);  // no such entry
    rules.push_back(rollback);
    const SqlErrorClassifier classifier(rules);
    const auto failure = [&](std::vector<SqlErrorRecord> records, DatabasePhase phase,
                             bool dead = false) {
        return classifier.classify_failure(records, phase, dead);
    };

    // PostgreSQL terminates the session during COMMIT: 57P01 is admin_shutdown only executing.
    const std::vector<SqlErrorRecord> terminated{record(Vendor::PostgreSql, "57P01", 1),
                                                 record(Vendor::PostgreSql, "08S01", 35)};
    const auto executing = failure(terminated, DatabasePhase::Execute);
    CHECK(executing.category == ErrorCategory::AdminShutdown);
    CHECK(executing.record == 0U);
    CHECK(executing.matched() == "sqlstate:postgresql:57P01");
    const auto committing = failure(terminated, DatabasePhase::Commit);
    CHECK(committing.category == ErrorCategory::CommitOutcomeUnknown);
    CHECK(committing.commit_connection_loss);
    CHECK(committing.map_rule == "sqlstate:postgresql:57P01");
    CHECK(committing.matched() == "commit_connection_loss:sqlstate:postgresql:57P01");
    // The records' own phase is not read: the call's is.
    CHECK(failure({record(Vendor::PostgreSql, "57P01", 1, DatabasePhase::Execute)},
                  DatabasePhase::Commit)
              .category == ErrorCategory::CommitOutcomeUnknown);
    // A rollback is looked up as a statement, and its outcome is never unknown.
    const auto rolling_back = failure(terminated, DatabasePhase::Rollback);
    CHECK(rolling_back.category == ErrorCategory::AdminShutdown);
    CHECK_FALSE(rolling_back.commit_connection_loss);
    CHECK(failure({record(Vendor::PostgreSql, "HYT00")}, DatabasePhase::Rollback).category ==
          ErrorCategory::StatementTimeout);
    // A rule cannot give rollback a category of its own (set_category ignores it).
    CHECK(failure({record(Vendor::PostgreSql, "40P01")}, DatabasePhase::Rollback).category ==
          ErrorCategory::Deadlock);
    // A category without restart scope `connection` stays during a commit.
    CHECK(failure({record(Vendor::PostgreSql, "40001")}, DatabasePhase::Commit).category ==
          ErrorCategory::SerializationFailure);

    // A session the driver reports dead: what no rule knew is connection_lost, and during a
    // commit the outcome is unknown.
    const std::vector<SqlErrorRecord> unknown{record(Vendor::PostgreSql, "XX999", 7)};
    CHECK(failure(unknown, DatabasePhase::Execute).category == ErrorCategory::Unknown);
    CHECK(failure(unknown, DatabasePhase::Execute).matched().empty());
    const auto dead = failure(unknown, DatabasePhase::Execute, true);
    CHECK(dead.category == ErrorCategory::ConnectionLost);
    CHECK(dead.matched() == "connection_dead");
    const auto dead_commit = failure(unknown, DatabasePhase::Commit, true);
    CHECK(dead_commit.category == ErrorCategory::CommitOutcomeUnknown);
    CHECK(dead_commit.matched() == "commit_connection_loss:connection_dead");
    // A rule that knew the failure stands when the session is dead.
    CHECK(failure({record(Vendor::PostgreSql, "40001")}, DatabasePhase::Execute, true).category ==
          ErrorCategory::SerializationFailure);

    // Only warnings, or nothing: unknown with no deciding record.
    const auto warnings = failure({record(Vendor::PostgreSql, "01000")}, DatabasePhase::Execute);
    CHECK(warnings.category == ErrorCategory::Unknown);
    CHECK_FALSE(warnings.record);
    CHECK(failure({}, DatabasePhase::Commit).category == ErrorCategory::Unknown);
    CHECK(failure({}, DatabasePhase::Commit, true).category == ErrorCategory::CommitOutcomeUnknown);
}

TEST_CASE("the rollback phase has a wire name but no entry in the maps", "[sql_classifier]") {
    CHECK(rebound::parse_database_phase("rollback") == DatabasePhase::Rollback);
    CHECK(rebound::to_string(DatabasePhase::Rollback) == "rollback");
    CHECK(rebound::map_phase(DatabasePhase::Rollback) == DatabasePhase::Execute);
    CHECK(rebound::map_phase(DatabasePhase::Commit) == DatabasePhase::Commit);
    CHECK_FALSE(rebound::parse_database_phase("teardown"));
}

TEST_CASE("rule counts are kept per vendor", "[sql_classifier]") {
    const SqlErrorClassifier classifier = make_classifier();
    CHECK(classifier.rule_count(Vendor::MySql) == 5);
    CHECK(classifier.rule_count(Vendor::Generic) == 8);
    CHECK(classifier.rule_count(Vendor::Sqlite) == 3);
    CHECK(classifier.rule_count(Vendor::Oracle) == 1);
    CHECK(classifier.rule_count(Vendor::PostgreSql) == 0);
}

TEST_CASE("invalid rules cannot build a classifier", "[sql_classifier]") {
    const std::vector<SqlErrorRule> duplicate{
        native_rule(Vendor::MySql, 1213, ErrorCategory::Deadlock),
        native_rule(Vendor::MySql, 1213, ErrorCategory::LockTimeout)};
    CHECK_THROWS_AS(SqlErrorClassifier(duplicate), std::invalid_argument);
    // The same code for two vendors is fine.
    const std::vector<SqlErrorRule> two_vendors{
        native_rule(Vendor::MySql, 1, ErrorCategory::Deadlock),
        native_rule(Vendor::Oracle, 1, ErrorCategory::ConstraintViolation)};
    CHECK_NOTHROW(SqlErrorClassifier(two_vendors));

    const std::vector<SqlErrorRule> short_state{
        state_rule(Vendor::Generic, SqlRuleKey::SqlState, "4000", ErrorCategory::Deadlock)};
    CHECK_THROWS_AS(SqlErrorClassifier(short_state), std::invalid_argument);
    const std::vector<SqlErrorRule> lower_case{
        state_rule(Vendor::Generic, SqlRuleKey::SqlStateClass, "hy", ErrorCategory::ClientError)};
    CHECK_THROWS_AS(SqlErrorClassifier(lower_case), std::invalid_argument);

    SqlErrorRule no_phase;
    no_phase.vendor = Vendor::Generic;
    no_phase.sqlstate = "40001";
    const std::vector<SqlErrorRule> empty{no_phase};
    CHECK_THROWS_AS(SqlErrorClassifier(empty), std::invalid_argument);
}

TEST_CASE("results stay valid after the classifier is moved", "[sql_classifier]") {
    SqlErrorClassifier original = make_classifier();
    const auto before = original.classify(record(Vendor::MySql, "", 1213));
    const SqlErrorClassifier moved(std::move(original));
    CHECK(before.matched == "native:mysql:1213");
    CHECK(moved.classify(record(Vendor::MySql, "", 1213)).matched == "native:mysql:1213");
}

// The vendor map loader: the shipped maps load cleanly and classify what the Debian 12 drivers
// really report (docs/categories.md); bad maps give positioned diagnostics.
#include "rebound/dsl/vendor_map_loader.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "allocation_counter.hpp"
#include "rebound/dsl/load.hpp"

namespace {

namespace fs = std::filesystem;
using rebound::DatabasePhase;
using rebound::ErrorCategory;
using rebound::SqlErrorRecord;
using rebound::Vendor;
using rebound::dsl::DiagnosticCode;
using rebound::dsl::VendorMapSource;

const fs::path kShippedMaps = REBOUND_VENDOR_MAP_DIR;

std::shared_ptr<const rebound::SqlErrorClassifier> shipped() {
    static const auto classifier = rebound::dsl::load_vendor_maps_or_throw(kShippedMaps);
    return classifier;
}

SqlErrorRecord record(Vendor vendor, std::string_view sqlstate, std::optional<std::int64_t> native,
                      DatabasePhase phase = DatabasePhase::Execute) {
    SqlErrorRecord r;
    r.vendor = vendor;
    r.sqlstate = sqlstate;
    r.native_code = native;
    r.phase = phase;
    return r;
}

// Loads one map text (plus nothing else) and returns the result.
rebound::dsl::VendorMapLoadResult load_text(const std::string& text) {
    return rebound::dsl::load_vendor_map_sources({VendorMapSource{"bad.yaml", text}});
}

const std::string kHeader =
    "rebound_vendor_map: 1\n"
    "vendor: mysql\n"
    "sources:\n"
    "  ref: \"MySQL reference\"\n"
    "rules:\n";

// The single diagnostic of a map made of kHeader and `rules` (rules start on line 6).
rebound::dsl::Diagnostic only_diagnostic(const std::string& rules) {
    const auto result = load_text(kHeader + rules);
    INFO(kHeader + rules);
    for (const auto& d : result.diagnostics) {
        INFO(rebound::dsl::format_diagnostic(d, kHeader + rules));
    }
    REQUIRE(result.diagnostics.size() == 1);
    CHECK(result.classifier == nullptr);
    return result.diagnostics.front();
}

}  // namespace

TEST_CASE("every shipped vendor map loads without a diagnostic", "[vendor_maps]") {
    const auto result = rebound::dsl::load_vendor_maps(kShippedMaps);
    for (const auto& d : result.diagnostics) {
        UNSCOPED_INFO(rebound::dsl::format_diagnostic(d));
    }
    CHECK(result.diagnostics.empty());
    REQUIRE(result.classifier != nullptr);
    REQUIRE(result.files.size() == rebound::kVendorTable.size());
    for (const auto& info : rebound::kVendorTable) {
        const auto file = std::find_if(result.files.begin(), result.files.end(),
                                       [&](const auto& f) { return f.vendor == info.vendor; });
        REQUIRE(file != result.files.end());
        CHECK(fs::path(file->file).stem() == info.wire_name);
        CHECK(file->rule_count == result.classifier->rule_count(info.vendor));
        CHECK(file->rule_count >= 25);
    }
}

TEST_CASE("the shipped maps cover every category a vendor can report", "[vendor_maps]") {
    // Categories that only code sets (optimistic_conflict, pool_exhausted) are not in any map;
    // every other category appears in the generic map or some vendor's map.
    const auto classifier = shipped();
    const std::vector<std::pair<SqlErrorRecord, ErrorCategory>> samples{
        {record(Vendor::SqlServer, "40001", 1205), ErrorCategory::Deadlock},
        {record(Vendor::Oracle, "HY000", 8177), ErrorCategory::SerializationFailure},
        {record(Vendor::SqlServer, "HY000", 1222), ErrorCategory::LockTimeout},
        {record(Vendor::Db2, "08001", -30081, DatabasePhase::Connect),
         ErrorCategory::ConnectionFailure},
        {record(Vendor::Oracle, "HY000", 3113), ErrorCategory::ConnectionLost},
        {record(Vendor::SqlServer, "42000", 40501), ErrorCategory::ResourceExhausted},
        {record(Vendor::SqlServer, "HY000", 40613), ErrorCategory::ServiceUnavailable},
        {record(Vendor::Oracle, "HY000", 28), ErrorCategory::AdminShutdown},
        {record(Vendor::Db2, "57014", -952), ErrorCategory::StatementTimeout},
        {record(Vendor::Oracle, "HY000", 25405), ErrorCategory::CommitOutcomeUnknown},
        {record(Vendor::PostgreSql, "25006", 1), ErrorCategory::ReadOnlyFailover},
        {record(Vendor::Db2, "23505", -803), ErrorCategory::ConstraintViolation},
        {record(Vendor::Oracle, "HY000", 942), ErrorCategory::SyntaxError},
        {record(Vendor::MySql, "42000", 1142), ErrorCategory::PermissionDenied},
        {record(Vendor::SqlServer, "28000", 18456), ErrorCategory::AuthenticationFailed},
        {record(Vendor::SqlServer, "22012", 8134), ErrorCategory::DataError},
        {record(Vendor::PostgreSql, "XX001", 1), ErrorCategory::SystemError},
        {record(Vendor::Generic, "IM002", std::nullopt), ErrorCategory::ClientError},
        {record(Vendor::Generic, "01004", std::nullopt), ErrorCategory::Warning},
        {record(Vendor::CockroachDb, "40003", std::nullopt, DatabasePhase::Commit),
         ErrorCategory::CommitOutcomeUnknown},
        {record(Vendor::CockroachDb, "58C00", std::nullopt), ErrorCategory::ServiceUnavailable},
    };
    for (const auto& [r, expected] : samples) {
        INFO(to_string(*r.vendor) << " " << r.sqlstate << " " << r.native_code.value_or(0));
        CHECK(classifier->classify(r).category == expected);
    }
}

TEST_CASE("the Debian 12 drivers' reports classify as docs/categories.md says", "[vendor_maps]") {
    struct Finding {
        Vendor vendor;
        std::string_view sqlstate;
        std::int64_t native;
        ErrorCategory expected;
        std::string_view matched;
    };
    const std::vector<Finding> findings{
        // psqlODBC 13: the native code is the driver's own number, the SQLSTATE decides.
        {Vendor::PostgreSql, "40P01", 1, ErrorCategory::Deadlock, "sqlstate:postgresql:40P01"},
        {Vendor::PostgreSql, "40001", 1, ErrorCategory::SerializationFailure,
         "sqlstate:postgresql:40001"},
        {Vendor::PostgreSql, "55P03", 1, ErrorCategory::LockTimeout, "sqlstate:postgresql:55P03"},
        {Vendor::PostgreSql, "57014", 1, ErrorCategory::StatementTimeout,
         "sqlstate:postgresql:57014"},
        {Vendor::PostgreSql, "57P01", 35, ErrorCategory::AdminShutdown,
         "sqlstate:postgresql:57P01"},
        {Vendor::PostgreSql, "08S01", 35, ErrorCategory::ConnectionLost, "sqlstate:generic:08S01"},
        // MariaDB Connector/ODBC 3.1: the native code decides.
        {Vendor::MySql, "40001", 1213, ErrorCategory::Deadlock, "native:mysql:1213"},
        {Vendor::MySql, "HY000", 1205, ErrorCategory::LockTimeout, "native:mysql:1205"},
        {Vendor::MySql, "HY018", 1969, ErrorCategory::StatementTimeout, "native:mysql:1969"},
        {Vendor::MySql, "HY018", 1927, ErrorCategory::ConnectionLost, "native:mysql:1927"},
        {Vendor::MySql, "08S01", 2013, ErrorCategory::ConnectionLost, "native:mysql:2013"},
        // A statement written to a session killed under load: "Write error: Broken pipe (32)".
        {Vendor::MySql, "HY000", 5014, ErrorCategory::ConnectionLost, "native:mysql:5014"},
        {Vendor::MySql, "HY000", 5013, ErrorCategory::ConnectionLost, "native:mysql:5013"},
        // sqliteodbc 0.9998: everything under HY000, the result code decides.
        {Vendor::Sqlite, "HY000", 5, ErrorCategory::LockTimeout, "native:sqlite:5"},
        {Vendor::Sqlite, "HY000", 19, ErrorCategory::ConstraintViolation, "native:sqlite:19"},
        {Vendor::Sqlite, "HY000", 1, ErrorCategory::SyntaxError, "native:sqlite:1"},
        {Vendor::Sqlite, "HY000", 2067, ErrorCategory::ConstraintViolation, "native:sqlite:19"},
    };
    const auto classifier = shipped();
    for (const Finding& f : findings) {
        INFO(to_string(f.vendor) << " " << f.sqlstate << " " << f.native);
        const auto result = classifier->classify(record(f.vendor, f.sqlstate, f.native));
        CHECK(result.category == f.expected);
        CHECK(result.matched == f.matched);
    }
    // The same records while committing: a lost link leaves the commit's outcome unknown.
    CHECK(classifier->classify(record(Vendor::PostgreSql, "08S01", 35, DatabasePhase::Commit))
              .category == ErrorCategory::CommitOutcomeUnknown);
    CHECK(classifier->classify(record(Vendor::MySql, "08S01", 2013, DatabasePhase::Commit))
              .category == ErrorCategory::CommitOutcomeUnknown);
    CHECK(classifier->classify(record(Vendor::MySql, "HY000", 5014, DatabasePhase::Commit))
              .category == ErrorCategory::CommitOutcomeUnknown);
    CHECK(classifier->classify(record(Vendor::SqlServer, "HYT00", 0, DatabasePhase::Connect))
              .category == ErrorCategory::ConnectionFailure);
    CHECK(classifier->classify(record(Vendor::SqlServer, "HYT00", 0, DatabasePhase::Execute))
              .category == ErrorCategory::StatementTimeout);
    // psqlODBC after pg_terminate_backend: the termination record is the most specific.
    const std::vector<SqlErrorRecord> terminated{record(Vendor::PostgreSql, "57P01", 35),
                                                 record(Vendor::PostgreSql, "08S01", 35)};
    CHECK(classifier->classify_most_specific(terminated).category == ErrorCategory::AdminShutdown);
}

TEST_CASE("classifying with the shipped maps does not allocate", "[vendor_maps]") {
    const auto classifier = shipped();
    const std::vector<SqlErrorRecord> records{record(Vendor::MySql, "01000", 1000),
                                              record(Vendor::MySql, "HY000", 1205),
                                              record(Vendor::Sqlite, "S1000", 2067)};
    const std::size_t before = rebound::testing::allocations_on_this_thread();
    int matched = 0;
    for (int i = 0; i < 100; ++i) {
        matched += classifier->classify(records[1]).matched.empty() ? 0 : 1;
        matched += classifier->classify_most_specific(records).matched.empty() ? 0 : 1;
    }
    CHECK(rebound::testing::allocations_on_this_thread() == before);
    CHECK(matched == 200);
}

TEST_CASE("REBOUND_DATA_DIR moves the default directory", "[vendor_maps]") {
    ::setenv("REBOUND_DATA_DIR", "/opt/rebound-data", 1);
    CHECK(rebound::dsl::default_vendor_map_directory() == fs::path("/opt/rebound-data/vendors"));
    CHECK(rebound::dsl::default_vendor_map_directory("/moved/prefix/share/rebound") ==
          fs::path("/opt/rebound-data/vendors"));
    ::unsetenv("REBOUND_DATA_DIR");
    CHECK(rebound::dsl::default_vendor_map_directory().filename() == "vendors");
}

TEST_CASE("an installed package's data directory locates the maps wherever the prefix went",
          "[vendor_maps]") {
    // What a program built with find_package(rebound) passes (REBOUND_PACKAGE_DATA_DIR); the
    // install test checks the whole path through a moved prefix.
    ::unsetenv("REBOUND_DATA_DIR");
    CHECK(rebound::dsl::default_vendor_map_directory("/moved/prefix/share/rebound") ==
          fs::path("/moved/prefix/share/rebound/vendors"));
    CHECK(rebound::dsl::default_vendor_map_directory(fs::path{}) ==
          rebound::dsl::default_vendor_map_directory());
}

TEST_CASE("bad vendor maps are reported with their positions", "[vendor_maps]") {
    SECTION("unknown rule key with did-you-mean") {
        const auto d = only_diagnostic("  - { native: 1213, categroy: deadlock, source: ref }\n");
        CHECK(d.code == DiagnosticCode::UnknownKey);
        CHECK(d.position.line == 6);
        CHECK(d.position.column == 21);
        CHECK(d.suggestion == "did you mean 'category'?");
    }
    SECTION("unknown category") {
        const auto d = only_diagnostic("  - { native: 1213, category: deadlok, source: ref }\n");
        CHECK(d.code == DiagnosticCode::UnknownValue);
        CHECK(d.position.line == 6);
        CHECK(d.position.column == 31);
        CHECK(d.suggestion == "did you mean 'deadlock'?");
    }
    SECTION("unknown category in a phase") {
        const auto d =
            only_diagnostic("  - native: 2013\n    commit: outcome_unknown\n    source: ref\n");
        CHECK(d.code == DiagnosticCode::UnknownValue);
        CHECK(d.position.line == 7);
        CHECK(d.field == "rules[0].commit");
    }
    SECTION("duplicate rule, with the first position") {
        const auto d = only_diagnostic(
            "  - { native: 1213, category: deadlock, source: ref }\n"
            "  - { native: 1213, category: lock_timeout, source: ref }\n");
        CHECK(d.code == DiagnosticCode::DuplicateKey);
        CHECK(d.position.line == 7);
        CHECK(d.message.find("first at line 6") != std::string::npos);
    }
    SECTION("duplicate key inside a rule") {
        const auto d = only_diagnostic(
            "  - { native: 1213, category: deadlock, category: deadlock, source: ref }\n");
        CHECK(d.code == DiagnosticCode::DuplicateKey);
        CHECK(d.position.line == 6);
        // RB003 reads as it does for policy files (yaml_frontend_test.cpp).
        CHECK(d.message == "duplicate key 'category' (first given at line 6)");
        CHECK(d.suggestion == "remove one of them; the first is used");
    }
    SECTION("SQLSTATE of the wrong shape") {
        const auto d =
            only_diagnostic("  - { sqlstate: \"4001\", category: deadlock, source: ref }\n");
        CHECK(d.code == DiagnosticCode::InvalidValue);
        CHECK(d.position.line == 6);
        CHECK(d.position.column == 17);
    }
    SECTION("lower-case SQLSTATE class") {
        const auto d = only_diagnostic(
            "  - { sqlstate_class: \"hy\", category: client_error, source: ref }\n");
        CHECK(d.code == DiagnosticCode::InvalidValue);
    }
    SECTION("ODBC 2 SQLSTATE") {
        const auto d = only_diagnostic(
            "  - { sqlstate: \"S1T00\", category: statement_timeout, source: ref }\n");
        CHECK(d.code == DiagnosticCode::InvalidValue);
        CHECK(d.suggestion == "write 'HYT00'");
    }
    SECTION("two keys in one rule") {
        const auto d = only_diagnostic(
            "  - { native: 1213, sqlstate: \"40001\", category: deadlock, source: ref }\n");
        CHECK(d.code == DiagnosticCode::ConflictingFields);
    }
    SECTION("no category") {
        const auto d = only_diagnostic("  - { native: 1213, source: ref }\n");
        CHECK(d.code == DiagnosticCode::MissingField);
        CHECK(d.position.line == 6);
    }
    SECTION("unknown source") {
        const auto d =
            only_diagnostic("  - { native: 1213, category: deadlock, source: [ref, rfe] }\n");
        CHECK(d.code == DiagnosticCode::UnknownValue);
        CHECK(d.position.column == 55);
    }
    SECTION("native code that is not an integer") {
        const auto d = only_diagnostic("  - { native: 12x3, category: deadlock, source: ref }\n");
        CHECK(d.code == DiagnosticCode::WrongType);
    }
}

TEST_CASE("bad vendor map files are reported as a whole", "[vendor_maps]") {
    SECTION("unknown vendor") {
        const auto result =
            load_text("rebound_vendor_map: 1\nvendor: mysq\nsources: {}\nrules: []\n");
        REQUIRE(result.diagnostics.size() == 1);
        CHECK(result.diagnostics[0].code == DiagnosticCode::UnknownValue);
        CHECK(result.diagnostics[0].position.line == 2);
        CHECK(result.diagnostics[0].suggestion == "did you mean 'mysql'?");
    }
    SECTION("wrong version and unknown top-level key") {
        const auto result =
            load_text("rebound_vendor_map: 2\nvendor: mysql\nsource: {}\nrules: []\n");
        REQUIRE(result.diagnostics.size() == 3);
        CHECK(result.diagnostics[0].code == DiagnosticCode::UnknownKey);
        CHECK(result.diagnostics[0].suggestion == "did you mean 'sources'?");
        CHECK(result.diagnostics[1].code == DiagnosticCode::MissingField);
        CHECK(result.diagnostics[2].code == DiagnosticCode::UnsupportedVersion);
        CHECK(result.classifier == nullptr);
    }
    SECTION("not YAML") {
        const auto result = load_text("rebound_vendor_map: 1\nvendor: [mysql\n");
        REQUIRE(result.diagnostics.size() == 1);
        CHECK(result.diagnostics[0].code == DiagnosticCode::SyntaxError);
        CHECK(result.diagnostics[0].position.known());
    }
    SECTION("native codes in the generic map") {
        const auto result = load_text(
            "rebound_vendor_map: 1\nvendor: generic\nsources: { iso: ISO }\n"
            "rules:\n  - { native: 1, category: deadlock, source: iso }\n");
        REQUIRE(result.diagnostics.size() == 1);
        CHECK(result.diagnostics[0].code == DiagnosticCode::InvalidValue);
        CHECK(result.diagnostics[0].position.line == 5);
    }
    SECTION("two files for one vendor") {
        const std::string map = kHeader + "  - { native: 1213, category: deadlock, source: ref }\n";
        const auto result = rebound::dsl::load_vendor_map_sources(
            {VendorMapSource{"a.yaml", map}, VendorMapSource{"b.yaml", map}});
        REQUIRE(result.diagnostics.size() == 1);
        CHECK(result.diagnostics[0].code == DiagnosticCode::DuplicateKey);
        CHECK(result.diagnostics[0].file == "b.yaml");
        CHECK(result.diagnostics[0].position.line == 2);
    }
    SECTION("a missing directory") {
        const auto result = rebound::dsl::load_vendor_maps("/nonexistent/rebound/vendors");
        REQUIRE(result.diagnostics.size() == 1);
        CHECK(result.diagnostics[0].code == DiagnosticCode::UnreadableFile);
        CHECK_THROWS_AS(rebound::dsl::load_vendor_maps_or_throw("/nonexistent/rebound/vendors"),
                        rebound::dsl::LoadError);
    }
}

TEST_CASE("a phase entry overrides the rule's category only in its phase", "[vendor_maps]") {
    const auto result =
        load_text(kHeader +
                  "  - { native: 2013, commit: commit_outcome_unknown, category: "
                  "connection_lost, source: ref }\n"
                  "  - { native: 9001, connect: connection_failure, source: ref }\n");
    REQUIRE(result.diagnostics.empty());
    const auto& classifier = *result.classifier;
    CHECK(classifier.classify(record(Vendor::MySql, "", 2013, DatabasePhase::Commit)).category ==
          ErrorCategory::CommitOutcomeUnknown);
    CHECK(classifier.classify(record(Vendor::MySql, "", 2013, DatabasePhase::Execute)).category ==
          ErrorCategory::ConnectionLost);
    CHECK(classifier.classify(record(Vendor::MySql, "", 9001, DatabasePhase::Connect)).category ==
          ErrorCategory::ConnectionFailure);
    CHECK(classifier.classify(record(Vendor::MySql, "", 9001, DatabasePhase::Execute))
              .matched.empty());
}

TEST_CASE("native ranges load, and bad ones are reported with their positions",
          "[vendor_maps][native_range]") {
    SECTION("a range loads and classifies, an exact rule beating it") {
        const auto result = load_text(kHeader +
                                      "  - { native_range: [1200, 1299], category: lock_timeout, "
                                      "source: ref }\n"
                                      "  - { native: 1213, category: deadlock, source: ref }\n");
        REQUIRE(result.diagnostics.empty());
        REQUIRE(result.classifier != nullptr);
        CHECK(result.classifier->classify(record(Vendor::MySql, "HY000", 1205)).matched ==
              "native_range:mysql:1200-1299");
        CHECK(result.classifier->classify(record(Vendor::MySql, "HY000", 1213)).category ==
              ErrorCategory::Deadlock);
    }
    SECTION("reversed") {
        const auto d = only_diagnostic(
            "  - { native_range: [12999, 12150], category: connection_failure, source: ref }\n");
        CHECK(d.code == DiagnosticCode::InvalidValue);
        CHECK(d.position.line == 6);
        CHECK(d.position.column == 21);
        CHECK(d.field == "rules[0].native_range");
        CHECK(d.message == "native range [12999, 12150] ends below its first code");
        CHECK(d.suggestion == "write the lower code first: [12150, 12999]");
    }
    SECTION("a number beyond 64 bits") {
        const auto d = only_diagnostic(
            "  - { native_range: [1, 99999999999999999999], category: "
            "connection_failure, source: ref }\n");
        CHECK(d.code == DiagnosticCode::OutOfRange);
        CHECK(d.position.line == 6);
        CHECK(d.position.column == 25);
        CHECK(d.field == "rules[0].native_range[1]");
    }
    SECTION("not an integer") {
        const auto d = only_diagnostic(
            "  - { native_range: [12150, 12x], category: connection_failure, source: ref }\n");
        CHECK(d.code == DiagnosticCode::WrongType);
        CHECK(d.position.column == 29);
    }
    SECTION("not a list of two") {
        const auto d = only_diagnostic(
            "  - { native_range: [12150], category: connection_failure, source: ref }\n");
        CHECK(d.code == DiagnosticCode::WrongType);
        CHECK(d.position.column == 21);
        CHECK(only_diagnostic("  - { native_range: 12150, category: connection_failure, "
                              "source: ref }\n")
                  .code == DiagnosticCode::WrongType);
    }
    SECTION("given twice") {
        const auto d = only_diagnostic(
            "  - { native_range: [1200, 1299], category: lock_timeout, source: ref }\n"
            "  - { native_range: [1200, 1299], category: deadlock, source: ref }\n");
        CHECK(d.code == DiagnosticCode::DuplicateKey);
        CHECK(d.position.line == 7);
        CHECK(d.message.find("native_range [1200, 1299] is given twice (first at line 6") !=
              std::string::npos);
    }
    SECTION("equally wide and overlapping: neither is more specific") {
        const auto d = only_diagnostic(
            "  - { native_range: [1200, 1299], category: lock_timeout, source: ref }\n"
            "  - { native_range: [1250, 1349], category: deadlock, source: ref }\n");
        CHECK(d.code == DiagnosticCode::ConflictingFields);
        CHECK(d.position.line == 7);
        CHECK(d.position.column == 7);
        CHECK(d.field == "rules[1].native_range");
        CHECK(d.message ==
              "native range [1250, 1349] overlaps native range [1200, 1299] (line "
              "6, column 7) and is as wide: neither is more specific, so neither "
              "can win");
    }
    SECTION("a range with a native key too") {
        const auto d = only_diagnostic(
            "  - { native: 1213, native_range: [1200, 1299], category: "
            "deadlock, source: ref }\n");
        CHECK(d.code == DiagnosticCode::ConflictingFields);
    }
    SECTION("more ranges than the classifier tries one by one") {
        std::string rules;
        for (std::size_t i = 0; i <= rebound::SqlErrorClassifier::kMaxNativeRanges; ++i) {
            rules += "  - { native_range: [" + std::to_string(i * 10) + ", " +
                     std::to_string(i * 10 + 5) + "], category: deadlock, source: ref }\n";
        }
        const auto d = only_diagnostic(rules);
        CHECK(d.code == DiagnosticCode::LimitExceeded);
        CHECK(d.position.line == 6 + rebound::SqlErrorClassifier::kMaxNativeRanges);
    }
    SECTION("not in the generic map") {
        const auto result = load_text(
            "rebound_vendor_map: 1\nvendor: generic\nsources: { ref: r }\nrules:\n"
            "  - { native_range: [1, 2], category: deadlock, source: ref }\n");
        REQUIRE(result.diagnostics.size() == 1);
        CHECK(result.diagnostics[0].code == DiagnosticCode::InvalidValue);
        CHECK(result.diagnostics[0].position.line == 5);
    }
}

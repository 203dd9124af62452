// Native ranges of SqlErrorClassifier (docs/vendor-maps.md, How a record is classified): an exact
// native rule beats a range, a narrower range beats a wider one, a range that does not apply in
// the record's phase leaves the code to the next wider range, and ranges come before the
// vendor's SQLSTATE rules. Equally wide overlapping ranges, reversed ranges and too many ranges
// cannot build a classifier. Classifying with ranges allocates nothing.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include "allocation_counter.hpp"
#include "rebound/sql_error_classifier.hpp"
#include "sql_error_rules.hpp"

namespace {

using rebound::DatabasePhase;
using rebound::ErrorCategory;
using rebound::SqlErrorClassifier;
using rebound::SqlErrorRecord;
using rebound::SqlErrorRule;
using rebound::SqlRuleKey;
using rebound::Vendor;

SqlErrorRule exact(std::int64_t code, ErrorCategory category) {
    return rebound::testing::native_rule(Vendor::Oracle, code, category);
}

SqlErrorRule range(std::int64_t first, std::int64_t last, std::optional<ErrorCategory> category,
                   Vendor vendor = Vendor::Oracle) {
    return rebound::testing::native_range_rule(vendor, first, last, category);
}

SqlErrorRecord oracle(std::int64_t code, std::string_view sqlstate = "HY000",
                      DatabasePhase phase = DatabasePhase::Execute) {
    return rebound::testing::error_record(Vendor::Oracle, sqlstate, code, phase);
}

// exact 12154 inside a narrow range inside a wide one, listed wide first: the order of the
// rules must not matter.
SqlErrorClassifier nested() {
    const SqlErrorRule state = rebound::testing::state_rule(Vendor::Oracle, SqlRuleKey::SqlState,
                                                            "HY000", ErrorCategory::SystemError);
    SqlErrorRule commit_only = range(12500, 12549, std::nullopt);
    commit_only.set_category(DatabasePhase::Commit, ErrorCategory::CommitOutcomeUnknown);
    const std::vector<SqlErrorRule> rules{
        range(12000, 12999, ErrorCategory::ConnectionFailure),
        range(12100, 12199, ErrorCategory::ConnectionLost),
        exact(12154, ErrorCategory::ClientError),
        commit_only,
        state,
    };
    return SqlErrorClassifier(rules);
}

}  // namespace

TEST_CASE("an exact native rule beats a narrow range, which beats a wide one",
          "[sql_classifier][native_range]") {
    const SqlErrorClassifier classifier = nested();
    const auto exact_hit = classifier.classify(oracle(12154));
    CHECK(exact_hit.category == ErrorCategory::ClientError);
    CHECK(exact_hit.matched == "native:oracle:12154");
    const auto narrow = classifier.classify(oracle(12153));
    CHECK(narrow.category == ErrorCategory::ConnectionLost);
    CHECK(narrow.matched == "native_range:oracle:12100-12199");
    const auto wide = classifier.classify(oracle(12899));
    CHECK(wide.category == ErrorCategory::ConnectionFailure);
    CHECK(wide.matched == "native_range:oracle:12000-12999");
    // The ends of a range are inside it; one past them is not.
    CHECK(classifier.classify(oracle(12100)).matched == "native_range:oracle:12100-12199");
    CHECK(classifier.classify(oracle(12199)).matched == "native_range:oracle:12100-12199");
    CHECK(classifier.classify(oracle(12200)).matched == "native_range:oracle:12000-12999");
    // Outside every range: the vendor's SQLSTATE rule.
    CHECK(classifier.classify(oracle(13000)).matched == "sqlstate:oracle:HY000");
    CHECK(classifier.classify(oracle(11999)).category == ErrorCategory::SystemError);
    // Ranges rank between exact native codes and the vendor's SQLSTATEs.
    CHECK(exact_hit.specificity > narrow.specificity);
    CHECK(narrow.specificity == wide.specificity);
    CHECK(wide.specificity > classifier.classify(oracle(13000)).specificity);
}

TEST_CASE("a range without a category in the phase leaves the code to the next wider range",
          "[sql_classifier][native_range]") {
    const SqlErrorClassifier classifier = nested();
    CHECK(classifier.classify(oracle(12537, "HY000", DatabasePhase::Commit)).category ==
          ErrorCategory::CommitOutcomeUnknown);
    const auto executing = classifier.classify(oracle(12537, "HY000", DatabasePhase::Execute));
    CHECK(executing.category == ErrorCategory::ConnectionFailure);
    CHECK(executing.matched == "native_range:oracle:12000-12999");
    // Another vendor's ranges never apply.
    SqlErrorRecord mysql = oracle(12153);
    mysql.vendor = Vendor::MySql;
    CHECK(classifier.classify(mysql).matched.empty());
}

TEST_CASE("ranges at the ends of the 64-bit codes and negative ranges are found",
          "[sql_classifier][native_range]") {
    constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    const std::vector<SqlErrorRule> rules{
        range(kMin, kMax, ErrorCategory::SystemError, Vendor::Db2),
        range(-30108, -30000, ErrorCategory::ConnectionLost, Vendor::Db2),
    };
    const SqlErrorClassifier classifier(rules);
    SqlErrorRecord record;
    record.vendor = Vendor::Db2;
    record.native_code = -30081;
    CHECK(classifier.classify(record).category == ErrorCategory::ConnectionLost);
    record.native_code = kMin;
    CHECK(classifier.classify(record).category == ErrorCategory::SystemError);
    record.native_code = kMax;
    CHECK(classifier.classify(record).category == ErrorCategory::SystemError);
}

TEST_CASE("ranges that cannot be ranked, reversed or too many do not build a classifier",
          "[sql_classifier][native_range]") {
    const auto build = [](std::vector<SqlErrorRule> rules) { SqlErrorClassifier c(rules); };
    // Equally wide and overlapping: neither is more specific.
    CHECK_THROWS_AS(build({range(100, 199, ErrorCategory::SyntaxError),
                           range(150, 249, ErrorCategory::DataError)}),
                    std::invalid_argument);
    // Equally wide side by side, or of different widths overlapping, can be ranked.
    CHECK_NOTHROW(build(
        {range(100, 199, ErrorCategory::SyntaxError), range(200, 299, ErrorCategory::DataError)}));
    CHECK_NOTHROW(build(
        {range(100, 199, ErrorCategory::SyntaxError), range(150, 250, ErrorCategory::DataError)}));
    CHECK_THROWS_AS(build({range(100, 199, ErrorCategory::SyntaxError),
                           range(100, 199, ErrorCategory::SyntaxError)}),
                    std::invalid_argument);
    CHECK_THROWS_AS(build({range(199, 100, ErrorCategory::SyntaxError)}), std::invalid_argument);
    CHECK_THROWS_AS(build({range(100, 199, std::nullopt)}), std::invalid_argument);
    std::vector<SqlErrorRule> many;
    for (std::int64_t i = 0; i <= static_cast<std::int64_t>(SqlErrorClassifier::kMaxNativeRanges);
         ++i) {
        many.push_back(range(i * 10, i * 10 + 1, ErrorCategory::SyntaxError));
    }
    CHECK_THROWS_AS(build(many), std::invalid_argument);
    many.pop_back();
    CHECK_NOTHROW(build(many));
}

TEST_CASE("classifying with ranges does not allocate", "[sql_classifier][native_range]") {
    const SqlErrorClassifier classifier = nested();
    const SqlErrorRecord records[] = {oracle(12153), oracle(12537), oracle(13000),
                                      oracle(12537, "HY000", DatabasePhase::Commit)};
    const std::size_t before = rebound::testing::allocations_on_this_thread();
    ErrorCategory categories[4]{};
    for (std::size_t i = 0; i < 4; ++i) {
        categories[i] = classifier.classify(records[i]).category;
    }
    const std::size_t after = rebound::testing::allocations_on_this_thread();
    CHECK(after == before);
    CHECK(categories[0] == ErrorCategory::ConnectionLost);
    CHECK(categories[1] == ErrorCategory::ConnectionFailure);
    CHECK(categories[2] == ErrorCategory::SystemError);
    CHECK(categories[3] == ErrorCategory::CommitOutcomeUnknown);
}

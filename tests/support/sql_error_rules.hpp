// Builders of SqlErrorClassifier rules and records for the classifier's tests.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "rebound/sql_error_classifier.hpp"

namespace rebound::testing {

// An exact native-code rule of `vendor`.
inline SqlErrorRule native_rule(Vendor vendor, std::int64_t code, ErrorCategory category) {
    SqlErrorRule rule;
    rule.vendor = vendor;
    rule.key = SqlRuleKey::NativeCode;
    rule.native_code = code;
    rule.set_category(category);
    return rule;
}

// A native range [first, last] of `vendor`, with a category for every phase or none (the test
// then sets one per phase).
inline SqlErrorRule native_range_rule(Vendor vendor, std::int64_t first, std::int64_t last,
                                      std::optional<ErrorCategory> category) {
    SqlErrorRule rule;
    rule.vendor = vendor;
    rule.key = SqlRuleKey::NativeRange;
    rule.native_code = first;
    rule.native_last = last;
    if (category) {
        rule.set_category(*category);
    }
    return rule;
}

// A SQLSTATE (`key` SqlState) or SQLSTATE class (`key` SqlStateClass) rule of `vendor`.
inline SqlErrorRule state_rule(Vendor vendor, SqlRuleKey key, std::string_view sqlstate,
                               ErrorCategory category) {
    SqlErrorRule rule;
    rule.vendor = vendor;
    rule.key = key;
    rule.sqlstate = sqlstate;
    rule.set_category(category);
    return rule;
}

// One diagnostic record as a driver reports it.
inline SqlErrorRecord error_record(std::optional<Vendor> vendor, std::string_view sqlstate,
                                   std::optional<std::int64_t> native = std::nullopt,
                                   DatabasePhase phase = DatabasePhase::Execute) {
    SqlErrorRecord record;
    record.vendor = vendor;
    record.sqlstate = sqlstate;
    record.native_code = native;
    record.phase = phase;
    return record;
}

}  // namespace rebound::testing

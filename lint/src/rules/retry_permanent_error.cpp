// RB303 retry-permanent-error: retry_on names errors that never heal by retrying: constraint
// violations, bad SQL, missing permissions, refused logins, bad data, internal failures of the
// database (corruption) and misuse of the driver; by category or by SQLSTATE
// class (ISO/IEC 9075 classes 22, 23, 28, 42, 0A, 44, and PostgreSQL's XX, whose XX001 and XX002
// report corrupted data and indexes).
#include <array>
#include <cctype>
#include <utility>

#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

constexpr std::array<ErrorCategory, 7> kPermanentCategories{
    ErrorCategory::ConstraintViolation, ErrorCategory::SyntaxError,
    ErrorCategory::PermissionDenied,    ErrorCategory::AuthenticationFailed,
    ErrorCategory::DataError,           ErrorCategory::SystemError,
    ErrorCategory::ClientError};

constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kPermanentClasses{{
    {"0A", "feature not supported"},
    {"22", "data exception"},
    {"23", "integrity constraint violation"},
    {"28", "invalid authorization specification"},
    {"42", "syntax error or access rule violation"},
    {"44", "with check option violation"},
    {"XX", "internal error: corrupted data or index"},
}};

// The class description when `m` names a permanent SQLSTATE or class, else empty.
std::string_view permanent_class(const Matcher& m) {
    if ((m.kind != MatcherKind::SqlState && m.kind != MatcherKind::SqlStateClass) ||
        m.text.size() < 2) {
        return {};
    }
    const auto upper = [](char c) {
        return static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    };
    for (const auto& [code_class, description] : kPermanentClasses) {
        if (upper(m.text[0]) == code_class[0] && upper(m.text[1]) == code_class[1]) {
            return description;
        }
    }
    return {};
}

bool permanent_category(const Matcher& m) {
    if (m.kind != MatcherKind::Category) {
        return false;
    }
    for (const ErrorCategory category : kPermanentCategories) {
        if (m.category == category) {
            return true;
        }
    }
    return false;
}

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (spec.max_attempts < 2) {
            continue;
        }
        const std::string retries =
            count_of(static_cast<std::size_t>(spec.max_attempts - 1), "retry", "retries");
        for (const LocatedMatcher& entry : retry_on_entries(p)) {
            const Matcher& m = *entry.matcher;
            std::string what;
            if (permanent_category(m)) {
                what = describe(m);
            } else if (const std::string_view description = permanent_class(m);
                       !description.empty()) {
                what = describe(m) + " (" + std::string(description) + ")";
            } else {
                continue;
            }
            if (excluded(p, m)) {
                continue;  // never_retry_on wins: RB311 reports the dead entry
            }
            reporter.report(entry.position,
                            "policy '" + p.name() + "' retries " + what +
                                ", an error that does not heal: its " + retries +
                                " fail the same way and only add latency and load",
                            "move it to never_retry_on");
        }
    }
}

}  // namespace

const Rule kRetryPermanentError{
    RuleInfo{"RB303", "retry-permanent-error", Severity::Warning, RuleOrigin::Semantic,
             "retry_on names errors that never heal: constraints, syntax, permissions, logins, "
             "bad data, corruption, driver misuse",
             "A constraint violation, a syntax error, a missing permission, a refused login, bad "
             "data, a database's internal failure (corrupted data or index) or a misused driver "
             "fails again on every retry. Retrying them only delays the error the caller has to "
             "see. Exclude them with never_retry_on instead."},
    check};

}  // namespace rebound::lint::rules

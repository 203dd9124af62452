// RB304 retry-statement-timeout: retry_on names statement timeouts at the data layer, or gRPC's
// DEADLINE_EXCEEDED, which docs/protocols.md classifies as one. A query that ran past its limit
// usually does so again, and every retry runs it on the database again; a call past its deadline
// may have done its work, and a retry sends it again.
#include <array>
#include <utility>

#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

// Native codes that mean "the statement ran past its time limit".
constexpr std::array<std::pair<Vendor, std::int64_t>, 2> kTimeoutNativeCodes{{
    {Vendor::MySql, 1969},  // MariaDB ER_STATEMENT_TIMEOUT (max_statement_time)
    {Vendor::MySql, 3024},  // MySQL ER_QUERY_TIMEOUT (max_execution_time)
}};

bool is_statement_timeout(const Matcher& m) {
    switch (m.kind) {
        case MatcherKind::Category:
            return m.category == ErrorCategory::StatementTimeout;
        case MatcherKind::SqlState:
            // 57014 query_canceled (PostgreSQL statement_timeout); HYT00 timeout expired (ODBC).
            return m.text == "57014" || equals_ignoring_case(m.text, "HYT00");
        case MatcherKind::VendorNative:
            for (const auto& [vendor, code] : kTimeoutNativeCodes) {
                if (m.vendor == vendor && m.native_code == code) {
                    return true;
                }
            }
            return false;
        case MatcherKind::GrpcStatus:
            return m.grpc == GrpcStatus::DeadlineExceeded;
        default:
            return false;
    }
}

// The finding for a gRPC matcher: a call, not a statement, and the deadline is the caller's.
void report_grpc(const ResolvedPolicy& p, const LocatedMatcher& entry, std::size_t retries,
                 RuleReporter& reporter) {
    reporter.report(entry.position,
                    "policy '" + p.name() + "' retries calls that ran past their deadline (" +
                        describe(*entry.matcher) +
                        "): the server may have done the work, a call that was too slow will "
                        "most likely be so again, and each of its " +
                        count_of(retries, "retry", "retries") + " sends the call again",
                    "give the whole call one deadline that covers every attempt (deadline and "
                    "attempt_timeout), and do not retry DEADLINE_EXCEEDED");
}

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (spec.max_attempts < 2) {
            continue;
        }
        const auto retries = static_cast<std::size_t>(spec.max_attempts - 1);
        for (const LocatedMatcher& entry : retry_on_entries(p)) {
            if (!is_statement_timeout(*entry.matcher) || excluded(p, *entry.matcher)) {
                continue;
            }
            if (entry.matcher->kind == MatcherKind::GrpcStatus) {
                report_grpc(p, entry, retries, reporter);
                continue;
            }
            std::string load = "each of its " + count_of(retries, "retry", "retries") +
                               " runs the statement on the database again";
            if (spec.attempt_timeout) {
                const Duration total = *spec.attempt_timeout * spec.max_attempts;
                load += " (up to " + std::to_string(spec.max_attempts) + " x attempt_timeout " +
                        duration_text(*spec.attempt_timeout) + " = " + duration_text(total) +
                        " of database time per call)";
            }
            reporter.report(entry.position,
                            "policy '" + p.name() + "' retries statement timeouts (" +
                                describe(*entry.matcher) +
                                "): a statement that ran past its limit will most likely do so "
                                "again, and " +
                                load,
                            "fix the query or its limit; retry timeouts only in a bounded "
                            "background policy");
        }
    }
}

}  // namespace

const Rule kRetryStatementTimeout{
    RuleInfo{"RB304", "retry-statement-timeout", Severity::Warning, RuleOrigin::Semantic,
             "retry_on names statement timeouts at the data layer, or gRPC DEADLINE_EXCEEDED",
             "A statement that timed out is slow for a reason (a missing index, a large scan, "
             "lock waits) that a retry does not remove. Each retry runs it again and adds load "
             "to a database that is already struggling; the statement may also have done part "
             "of its work."},
    check};

}  // namespace rebound::lint::rules

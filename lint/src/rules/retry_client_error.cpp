// RB327 retry-client-error: retry_on names HTTP client errors: the class 4xx, or a 4xx status
// other than 408 (request timeout), 425 (too early) and 429 (too many requests). A 4xx says the
// request itself is wrong (bad input, missing credentials, unknown resource, a conflict), so it
// fails the same way every time; the three exceptions say "later" and heal by waiting.
#include <array>

#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

// The 4xx statuses that ask the client to try again later (RFC 9110, RFC 8470, RFC 6585).
constexpr std::array<int, 3> kRetryable4xx{408, 425, 429};

bool retryable_4xx(int status) {
    for (const int code : kRetryable4xx) {
        if (status == code) {
            return true;
        }
    }
    return false;
}

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        if (p.spec().max_attempts < 2) {
            continue;
        }
        for (const LocatedMatcher& entry : retry_on_entries(p)) {
            const Matcher& m = *entry.matcher;
            std::string what;
            if (m.kind == MatcherKind::HttpClass && m.http == 4) {
                what =
                    "every HTTP 4xx status, and apart from 408, 425 and 429 those are client "
                    "errors";
            } else if (m.kind == MatcherKind::HttpStatus && m.http >= 400 && m.http <= 499 &&
                       !retryable_4xx(m.http)) {
                what = "HTTP " + std::to_string(m.http) + ", a client error";
            } else {
                continue;
            }
            if (excluded(p, m)) {
                continue;  // RB311 reports the dead entry
            }
            reporter.report(entry.position,
                            "policy '" + p.name() + "' retries " + what +
                                ": the request itself is wrong (bad input, credentials, an "
                                "unknown resource, a conflict), so every retry fails the same "
                                "way",
                            "retry 408, 425 and 429 by name; move other 4xx statuses to "
                            "never_retry_on");
        }
    }
}

}  // namespace

const Rule kRetryClientError{
    RuleInfo{"RB327", "retry-client-error", Severity::Warning, RuleOrigin::Semantic,
             "retry_on names HTTP 4xx client errors other than 408, 425 and 429",
             "A 4xx status says the request is at fault: malformed, unauthorised, aimed at "
             "something that does not exist, or in conflict with the resource. Sending it again "
             "gives the same answer. Only 408 (request timeout), 425 (too early) and 429 (too "
             "many requests) ask the client to come back later."},
    check};

}  // namespace rebound::lint::rules

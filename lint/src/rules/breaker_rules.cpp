// The rules about circuit breakers and server delay hints (docs/resilience.md):
//   RB333 breaker-flaps-at-low-traffic, RB334 half-open-beyond-minimum-calls,
//   RB335 hints-ignored-when-throttled, RB336 breaker-open-past-deadlines, RB337 unused-breaker.
#include <algorithm>

#include "rebound/dsl/compile.hpp"
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

// Below this many calls a ratio opens on a handful of failures: two failures of three calls
// open a breaker at 0.5 during a quiet minute.
constexpr int kFewestSteadyCalls = 5;

// The breakers the file declares, with their settings (defaults filled in) and their nodes.
struct DeclaredBreaker {
    const dsl::BreakerNode* node = nullptr;
    BreakerSettings settings;
};

std::vector<DeclaredBreaker> declared_breakers(const PolicyFileContext& file) {
    const std::vector<BreakerSettings> settings = dsl::resolve_breakers(file.document());
    std::vector<DeclaredBreaker> all;
    for (std::size_t i = 0; i < settings.size(); ++i) {
        all.push_back({&file.document().breakers[i], settings[i]});
    }
    return all;
}

std::vector<const ResolvedPolicy*> policies_using(const PolicyFileContext& file,
                                                  std::string_view breaker) {
    std::vector<const ResolvedPolicy*> users;
    for (const ResolvedPolicy& p : file.policies()) {
        if (p.spec().breaker == breaker) {
            users.push_back(&p);
        }
    }
    return users;
}

void check_flapping(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const DeclaredBreaker& b : declared_breakers(file)) {
        const BreakerSettings& s = b.settings;
        if (s.trip != BreakerTrip::Ratio || s.minimum_calls >= kFewestSteadyCalls) {
            continue;
        }
        reporter.report(
            position_or(b.node->minimum_calls, b.node->position),
            "breaker '" + s.name + "' opens on a ratio of only " +
                count_of(static_cast<std::size_t>(s.minimum_calls), "call", "calls") +
                ": at low traffic a couple of failures open it, and it flaps open and closed",
            "count at least " + std::to_string(kFewestSteadyCalls) +
                " calls (20 is usual), or trip after N consecutive failures");
    }
}

void check_half_open(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const DeclaredBreaker& b : declared_breakers(file)) {
        const BreakerSettings& s = b.settings;
        if (s.trip != BreakerTrip::Ratio || s.half_open_calls <= s.minimum_calls) {
            continue;
        }
        reporter.report(position_or(b.node->half_open_calls, b.node->position),
                        "breaker '" + s.name + "' lets " + std::to_string(s.half_open_calls) +
                            " probes through while half-open, more than the " +
                            std::to_string(s.minimum_calls) +
                            " calls that open it: recovering sends more load than tripping "
                            "needed",
                        "set half_open_calls at or below minimum_calls (1 to 3 is usual)");
    }
}

// Whether `p` retries errors of a throttling server: resource_exhausted (by name or as
// transient) or HTTP 429 (by status or as 4xx).
bool retries_throttling(const ResolvedPolicy& p) {
    if (p.spec().max_attempts < 2) {
        return false;
    }
    return std::any_of(p.spec().retry_on.begin(), p.spec().retry_on.end(), [&p](const Matcher& m) {
        const bool throttling =
            (m.kind == MatcherKind::Category && m.category == ErrorCategory::ResourceExhausted) ||
            m.kind == MatcherKind::TransientGroup ||
            (m.kind == MatcherKind::HttpStatus && m.http == 429) ||
            (m.kind == MatcherKind::HttpClass && m.http == 4);
        return throttling && !excluded(p, m);
    });
}

void check_hints_ignored(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        if (p.spec().server_delay.use != ServerDelayUse::Ignore || !retries_throttling(p)) {
            continue;
        }
        SourcePosition position = p.name_position();
        if (p.fields.server_delay) {
            position = position_or(p.fields.server_delay->use, p.fields.server_delay->position);
        }
        reporter.report(position,
                        "policy '" + p.name() +
                            "' retries throttling errors (resource_exhausted, HTTP 429) but "
                            "ignores the server's Retry-After: it comes back on its own schedule "
                            "and keeps hammering a server that asked it to wait",
                        "use server_delay: { use: max, cap: 30s } so a hint longer than the "
                        "backoff delay is honoured, up to the cap");
    }
}

void check_open_past_deadlines(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const DeclaredBreaker& b : declared_breakers(file)) {
        const std::vector<const ResolvedPolicy*> users = policies_using(file, b.settings.name);
        if (users.empty()) {
            continue;
        }
        const bool past_every_deadline =
            std::all_of(users.begin(), users.end(), [&b](const ResolvedPolicy* p) {
                return p->spec().deadline && b.settings.open_for > *p->spec().deadline;
            });
        if (!past_every_deadline) {
            continue;
        }
        reporter.report(position_or(b.node->open_for, b.node->position),
                        "breaker '" + b.settings.name + "' stays open for " +
                            format_duration(b.settings.open_for) +
                            ", longer than the deadline of every policy that uses it: while it "
                            "is open every call fails at once instead of waiting for it",
                        "fine for fail-fast callers; otherwise shorten open_for or give a "
                        "background policy a deadline long enough to wait for the probe");
    }
}

void check_unused(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const DeclaredBreaker& b : declared_breakers(file)) {
        if (policies_using(file, b.settings.name).empty()) {
            reporter.report(
                b.node->position,
                "breaker '" + b.settings.name +
                    "' is declared but no policy names it: it guards nothing",
                "name it in a policy with breaker: " + b.settings.name + ", or remove it");
        }
    }
}

}  // namespace

const Rule kBreakerFlapsAtLowTraffic{
    RuleInfo{"RB333", "breaker-flaps-at-low-traffic", Severity::Warning, RuleOrigin::Semantic,
             "a ratio breaker with minimum_calls below 5",
             "A ratio breaker judges the dependency once minimum_calls calls are in its window. "
             "With fewer than 5, two failures among three quiet-hour calls open it: it flaps "
             "between open and closed at low traffic and refuses calls a healthy dependency "
             "would have served."},
    check_flapping};

const Rule kHalfOpenBeyondMinimumCalls{
    RuleInfo{"RB334", "half-open-beyond-minimum-calls", Severity::Warning, RuleOrigin::Semantic,
             "a breaker whose half_open_calls exceed its minimum_calls",
             "Half-open probes test a dependency that just failed. Letting more probes through "
             "than the calls it took to open the breaker sends a recovering dependency more load "
             "than tripping needed, which is how a half-open breaker knocks it over again."},
    check_half_open};

const Rule kHintsIgnoredWhenThrottled{
    RuleInfo{"RB335", "hints-ignored-when-throttled", Severity::Warning, RuleOrigin::Semantic,
             "a policy that retries resource_exhausted or HTTP 429 with server_delay use: ignore",
             "A throttling server says when to come back (Retry-After, gRPC pushback). A policy "
             "that retries its errors but ignores the hint retries on its own schedule, sooner "
             "than asked, and keeps the server overloaded."},
    check_hints_ignored};

const Rule kBreakerOpenPastDeadlines{
    RuleInfo{"RB336", "breaker-open-past-deadlines", Severity::Note, RuleOrigin::Semantic,
             "a breaker whose open_for is longer than the deadline of every policy using it",
             "A refusal carries the time until the breaker half-opens. When that is longer than "
             "every caller's deadline, every refusal ends the run at once: the callers fail fast "
             "and none ever waits for the probe. That can be intended."},
    check_open_past_deadlines};

const Rule kUnusedBreaker{
    RuleInfo{"RB337", "unused-breaker", Severity::Warning, RuleOrigin::Semantic,
             "a breaker declared under breakers: that no policy names",
             "A breaker guards nothing until a policy names it. A declared, unused breaker is "
             "usually a typo in a policy's breaker name or a leftover of a refactoring, and the "
             "dependency it was meant to protect is unprotected."},
    check_unused};

}  // namespace rebound::lint::rules

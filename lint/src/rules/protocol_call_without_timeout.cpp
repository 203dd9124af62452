// RB341 protocol-call-without-timeout: a policy whose retry_on or never_retry_on names an HTTP or
// gRPC status has neither a deadline nor an attempt_timeout. A policy file does not say what a
// handler does, but such matchers only ever match the failures of HTTP and gRPC calls, so the
// policy's handlers make them; and nothing in the policy then limits how long one waits for a
// server that accepts a call and never answers.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

bool names_protocol_status(const Matcher& m) {
    return m.kind == MatcherKind::HttpStatus || m.kind == MatcherKind::HttpClass ||
           m.kind == MatcherKind::GrpcStatus;
}

// The first retry_on, else never_retry_on, entry that names an HTTP or gRPC status.
std::optional<LocatedMatcher> first_protocol_entry(const ResolvedPolicy& p) {
    for (const auto& entries : {retry_on_entries(p), never_retry_on_entries(p)}) {
        for (const LocatedMatcher& entry : entries) {
            if (names_protocol_status(*entry.matcher)) {
                return entry;
            }
        }
    }
    return std::nullopt;
}

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (spec.deadline || spec.attempt_timeout) {
            continue;
        }
        const std::optional<LocatedMatcher> entry = first_protocol_entry(p);
        if (!entry) {
            continue;
        }
        reporter.report(entry->position,
                        "policy '" + p.name() + "' matches " + describe(*entry->matcher) +
                            ", so its handlers make HTTP or gRPC calls, but it has neither "
                            "deadline nor attempt_timeout: nothing it says limits the wait for a "
                            "server that accepts a call and never answers (Rebound's HTTP and "
                            "gRPC clients fall back on their default_timeout of 60s per attempt; "
                            "other clients wait for ever)",
                        "set an attempt_timeout (and a deadline) to what the caller can wait");
    }
}

}  // namespace

const Rule kProtocolCallWithoutTimeout{
    RuleInfo{"RB341", "protocol-call-without-timeout", Severity::Warning, RuleOrigin::Semantic,
             "a policy for HTTP or gRPC calls has neither deadline nor attempt_timeout",
             "HTTP and gRPC clients wait for an answer as long as they are allowed to. A server "
             "that accepts a call and never answers (a stuck worker, a half-open connection, a "
             "proxy that lost the upstream) holds the caller for ever unless something limits "
             "the call. A policy that matches HTTP or gRPC statuses is used for such calls; its "
             "attempt_timeout bounds each attempt and its deadline the whole run."},
    check};

}  // namespace rebound::lint::rules

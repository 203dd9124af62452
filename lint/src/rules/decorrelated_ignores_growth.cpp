// RB331 decorrelated-ignores-growth: `jitter: decorrelated` draws each delay from [initial,
// 3 * previous delay], capped at max (docs/policy-format.md, Jitter): it uses the backoff's
// initial and max only. A multiplier or increment written for the backoff never applies, and
// the growth the reader expects (x1.5, +2s) is not the one that happens (up to x3 at random).
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (spec.jitter.type != JitterType::Decorrelated || !p.fields.backoff ||
            reachable_retries(retry_schedule(spec)) < 2) {
            continue;  // a single retry waits `initial` whatever the growth
        }
        const dsl::BackoffNode& backoff = *p.fields.backoff;
        const bool linear = spec.backoff.type == BackoffType::Linear;
        if (linear ? !backoff.increment : !backoff.multiplier) {
            continue;  // the built-in multiplier, not written in the file
        }
        const std::string growth = linear ? "increment " + duration_text(spec.backoff.increment)
                                          : "multiplier " + number_text(spec.backoff.multiplier);
        const SourcePosition position =
            linear ? backoff.increment->position : backoff.multiplier->position;
        reporter.report(position,
                        "the " + growth + " of policy '" + p.name() +
                            "' never applies: jitter decorrelated draws each delay between "
                            "initial " +
                            duration_text(spec.backoff.initial) +
                            " and 3 times the previous "
                            "delay, capped at max " +
                            duration_text(spec.backoff.max) + ", and ignores how the backoff grows",
                        "remove the " + std::string(linear ? "increment" : "multiplier") +
                            " and write backoff: { type: exponential, initial: " +
                            duration_text(spec.backoff.initial) +
                            ", max: " + duration_text(spec.backoff.max) +
                            " }, or use jitter: full to keep the growth");
    }
}

}  // namespace

const Rule kDecorrelatedIgnoresGrowth{
    RuleInfo{"RB331", "decorrelated-ignores-growth", Severity::Warning, RuleOrigin::Semantic,
             "a multiplier or increment that decorrelated jitter ignores",
             "Decorrelated jitter computes each delay from the previous one (between initial and "
             "three times the previous delay, capped at max); only the backoff's initial and max "
             "take part. A multiplier or increment written next to it is configuration that "
             "cannot take effect, and whoever tunes it later changes nothing."},
    check};

}  // namespace rebound::lint::rules

// The rules about hedged attempts (docs/hedging.md, "Lint rules"):
//   RB342 hedge-not-idempotent, RB343 hedge-after-timeout, RB344 hedge-after-deadline,
//   RB345 hedge-unbounded-load, RB346 hedge-many-attempts.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

// gRPC caps hedged attempts at 5 (gRFC A6).
constexpr int kMostHedgedAttempts = 5;
// Above this share of extra load a slow dependency gets much more work exactly when it is slow.
constexpr double kMostExtraLoad = 0.5;

// The position of the hedge's delay (the fixed duration, or the learned delay's text), else of
// the hedge, else of the policy.
SourcePosition delay_position(const ResolvedPolicy& p) {
    if (!p.fields.hedge) {
        return p.name_position();
    }
    const dsl::HedgeNode& node = *p.fields.hedge;
    if (node.delay) {
        return node.delay->position;
    }
    return node.learned_position.known() ? node.learned_position : node.position;
}

// The earliest a timed hedge can start after the first attempt: the fixed delay, or a learned
// delay's min; and the latest the first hedge can wait: the fixed delay or the learned max.
Duration earliest_delay(const HedgeSettings& h) {
    return h.fixed_delay ? *h.fixed_delay : h.learned->min;
}
Duration latest_delay(const HedgeSettings& h) {
    return h.fixed_delay ? *h.fixed_delay : h.learned->max;
}

std::string delay_words(const HedgeSettings& h) {
    return h.fixed_delay ? "the hedge delay " + duration_text(*h.fixed_delay)
                         : "the learned hedge delay's max " + duration_text(h.learned->max);
}

// A hedging policy bound to a handler declared `idempotent: false` (an error), or by a binding
// that does not say (a warning): hedges run the work twice at once.
void check_not_idempotent(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        if (!p.spec().hedge) {
            continue;
        }
        for (const dsl::HandlerNode& handler : file.document().handlers) {
            if (handler.policy.value != p.name() ||
                (handler.idempotent && handler.idempotent->value)) {
                continue;
            }
            const bool declared_not = handler.idempotent.has_value();
            const std::string who = "handler '" + handler.key.value + "'";
            reporter.report(
                declared_not ? handler.idempotent->position : handler.key.position,
                who +
                    (declared_not ? " is declared not idempotent"
                                  : " does not say it is idempotent") +
                    ", but its policy '" + p.name() +
                    "' hedges: a hedge runs the work again while the first attempt may still "
                    "run, so it may happen twice",
                declared_not ? "bind it to a policy without a hedge; a run of such a handler "
                               "starts no timed hedge"
                             : "state idempotent: true if running it twice at once is safe",
                declared_not ? Severity::Error : Severity::Warning);
        }
        const auto& fallback = file.document().default_policy;
        if (fallback && fallback->value == p.name()) {
            reporter.report(fallback->position,
                            "the default policy '" + p.name() +
                                "' hedges, and the handlers it applies to do not say they are "
                                "idempotent: a hedge may run their work twice",
                            "bind idempotent handlers to a hedging policy one by one");
        }
    }
}

void check_after_timeout(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (!spec.hedge || !spec.attempt_timeout ||
            latest_delay(*spec.hedge) < *spec.attempt_timeout) {
            continue;
        }
        reporter.report(delay_position(p),
                        delay_words(*spec.hedge) + " of policy '" + p.name() +
                            "' is not below its attempt_timeout " +
                            duration_text(*spec.attempt_timeout) +
                            ": the first attempt times out before a hedge can start",
                        "hedge well before the timeout, near the latency the calls normally take");
    }
}

void check_after_deadline(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (!spec.hedge || !spec.deadline || earliest_delay(*spec.hedge) < *spec.deadline) {
            continue;
        }
        reporter.report(delay_position(p),
                        "the first hedge of policy '" + p.name() + "' is due at " +
                            duration_text(earliest_delay(*spec.hedge)) +
                            " or later, not before its deadline " + duration_text(*spec.deadline) +
                            ": no hedge ever starts",
                        "hedge well before the deadline, or remove the hedge");
    }
}

void check_unbounded_load(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (!spec.hedge || spec.hedge->max_extra_load <= kMostExtraLoad) {
            continue;
        }
        const dsl::HedgeNode* node = p.fields.hedge ? &*p.fields.hedge : nullptr;
        reporter.report(
            node != nullptr ? position_or(node->max_extra_load, node->position) : p.name_position(),
            "policy '" + p.name() + "' lets hedges add up to " +
                number_text(spec.hedge->max_extra_load * 100.0) +
                "% more calls: a slow dependency gets that much more load exactly when it is "
                "slow",
            "keep max_extra_load at a few percent (the default is 5%)");
    }
}

void check_many_attempts(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (!spec.hedge || spec.max_attempts <= kMostHedgedAttempts) {
            continue;
        }
        reporter.report(attempts_position(p),
                        "policy '" + p.name() + "' hedges with " +
                            std::to_string(spec.max_attempts) +
                            " attempts: each is another copy of the same call in flight at once "
                            "(gRPC caps hedged attempts at 5)",
                        "hedge with at most 5 attempts; 2 or 3 usually take the tail");
    }
}

}  // namespace

const Rule kHedgeNotIdempotent{
    RuleInfo{"RB342", "hedge-not-idempotent", Severity::Warning, RuleOrigin::Semantic,
             "a hedging policy bound to a handler that is not declared idempotent",
             "A hedge is a second copy of the call while the first may still run: work that is "
             "not idempotent may happen twice. An error when the binding says idempotent: false, "
             "a warning when it does not say."},
    check_not_idempotent};

const Rule kHedgeAfterTimeout{
    RuleInfo{"RB343", "hedge-after-timeout", Severity::Warning, RuleOrigin::Semantic,
             "the hedge delay is not below attempt_timeout",
             "With a delay (or a learned delay's max) at or above attempt_timeout, the first "
             "attempt times out before any hedge starts: the hedge never helps the tail."},
    check_after_timeout};

const Rule kHedgeAfterDeadline{
    RuleInfo{"RB344", "hedge-after-deadline", Severity::Warning, RuleOrigin::Semantic,
             "the first hedge is due at or after the deadline",
             "A hedge due after the deadline never starts; the policy only pays for its tokens "
             "and its configuration."},
    check_after_deadline};

const Rule kHedgeUnboundedLoad{
    RuleInfo{"RB345", "hedge-unbounded-load", Severity::Warning, RuleOrigin::Semantic,
             "max_extra_load above 50%",
             "Hedges start when calls are slow; a slow dependency then gets up to max_extra_load "
             "more calls exactly when it can least take them. A few percent takes most of the "
             "tail."},
    check_unbounded_load};

const Rule kHedgeManyAttempts{
    RuleInfo{"RB346", "hedge-many-attempts", Severity::Warning, RuleOrigin::Semantic,
             "max_attempts above 5 with hedging",
             "Every hedged attempt is one more copy of the call in flight at once; gRPC caps "
             "them at 5, and 2 or 3 usually take the tail."},
    check_many_attempts};

}  // namespace rebound::lint::rules

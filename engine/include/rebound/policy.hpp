// Policy: one compiled, immutable retry policy.
//
// A Policy only comes out of `Policy::create` (or PolicyBuilder), which runs validate_policy and
// refuses invalid data, so every Policy object is valid. It is shared as
// std::shared_ptr<const Policy>; all member functions are safe to call from many threads. The one
// piece of shared mutable state, the retry budget, is internally synchronised without locks.
//
// Compilation precomputes what the decision needs: matcher tables, the base delay of every retry,
// and the wire text of every rule, so that `decide()` never allocates.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/circuit_breaker.hpp"
#include "rebound/error_type_registry.hpp"
#include "rebound/hedge_tokens.hpp"
#include "rebound/internal/rule_index.hpp"
#include "rebound/jitter.hpp"
#include "rebound/policy_spec.hpp"
#include "rebound/policy_validation.hpp"
#include "rebound/random_source.hpp"
#include "rebound/retry_budget.hpp"
#include "rebound/retry_predicate.hpp"

namespace rebound {

class ResilienceRegistry;
struct AttemptContext;
struct Decision;

// Circuit breakers by name, as a service file declares them (`breakers:`).
using BreakerDirectory = std::map<std::string, std::shared_ptr<CircuitBreaker>, std::less<>>;

// What a policy is compiled against. All optional; the pointers must outlive only the call.
struct PolicyCompileOptions {
    const ErrorTypeRegistry* error_types = nullptr;
    // When given, unknown `retry_if` names are errors; when absent they never match.
    const PredicateRegistry* predicates = nullptr;
    // The breakers a policy's `breaker` name refers to; a name not found is a problem.
    const BreakerDirectory* breakers = nullptr;
    // The budget to use when the policy has one, instead of a new full one: the budget of the
    // same (service, policy) before a reload, so that its state survives (docs/resilience.md).
    std::shared_ptr<RetryBudget> budget;
    // The hedge tokens to use when the policy hedges, instead of new full ones: those of the same
    // (service, policy) before a reload (ResilienceRegistry::hedge_tokens).
    std::shared_ptr<HedgeTokens> hedge_tokens;
    // For compiling whole files (rebound::dsl::compile): where the budgets and breakers of
    // (service, name) live across reloads. Null: every compile makes fresh ones.
    ResilienceRegistry* resilience = nullptr;
};

class Policy;

// The outcome of Policy::create: a policy, or every problem that prevented one.
struct PolicyResult {
    std::shared_ptr<const Policy> policy;  // null when `problems` is non-empty
    FieldProblems problems;
    explicit operator bool() const noexcept { return policy != nullptr; }
};

// Thrown by PolicyBuilder::build with every problem in the message, one per line.
class InvalidPolicyError : public std::invalid_argument {
  public:
    InvalidPolicyError(const std::string& policy_name, FieldProblems problems);
    const FieldProblems& problems() const noexcept { return problems_; }

  private:
    FieldProblems problems_;
};

class Policy {
  public:
    // Validates and compiles `spec`. Never throws for invalid data (std::bad_alloc aside).
    static PolicyResult create(PolicySpec spec, const PolicyCompileOptions& options = {});

    Policy(const Policy&) = delete;
    Policy& operator=(const Policy&) = delete;

    const PolicySpec& spec() const noexcept { return spec_; }
    const std::string& name() const noexcept { return spec_.name; }
    int max_attempts() const noexcept { return spec_.max_attempts; }

    // Base delay before retry k (1 <= k < max_attempts), precomputed; out-of-range k is clamped.
    Duration base_delay(int k) const noexcept { return retries_[retry_slot(k)].base; }

    // The jittered delay before retry k (docs/policy-format.md, Backoff then Jitter): a draw from
    // the precomputed interval of retry k, clamped to the backoff's max. `previous` is the delay
    // before the attempt that failed (decorrelated jitter only). Equals
    // jittered_delay(spec().jitter, spec().backoff, base_delay(k), previous, random).
    Duration retry_delay(int k, Duration previous, RandomSource& random) const noexcept {
        return draw_delay(retries_[retry_slot(k)], previous, random);
    }

    // Both rule lists, compiled (decide() steps 1 and 4).
    const RuleIndex& rules() const noexcept { return rules_; }
    // Whether step 4 applies: retry_on or retry_if is non-empty.
    bool has_include_rules() const noexcept { return has_include_rules_; }

    // Wire text (`category:deadlock`) of rule `index` of retry_on / never_retry_on, and of
    // predicate `index` of retry_if (`predicate:NAME`); empty for an index out of range.
    std::string_view retry_on_text(std::size_t index) const noexcept {
        return text_at(retry_on_texts_, index);
    }
    std::string_view never_retry_on_text(std::size_t index) const noexcept {
        return text_at(never_retry_on_texts_, index);
    }
    std::string_view retry_if_text(std::size_t index) const noexcept {
        return text_at(retry_if_texts_, index);
    }

    // retry_if predicates in spec order; an empty function stands for a name that was not
    // resolved (compiled without a registry) and never matches.
    const std::vector<RetryPredicate>& predicates() const noexcept { return predicates_; }

    // The retry budget, or nullptr without one. Shared by every user of this policy.
    RetryBudget* budget() const noexcept { return budget_.get(); }
    const std::shared_ptr<RetryBudget>& shared_budget() const noexcept { return budget_; }

    // The tokens hedges take (hedge_tokens.hpp), or nullptr for a policy that does not hedge.
    // Shared by every user of this policy.
    HedgeTokens* hedge_tokens() const noexcept { return hedge_tokens_.get(); }

    // The circuit breaker guarding this policy's calls, or nullptr without one. Shared by every
    // policy that names it.
    CircuitBreaker* breaker() const noexcept { return breaker_.get(); }

    // Whether a run under this policy takes part before its first attempt ends: a breaker
    // gives the attempt a permit, or a deadline reads the clock (RetryRun::may_defer()).
    bool observes_first_attempt() const noexcept { return observes_first_attempt_; }

    // Reports a successful attempt to the budget (no-op without one). Thread-safe. Inline: a run
    // that succeeds at once calls it, and most policies have no budget.
    void record_success() const noexcept {
        if (budget_) {
            budget_->record_success();
        }
    }

    // Whether no step of decide() for `error` calls out of the decision: the rules are categories
    // only, there is no retry_if, deadline, budget or route, no retry's delay is drawn (each
    // jitter range is one point), and the error carries neither a server's hint nor a refusal.
    // decide() then takes a path built without calls; the decision is the same either way.
    bool decides_without_calls(const ErrorDescription& error) const noexcept {
        return decides_without_calls_ && !error.server_delay && !error.server_refused;
    }

  private:
    struct PrivateTag {};

  public:
    Policy(PrivateTag, PolicySpec spec, const PolicyCompileOptions& options);

  private:
    // decide() reads the compiled tables directly: the rule indices RuleIndex reports, and the
    // attempt once decide() has checked it against max_attempts, are in range by construction, so
    // the decision skips the bounds checks and clamps of the public accessors (decision.cpp).
    friend class DecisionSteps;  // decide()'s steps (decision.cpp)

    // What retry k needs, precomputed: its base delay, the interval its jitter draws from and the
    // number of delays in it (delay_count: 1 takes no draw).
    struct RetryDelay {
        Duration base{0};
        DelayRange draw;
        std::uint64_t draw_count = 1;
    };

    // The draw uniform_between makes from retry.draw (the same delay, the same number of draws),
    // clamped to the cap. The interval's count is precomputed except for decorrelated jitter,
    // whose ceiling depends on `previous`.
    Duration draw_delay(const RetryDelay& retry, Duration previous,
                        RandomSource& random) const noexcept {
        const Duration floor = retry.draw.min;
        std::uint64_t count = retry.draw_count;
        if (spec_.jitter.type == JitterType::Decorrelated) {
            // Decorrelated: [floor, 3 * max(previous, floor)].
            count = delay_count({floor, decorrelated_ceiling(std::max(previous, floor))});
        }
        Duration drawn = floor;
        if (count > 1) {
            drawn += Duration{static_cast<std::int64_t>(uniform_below(random, count))};
        }
        return std::min(drawn, delay_cap_);
    }

    static std::string_view text_at(const std::vector<std::string>& texts,
                                    std::size_t index) noexcept {
        return index < texts.size() ? std::string_view(texts[index]) : std::string_view{};
    }
    // Index into retries_ for retry k, k clamped to 1..max_attempts - 1 (at least one entry).
    std::size_t retry_slot(int k) const noexcept {
        return static_cast<std::size_t>(std::clamp(k, 1, retry_count_)) - 1;
    }

    PolicySpec spec_;
    RuleIndex rules_;
    bool has_include_rules_ = false;
    // A deadline, a budget or routes: decision steps 7 to 9 have something to do (one test
    // instead of three on the decisions of policies without them).
    bool has_late_steps_ = false;
    // decides_without_calls() before the error's part (decorrelated jitter always draws).
    bool decides_without_calls_ = false;
    bool observes_first_attempt_ = false;  // a breaker, a deadline or a hedge
    Duration delay_cap_ = kDurationInfinity;
    // Step 7 with the policy's side subtracted once: a retry starting at elapsed + delay (both
    // at least 0) leaves the next attempt its budget when their sum is below this limit:
    // deadline - min_attempt_budget + 1, 0 when no start does; without a deadline the largest
    // value, which no sum of two durations reaches.
    std::uint64_t retry_start_limit_ = UINT64_MAX;
    std::vector<RetryDelay> retries_;  // entry k - 1 for retry k
    int retry_count_ = 1;              // retries_.size(), kept to spare a division per decision
    std::vector<std::string> retry_on_texts_;
    std::vector<std::string> never_retry_on_texts_;
    std::vector<std::string> retry_if_texts_;
    std::vector<RetryPredicate> predicates_;
    std::shared_ptr<RetryBudget> budget_;
    std::shared_ptr<HedgeTokens> hedge_tokens_;
    std::shared_ptr<CircuitBreaker> breaker_;
};

// Fluent construction for code that defines policies without a file.
//
//   auto policy = rebound::PolicyBuilder("interactive")
//                     .max_attempts(3)
//                     .backoff(rebound::Backoff::exponential(50ms, 2.0, 200ms))
//                     .jitter(rebound::Jitter::equal())
//                     .retry_on(rebound::Matcher::of_category(rebound::ErrorCategory::Deadlock))
//                     .build();
//
// build() validates with the same rules as policy files and throws InvalidPolicyError listing
// every problem; try_build() returns them instead.
class PolicyBuilder {
  public:
    explicit PolicyBuilder(std::string name);

    PolicyBuilder& max_attempts(int n);
    PolicyBuilder& max_retries(int n);
    PolicyBuilder& backoff(const Backoff& b);
    PolicyBuilder& jitter(const Jitter& j);
    PolicyBuilder& deadline(Duration d);
    PolicyBuilder& min_attempt_budget(Duration d);
    PolicyBuilder& attempt_timeout(Duration d);
    PolicyBuilder& retry_on(Matcher m);
    PolicyBuilder& never_retry_on(Matcher m);
    PolicyBuilder& retry_if(std::string predicate_name);
    PolicyBuilder& on_exhausted(ExhaustedAction a);
    PolicyBuilder& budget(BudgetSettings b);
    PolicyBuilder& route(Duration up_to, std::string target);
    PolicyBuilder& server_delay(const ServerDelaySettings& s);
    // Guards the policy's calls with `b` (its name becomes the policy's `breaker`).
    PolicyBuilder& breaker(std::shared_ptr<CircuitBreaker> b);
    PolicyBuilder& options(const PolicyCompileOptions& o);

    const PolicySpec& spec() const noexcept { return spec_; }

    PolicyResult try_build() const;
    std::shared_ptr<const Policy> build() const;

  private:
    PolicySpec spec_;
    PolicyCompileOptions options_;
    BreakerDirectory breakers_;  // the breaker given to breaker(), when options give none
    bool max_attempts_set_ = false;
    bool max_retries_set_ = false;
};

}  // namespace rebound

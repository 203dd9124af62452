#include "rebound/policy.hpp"

#include <algorithm>

namespace rebound {
namespace {

std::vector<std::string> wire_texts(const std::vector<Matcher>& matchers) {
    std::vector<std::string> texts;
    texts.reserve(matchers.size());
    for (const Matcher& m : matchers) {
        texts.push_back(m.to_string());
    }
    return texts;
}

std::string join_problems(const std::string& policy_name, const FieldProblems& problems) {
    std::string text = "invalid policy '" + policy_name + "':";
    for (const FieldProblem& p : problems) {
        text += "\n  " + p.path() + ": " + p.message;
    }
    return text;
}

}  // namespace

InvalidPolicyError::InvalidPolicyError(const std::string& policy_name, FieldProblems problems)
    : std::invalid_argument(join_problems(policy_name, problems)), problems_(std::move(problems)) {}

PolicyResult Policy::create(PolicySpec spec, const PolicyCompileOptions& options) {
    PolicyResult result;
    result.problems = validate_policy(spec, options.predicates);
    if (!spec.breaker.empty() &&
        (options.breakers == nullptr || !options.breakers->contains(spec.breaker))) {
        result.problems.push_back(FieldProblem{PolicyField::Breaker, 0,
                                               "breaker '" + spec.breaker + "' is not declared",
                                               ProblemKind::InvalidValue});
    }
    if (result.problems.empty()) {
        result.policy = std::make_shared<const Policy>(PrivateTag{}, std::move(spec), options);
    }
    return result;
}

Policy::Policy(PrivateTag /*unused*/, PolicySpec spec, const PolicyCompileOptions& options)
    : spec_(std::move(spec)),
      rules_(RuleIndex::compile(spec_.never_retry_on, spec_.retry_on, options.error_types)),
      has_include_rules_(!spec_.retry_on.empty() || !spec_.retry_if.empty()),
      delay_cap_(spec_.backoff.cap().value_or(kDurationInfinity)),
      retry_on_texts_(wire_texts(spec_.retry_on)),
      never_retry_on_texts_(wire_texts(spec_.never_retry_on)) {
    for (const std::string& name : spec_.retry_if) {
        retry_if_texts_.push_back("predicate:" + name);
        const RetryPredicate* found =
            options.predicates != nullptr ? options.predicates->find(name) : nullptr;
        predicates_.push_back(found != nullptr ? *found : RetryPredicate{});
    }
    // One entry even for max_attempts 1, so that retry_slot() always lands in the table.
    const int retries = std::max(spec_.max_attempts - 1, 1);
    retry_count_ = retries;
    retries_.reserve(static_cast<std::size_t>(retries));
    for (int k = 1; k <= retries; ++k) {
        const Duration base = spec_.backoff.base_delay(k);
        const DelayRange draw = jitter_draw_range(spec_.jitter, spec_.backoff, base, Duration{0});
        retries_.push_back(RetryDelay{base, draw, delay_count(draw)});
    }
    if (spec_.budget) {
        budget_ = options.budget ? options.budget : std::make_shared<RetryBudget>(*spec_.budget);
    }
    if (spec_.hedge) {
        hedge_tokens_ = options.hedge_tokens
                            ? options.hedge_tokens
                            : std::make_shared<HedgeTokens>(HedgeTokenSettings::of(*spec_.hedge));
    }
    if (!spec_.breaker.empty() && options.breakers != nullptr) {
        if (const auto found = options.breakers->find(spec_.breaker);
            found != options.breakers->end()) {
            breaker_ = found->second;
        }
    }
    // A hedging policy is never run before its RetryRun begins: the run's first start_attempt()
    // refuses it (HedgingUnsupported).
    observes_first_attempt_ =
        breaker_ != nullptr || spec_.deadline.has_value() || spec_.hedge.has_value();
    if (spec_.deadline) {
        const Duration latest_start = *spec_.deadline - spec_.min_attempt_budget;  // +-30 days
        retry_start_limit_ =
            latest_start.count() < 0 ? 0 : static_cast<std::uint64_t>(latest_start.count()) + 1;
    }
    has_late_steps_ = spec_.deadline.has_value() || budget_ != nullptr || !spec_.routes.empty();
    const bool draws_a_delay =
        spec_.jitter.type == JitterType::Decorrelated ||
        std::any_of(retries_.begin(), retries_.end(),
                    [](const RetryDelay& r) { return r.draw.min < r.draw.max; });
    decides_without_calls_ =
        rules_.categories_only() && spec_.retry_if.empty() && !has_late_steps_ && !draws_a_delay;
}

PolicyBuilder::PolicyBuilder(std::string name) {
    spec_.name = std::move(name);
}

PolicyBuilder& PolicyBuilder::max_attempts(int n) {
    spec_.max_attempts = n;
    max_attempts_set_ = true;
    return *this;
}

PolicyBuilder& PolicyBuilder::max_retries(int n) {
    // max_retries is counted without the first attempt; saturate so absurd input stays absurd
    // (and is rejected) instead of wrapping.
    spec_.max_attempts = n >= std::numeric_limits<int>::max() ? n : n + 1;
    max_retries_set_ = true;
    return *this;
}

PolicyBuilder& PolicyBuilder::backoff(const Backoff& b) {
    spec_.backoff = b;
    return *this;
}

PolicyBuilder& PolicyBuilder::jitter(const Jitter& j) {
    spec_.jitter = j;
    return *this;
}

PolicyBuilder& PolicyBuilder::deadline(Duration d) {
    spec_.deadline = d;
    return *this;
}

PolicyBuilder& PolicyBuilder::min_attempt_budget(Duration d) {
    spec_.min_attempt_budget = d;
    return *this;
}

PolicyBuilder& PolicyBuilder::attempt_timeout(Duration d) {
    spec_.attempt_timeout = d;
    return *this;
}

PolicyBuilder& PolicyBuilder::retry_on(Matcher m) {
    spec_.retry_on.push_back(std::move(m));
    return *this;
}

PolicyBuilder& PolicyBuilder::never_retry_on(Matcher m) {
    spec_.never_retry_on.push_back(std::move(m));
    return *this;
}

PolicyBuilder& PolicyBuilder::retry_if(std::string predicate_name) {
    spec_.retry_if.push_back(std::move(predicate_name));
    return *this;
}

PolicyBuilder& PolicyBuilder::on_exhausted(ExhaustedAction a) {
    spec_.on_exhausted = a;
    return *this;
}

PolicyBuilder& PolicyBuilder::budget(BudgetSettings b) {
    spec_.budget = b;
    return *this;
}

PolicyBuilder& PolicyBuilder::route(Duration up_to, std::string target) {
    spec_.routes.push_back(Route{up_to, std::move(target)});
    return *this;
}

PolicyBuilder& PolicyBuilder::server_delay(const ServerDelaySettings& s) {
    spec_.server_delay = s;
    return *this;
}

PolicyBuilder& PolicyBuilder::breaker(std::shared_ptr<CircuitBreaker> b) {
    spec_.breaker = b ? b->name() : std::string{};
    breakers_.clear();
    if (b) {
        breakers_.emplace(b->name(), std::move(b));
    }
    return *this;
}

PolicyBuilder& PolicyBuilder::options(const PolicyCompileOptions& o) {
    options_ = o;
    return *this;
}

PolicyResult PolicyBuilder::try_build() const {
    if (max_attempts_set_ && max_retries_set_) {
        PolicyResult result;
        result.problems.push_back(FieldProblem{PolicyField::MaxRetries, 0,
                                               "give either max_attempts or max_retries, not both",
                                               ProblemKind::Conflict});
        return result;
    }
    if (options_.breakers == nullptr && !breakers_.empty()) {
        PolicyCompileOptions options = options_;
        options.breakers = &breakers_;
        return Policy::create(spec_, options);
    }
    return Policy::create(spec_, options_);
}

std::shared_ptr<const Policy> PolicyBuilder::build() const {
    PolicyResult result = try_build();
    if (!result) {
        throw InvalidPolicyError(spec_.name, std::move(result.problems));
    }
    return std::move(result.policy);
}

}  // namespace rebound

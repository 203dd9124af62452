// Models of well-known retry designs, run as further baselines.
#pragma once

#include "common.hpp"
#include "hand_written_baseline.hpp"

namespace decision_bench {
namespace {

// ---------------------------------------------------------------------------------------------
// Models of well-known designs, run as further baselines of a case. They make the same retry and
// stop decisions as the engine; their delays come from their own generators, so main() checks
// only that each delay lies in the policy's range.
namespace model {

// google-cloud-cpp style: the client holds prototype policies and clones both per operation
// (two heap allocations); the backoff clone creates its std::mt19937_64 on the first failure,
// seeded from std::random_device, so every failing operation seeds a generator from the OS.
class RetryPolicy {
  public:
    virtual ~RetryPolicy() = default;
    virtual std::unique_ptr<RetryPolicy> clone() const = 0;
    // Records a failure; true when the operation may be retried.
    virtual bool on_failure(ErrorCategory category) = 0;
    virtual bool is_exhausted() const = 0;
    virtual bool is_permanent_failure(ErrorCategory category) const = 0;
};

class LimitedErrorCountRetryPolicy final : public RetryPolicy {
  public:
    explicit LimitedErrorCountRetryPolicy(int maximum_attempts) : maximum_(maximum_attempts) {}
    std::unique_ptr<RetryPolicy> clone() const override {
        return std::make_unique<LimitedErrorCountRetryPolicy>(maximum_);
    }
    bool on_failure(ErrorCategory category) override {
        if (is_permanent_failure(category)) {
            return false;
        }
        ++failures_;
        return !is_exhausted();
    }
    bool is_exhausted() const override { return failures_ >= maximum_; }
    bool is_permanent_failure(ErrorCategory category) const override {
        return category != ErrorCategory::Deadlock;
    }

  private:
    int maximum_;
    int failures_ = 0;
};

class BackoffPolicy {
  public:
    virtual ~BackoffPolicy() = default;
    virtual std::unique_ptr<BackoffPolicy> clone() const = 0;
    virtual Duration on_completion() = 0;
};

// Exponential backoff with full jitter: a uniform delay in [0, current], then current doubles up
// to the maximum.
class ExponentialBackoffPolicy final : public BackoffPolicy {
  public:
    // `seed_source`: the std::random_device token ("default": libstdc++'s choice).
    ExponentialBackoffPolicy(Duration initial, Duration maximum, double scaling,
                             const char* seed_source)
        : initial_(initial),
          maximum_(maximum),
          scaling_(scaling),
          seed_source_(seed_source),
          current_(initial) {}
    std::unique_ptr<BackoffPolicy> clone() const override {
        return std::make_unique<ExponentialBackoffPolicy>(initial_, maximum_, scaling_,
                                                          seed_source_);
    }
    Duration on_completion() override {
        if (!generator_) {
            std::random_device device(seed_source_);
            generator_.emplace((std::uint64_t{device()} << 32) | device());
        }
        std::uniform_int_distribution<std::int64_t> distribution(0, current_.count());
        const Duration delay{distribution(*generator_)};
        current_ = std::min(
            Duration{static_cast<std::int64_t>(static_cast<double>(current_.count()) * scaling_)},
            maximum_);
        return delay;
    }

  private:
    Duration initial_;
    Duration maximum_;
    double scaling_;
    const char* seed_source_;
    Duration current_;
    std::optional<std::mt19937_64> generator_;
};

// One retry loop's view: clones the prototypes when an operation starts (attempt 1).
class ClonePerOperation {
  public:
    ClonePerOperation(const ErrorDescription& error, const char* seed_source)
        : error_(error),
          retry_prototype_(kMaxAttempts),
          backoff_prototype_(Duration{hand::kSimpleInitial}, Duration{hand::kSimpleCap}, 2.0,
                             seed_source) {}

    Decision operator()(const AttemptContext& context, SeededRandomSource&) {
        if (context.attempt == 1) {
            retry_ = retry_prototype_.clone();
            backoff_ = backoff_prototype_.clone();
        }
        Decision d;
        d.category = error_.effective_category();
        if (retry_->is_permanent_failure(d.category)) {
            return d;
        }
        if (!retry_->on_failure(d.category)) {
            d.reason = DecisionReason::Exhausted;
            return d;
        }
        d.retry = true;
        d.reason = DecisionReason::Retry;
        d.delay = backoff_->on_completion();
        d.next_attempt = context.attempt + 1;
        return d;
    }

  private:
    ErrorDescription error_;
    LimitedErrorCountRetryPolicy retry_prototype_;
    ExponentialBackoffPolicy backoff_prototype_;
    std::unique_ptr<RetryPolicy> retry_;
    std::unique_ptr<BackoffPolicy> backoff_;
};

// The simple policy with full jitter drawn from std::rand() (modulo, as commonly written).
[[gnu::noipa]] Decision decide_std_rand(const ErrorDescription& e,
                                        const AttemptContext& context) noexcept {
    Decision d;
    d.category = e.effective_category();
    const int attempt = std::max(context.attempt, 1);
    if (d.category != ErrorCategory::Deadlock) {
        return d;
    }
    d.matched = "category:deadlock";
    if (attempt >= kMaxAttempts) {
        d.reason = DecisionReason::Exhausted;
        return d;
    }
    const std::int64_t base = hand::kSimpleBase[static_cast<std::size_t>(attempt - 1)];
    d.retry = true;
    d.reason = DecisionReason::Retry;
    d.delay = Duration{static_cast<std::int64_t>(std::rand()) % (base + 1)};
    d.next_attempt = attempt + 1;
    return d;
}

}  // namespace model

}  // namespace
}  // namespace decision_bench

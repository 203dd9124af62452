// The hand-written baseline: the cases' policies implemented inline, without the engine.
#pragma once

#include "common.hpp"

namespace decision_bench {
namespace {

// ---------------------------------------------------------------------------------------------
// The same policies, written by hand

namespace hand {

constexpr std::uint32_t kNoRule = UINT32_MAX;

constexpr std::array<std::string_view, 56> kRetryOnText{
    "sqlstate:40001",
    "sqlstate:40P01",
    "sqlstate:55P03",
    "sqlstate:57P01",
    "sqlstate:57P02",
    "sqlstate:57P03",
    "sqlstate:53000",
    "sqlstate:53100",
    "sqlstate:53200",
    "sqlstate:53300",
    "sqlstate:58000",
    "sqlstate:58030",
    "sqlstate:HYT00",
    "sqlstate:HYT01",
    "sqlstate_class:08",
    "sqlstate_class:40",
    "sqlstate_class:53",
    "sqlstate_class:58",
    "native:mysql:1205",
    "native:mysql:1213",
    "native:mysql:2006",
    "native:mysql:2013",
    "native:mysql:1040",
    "native:sqlserver:1205",
    "native:sqlserver:1222",
    "native:sqlserver:40197",
    "native:sqlserver:40501",
    "native:sqlserver:40613",
    "native:sqlserver:49918",
    "native:oracle:60",
    "native:oracle:8177",
    "native:oracle:3113",
    "native:db2:-911",
    "native:db2:-913",
    "category:deadlock",
    "category:serialization_failure",
    "category:lock_timeout",
    "category:connection_failure",
    "category:connection_lost",
    "category:resource_exhausted",
    "category:service_unavailable",
    "category:admin_shutdown",
    "http:408",
    "http:425",
    "http:429",
    "http:502",
    "http:503",
    "http:504",
    "error:io.timeout",
    "error:io.connection_reset",
    "error:net.dns.temporary_failure",
    "error:grpc.unavailable",
    "error:grpc.resource_exhausted",
    "message:deadlock detected",
    "message:could not serialize access",
    "message:server closed the connection unexpectedly",
};

constexpr std::array<std::string_view, 8> kNeverRetryOnText{
    "category:constraint_violation",
    "category:syntax_error",
    "category:permission_denied",
    "category:authentication_failed",
    "sqlstate:23505",
    "native:mysql:1062",
    "http:401",
    "message:read-only transaction",
};

constexpr char ascii_upper(char c) noexcept {
    return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
}

// Up to 8 characters, upper-cased, in one integer: a 5-character SQLSTATE `s` has its class in
// `s >> 24`.
constexpr std::uint64_t pack(std::string_view code) noexcept {
    std::uint64_t key = 0;
    for (const char c : code) {
        key = (key << 8) | static_cast<unsigned char>(ascii_upper(c));
    }
    return key;
}

constexpr bool contains(std::string_view text, std::string_view part) noexcept {
    return text.find(part) != std::string_view::npos;
}

// never_retry_on: the first rule that matches, in list order.
std::uint32_t never_retry_rule(const ErrorDescription& e) noexcept {
    switch (e.effective_category()) {
        case ErrorCategory::ConstraintViolation:
            return 0;
        case ErrorCategory::SyntaxError:
            return 1;
        case ErrorCategory::PermissionDenied:
            return 2;
        case ErrorCategory::AuthenticationFailed:
            return 3;
        default:
            break;
    }
    if (e.sqlstate.size() == 5 && pack(e.sqlstate) == pack("23505")) {
        return 4;
    }
    if (e.vendor == Vendor::MySql && e.native_code == 1062) {
        return 5;
    }
    if (e.http_status == 401) {
        return 6;
    }
    if (contains(e.message, "read-only transaction")) {
        return 7;
    }
    return kNoRule;
}

std::uint32_t native_rule(Vendor vendor, std::int64_t code) noexcept {
    switch (vendor) {
        case Vendor::MySql:
            switch (code) {
                case 1205:
                    return 18;
                case 1213:
                    return 19;
                case 2006:
                    return 20;
                case 2013:
                    return 21;
                case 1040:
                    return 22;
                default:
                    return kNoRule;
            }
        case Vendor::SqlServer:
            switch (code) {
                case 1205:
                    return 23;
                case 1222:
                    return 24;
                case 40197:
                    return 25;
                case 40501:
                    return 26;
                case 40613:
                    return 27;
                case 49918:
                    return 28;
                default:
                    return kNoRule;
            }
        case Vendor::Oracle:
            switch (code) {
                case 60:
                    return 29;
                case 8177:
                    return 30;
                case 3113:
                    return 31;
                default:
                    return kNoRule;
            }
        case Vendor::Db2:
            switch (code) {
                case -911:
                    return 32;
                case -913:
                    return 33;
                default:
                    return kNoRule;
            }
        default:
            return kNoRule;
    }
}

// retry_on: the first rule that matches, in list order. The rules are grouped by kind, so the
// groups are tried in list order and the first group that matches decides.
std::uint32_t retry_rule(const ErrorDescription& e) noexcept {
    if (e.sqlstate.size() == 5) {
        const std::uint64_t code = pack(e.sqlstate);
        switch (code) {
            case pack("40001"):
                return 0;
            case pack("40P01"):
                return 1;
            case pack("55P03"):
                return 2;
            case pack("57P01"):
                return 3;
            case pack("57P02"):
                return 4;
            case pack("57P03"):
                return 5;
            case pack("53000"):
                return 6;
            case pack("53100"):
                return 7;
            case pack("53200"):
                return 8;
            case pack("53300"):
                return 9;
            case pack("58000"):
                return 10;
            case pack("58030"):
                return 11;
            case pack("HYT00"):
                return 12;
            case pack("HYT01"):
                return 13;
            default:
                break;
        }
        switch (code >> 24) {
            case pack("08"):
                return 14;
            case pack("40"):
                return 15;
            case pack("53"):
                return 16;
            case pack("58"):
                return 17;
            default:
                break;
        }
    }
    if (e.vendor && e.native_code) {
        if (const std::uint32_t rule = native_rule(*e.vendor, *e.native_code); rule != kNoRule) {
            return rule;
        }
    }
    switch (e.effective_category()) {
        case ErrorCategory::Deadlock:
            return 34;
        case ErrorCategory::SerializationFailure:
            return 35;
        case ErrorCategory::LockTimeout:
            return 36;
        case ErrorCategory::ConnectionFailure:
            return 37;
        case ErrorCategory::ConnectionLost:
            return 38;
        case ErrorCategory::ResourceExhausted:
            return 39;
        case ErrorCategory::ServiceUnavailable:
            return 40;
        case ErrorCategory::AdminShutdown:
            return 41;
        default:
            break;
    }
    switch (e.http_status) {
        case 408:
            return 42;
        case 425:
            return 43;
        case 429:
            return 44;
        case 502:
            return 45;
        case 503:
            return 46;
        case 504:
            return 47;
        default:
            break;
    }
    // The type, then each dotted prefix. No rule's type is a prefix of another's, so the first
    // hit is the only one.
    for (std::string_view name = e.error_type; !name.empty();) {
        if (name == "io.timeout") {
            return 48;
        }
        if (name == "io.connection_reset") {
            return 49;
        }
        if (name == "net.dns.temporary_failure") {
            return 50;
        }
        if (name == "grpc.unavailable") {
            return 51;
        }
        if (name == "grpc.resource_exhausted") {
            return 52;
        }
        const auto dot = name.rfind('.');
        name = dot == std::string_view::npos ? std::string_view{} : name.substr(0, dot);
    }
    if (!e.message.empty()) {
        if (contains(e.message, "deadlock detected")) {
            return 53;
        }
        if (contains(e.message, "could not serialize access")) {
            return 54;
        }
        if (contains(e.message, "server closed the connection unexpectedly")) {
            return 55;
        }
    }
    return kNoRule;
}

// A uniform integer in [low, high] by Lemire's multiply-shift; `low` without a draw when the
// range is one point.
std::int64_t uniform(SeededRandomSource& random, std::int64_t low, std::int64_t high) noexcept {
    if (high <= low) {
        return low;
    }
    __extension__ using Uint128 = unsigned __int128;
    const Uint128 span = static_cast<Uint128>(static_cast<std::uint64_t>(high - low)) + 1;
    return low +
           static_cast<std::int64_t>(static_cast<std::uint64_t>((random.next() * span) >> 64));
}

// The retry budget, as one atomic counter of thousandths of tokens.
class Budget {
  public:
    bool take() noexcept {
        std::int64_t current = tokens_.load(std::memory_order_relaxed);
        std::int64_t next = 0;
        do {
            next = std::max<std::int64_t>(current - 1000, 0);
        } while (!tokens_.compare_exchange_weak(current, next, std::memory_order_acq_rel,
                                                std::memory_order_relaxed));
        return next > kMax / 2;
    }
    void give() noexcept {
        std::int64_t current = tokens_.load(std::memory_order_relaxed);
        std::int64_t next = 0;
        do {
            next = std::min<std::int64_t>(current + 1000, kMax);
        } while (!tokens_.compare_exchange_weak(current, next, std::memory_order_acq_rel,
                                                std::memory_order_relaxed));
    }

  private:
    static constexpr std::int64_t kMax = 100 * 1000;
    std::atomic<std::int64_t> tokens_{kMax};
};

Budget g_budget;

// The same budget algorithm behind a std::mutex: the "mutex-guarded retry quota" model.
class MutexBudget {
  public:
    bool take() noexcept {
        const std::lock_guard lock(mutex_);
        tokens_ = std::max<std::int64_t>(tokens_ - 1000, 0);
        return tokens_ > kMax / 2;
    }
    void give() noexcept {
        const std::lock_guard lock(mutex_);
        tokens_ = std::min<std::int64_t>(tokens_ + 1000, kMax);
    }

  private:
    static constexpr std::int64_t kMax = 100 * 1000;
    std::mutex mutex_;
    std::int64_t tokens_ = kMax;
};

MutexBudget g_mutex_budget;

// rules64: exponential 50ms x2 up to 2s, full jitter, deadline 30s, min_attempt_budget 100ms.
constexpr std::array<std::int64_t, kMaxAttempts - 1> kRules64Base{50'000, 100'000, 200'000,
                                                                  400'000};
constexpr std::int64_t kRules64Deadline = 30'000'000;
constexpr std::int64_t kRules64MinAttemptBudget = 100'000;
// The default server_delay settings: use max, cap 5m, over_cap stop, no spread.
constexpr std::int64_t kServerDelayCap = 300'000'000;

// Steps 5 to 8 of the 64-rule policy's schedule, for an error a retry_on rule matched (`d`
// carries the category and the rule): attempts, full jitter, the hint, the deadline, the budget.
// kHints: the error may carry a server's delay hint (decision step 6).
template <bool kWithBudget = false, auto* kBudget = &g_budget, bool kHints = false>
Decision retry_after_rule(Decision d, const ErrorDescription& e, const AttemptContext& context,
                          SeededRandomSource& random) noexcept {
    const int attempt = std::max(context.attempt, 1);
    if (attempt >= kMaxAttempts) {
        d.reason = DecisionReason::Exhausted;
        return d;
    }
    // Full jitter; every base delay is below the 2s cap.
    std::int64_t delay = uniform(random, 0, kRules64Base[static_cast<std::size_t>(attempt - 1)]);
    if constexpr (kHints) {
        if (e.server_delay) {
            const std::int64_t hint = std::max<std::int64_t>(e.server_delay->count(), 0);
            if (hint > kServerDelayCap) {
                d.reason = DecisionReason::ServerDelayTooLong;
                return d;
            }
            delay = std::max(delay, hint);
        }
    }
    if (std::max<std::int64_t>(context.elapsed.count(), 0) + delay + kRules64MinAttemptBudget >
        kRules64Deadline) {
        d.reason = DecisionReason::Deadline;
        return d;
    }
    if constexpr (kWithBudget) {
        if (!kBudget->take()) {
            d.reason = DecisionReason::Throttled;
            return d;
        }
    }
    d.retry = true;
    d.reason = DecisionReason::Retry;
    d.delay = Duration{delay};
    d.next_attempt = attempt + 1;
    return d;
}

// kHints: the error may carry a server's refusal or delay hint (decision steps 3 and 6).
template <bool kWithBudget, auto* kBudget = &g_budget, bool kHints = false>
[[gnu::noipa]] Decision decide_rules64(const ErrorDescription& e, const AttemptContext& context,
                                       SeededRandomSource& random) noexcept {
    Decision d;  // a stop, non_retryable
    d.category = e.effective_category();
    if (const std::uint32_t rule = never_retry_rule(e); rule != kNoRule) {
        d.matched = kNeverRetryOnText[rule];
        return d;
    }
    if (d.category == ErrorCategory::CommitOutcomeUnknown && !context.idempotent) {
        d.reason = DecisionReason::OutcomeUnknown;
        return d;
    }
    if constexpr (kHints) {
        if (e.server_refused) {
            d.reason = DecisionReason::ServerRefused;
            return d;
        }
    }
    const std::uint32_t rule = retry_rule(e);
    if (rule == kNoRule) {
        return d;
    }
    d.matched = kRetryOnText[rule];
    return retry_after_rule<kWithBudget, kBudget, kHints>(d, e, context, random);
}

// simple: exponential 100ms x2 up to 1s, retry_on category:deadlock, one jitter kind.
constexpr std::array<std::int64_t, kMaxAttempts - 1> kSimpleBase{100'000, 200'000, 400'000,
                                                                 800'000};
constexpr std::int64_t kSimpleInitial = 100'000;
constexpr std::int64_t kSimpleCap = 1'000'000;
constexpr std::int64_t kBoundedAmount = 50'000;
constexpr double kProportionalFactor = 0.25;

template <JitterType kJitter>
[[gnu::noipa]] Decision decide_simple(const ErrorDescription& e, const AttemptContext& context,
                                      SeededRandomSource& random) noexcept {
    Decision d;
    d.category = e.effective_category();
    const int attempt = std::max(context.attempt, 1);
    if (d.category == ErrorCategory::CommitOutcomeUnknown && !context.idempotent) {
        d.reason = DecisionReason::OutcomeUnknown;
        return d;
    }
    if (d.category != ErrorCategory::Deadlock) {
        return d;
    }
    d.matched = "category:deadlock";
    if (attempt >= kMaxAttempts) {
        d.reason = DecisionReason::Exhausted;
        return d;
    }
    const std::int64_t base = kSimpleBase[static_cast<std::size_t>(attempt - 1)];
    std::int64_t delay = base;
    if constexpr (kJitter == JitterType::Full) {
        delay = uniform(random, 0, base);
    } else if constexpr (kJitter == JitterType::Equal) {
        delay = uniform(random, (base + 1) / 2, base);
    } else if constexpr (kJitter == JitterType::Decorrelated) {
        const std::int64_t previous = std::max(context.previous_delay.count(), kSimpleInitial);
        delay = std::min(uniform(random, kSimpleInitial, 3 * previous), kSimpleCap);
    } else if constexpr (kJitter == JitterType::Bounded) {
        delay = std::min(uniform(random, base > kBoundedAmount ? base - kBoundedAmount : 0,
                                 base + kBoundedAmount),
                         kSimpleCap);
    } else if constexpr (kJitter == JitterType::Proportional) {
        const auto b = static_cast<double>(base);
        delay = std::min(uniform(random, std::llround(b * (1.0 - kProportionalFactor)),
                                 std::llround(b * (1.0 + kProportionalFactor))),
                         kSimpleCap);
    }
    d.retry = true;
    d.reason = DecisionReason::Retry;
    d.delay = Duration{delay};
    d.next_attempt = attempt + 1;
    return d;
}

}  // namespace hand

}  // namespace
}  // namespace decision_bench

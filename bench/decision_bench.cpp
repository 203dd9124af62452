// Benchmarks of rebound::decide() (results and command lines: docs/performance.md).
//
// Every case runs twice in this binary:
//   <case>/rebound   rebound::decide() on a compiled Policy;
//   <case>/baseline  a hand-written function that implements the same policy inline: switch
//                    statements and if-chains for the rules, a constant table of base delays, the
//                    one jitter kind of the policy written out, the same RandomSource type
//                    (rebound::SeededRandomSource) seeded the same way.
// Both sides are fed the same errors and the same sequence of attempt contexts, so their ratio is
// the cost of the engine's generality. main() first checks that both sides return identical
// decisions (delays included) for every case and refuses to run if they differ.
//
// Cases:
//   rules64_*      a 64-rule policy (56 retry_on + 8 never_retry_on: categories, SQLSTATEs,
//                  SQLSTATE classes, vendor native codes, HTTP statuses, error types, messages),
//                  exponential backoff, full jitter and a deadline (so step 6 runs):
//                    hit             a MySQL lock wait timeout: matched by a retry_on rule, retried
//                    hit_error_type  an unclassified `io.timeout.read`: matched through a dotted
//                                    prefix of its error type, retried
//                    miss            a PostgreSQL division by zero: matches no rule, non_retryable
//                    with_budget     `hit` with a retry budget; record_success() runs every
//                                    iteration so the budget never empties
//   jitter_*       a one-rule policy with each jitter kind.
// Models of well-known designs run as further baselines, each checked first to take the engine's
// retry/stop decisions (their delays: within the policy's range, or identical where they share
// the engine's generator):
//   jitter_full/model_clone_per_operation  google-cloud-cpp style: retry and backoff policy
//                  objects cloned on the heap per operation, std::mt19937_64 seeded from
//                  std::random_device on the operation's first failure;
//   jitter_full/model_clone_getentropy     the same, std::random_device("getentropy"): the
//                  cost of cloning without the default source's RDSEED;
//   jitter_full/model_std_rand             full jitter drawn with std::rand();
//   rules64_with_budget/model_mutex_quota  the hand-written rules with the retry budget behind a
//                  std::mutex instead of compare-and-swap.
// The attempt cycles through 1..4 (max_attempts 5) so every entry of the backoff table is used;
// the previous delay is fed back as AttemptContext::previous_delay, as a retry loop would.
//
// The global allocation functions are replaced by counting ones: each case reports the
// allocations made by its thread inside the timed loop as the counter `allocs_per_op`.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>

#include "rebound/decision.hpp"
#include "rebound/policy.hpp"
#include "rebound/random_source.hpp"

// ---------------------------------------------------------------------------------------------
// Allocation counting

namespace {

thread_local std::uint64_t t_allocations = 0;

void* counted_malloc(std::size_t size) noexcept {
    ++t_allocations;
    return std::malloc(size == 0 ? 1 : size);
}

void* counted_aligned_alloc(std::size_t size, std::align_val_t align) noexcept {
    ++t_allocations;
    const auto alignment = static_cast<std::size_t>(align);
    // aligned_alloc wants a size that is a multiple of the alignment.
    const std::size_t rounded = (std::max<std::size_t>(size, 1) + alignment - 1) / alignment;
    return std::aligned_alloc(alignment, rounded * alignment);
}

void* checked(void* p) {
    if (p == nullptr) {
        throw std::bad_alloc();
    }
    return p;
}

}  // namespace

void* operator new(std::size_t size) {
    return checked(counted_malloc(size));
}
void* operator new[](std::size_t size) {
    return checked(counted_malloc(size));
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    return counted_malloc(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
    return counted_malloc(size);
}
void* operator new(std::size_t size, std::align_val_t align) {
    return checked(counted_aligned_alloc(size, align));
}
void* operator new[](std::size_t size, std::align_val_t align) {
    return checked(counted_aligned_alloc(size, align));
}
void* operator new(std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
    return counted_aligned_alloc(size, align);
}
void* operator new[](std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
    return counted_aligned_alloc(size, align);
}
void operator delete(void* p) noexcept {
    std::free(p);
}
void operator delete[](void* p) noexcept {
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
    std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
    std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
    std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
    std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
    std::free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
    std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
    std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
    std::free(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
    std::free(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
    std::free(p);
}

namespace {

using namespace std::chrono_literals;
using rebound::AttemptContext;
using rebound::Decision;
using rebound::DecisionReason;
using rebound::Duration;
using rebound::ErrorCategory;
using rebound::ErrorDescription;
using rebound::JitterType;
using rebound::SeededRandomSource;
using rebound::Vendor;

constexpr std::uint64_t kSeed = 0x5eed'2024'0b0c'ca5eULL;
constexpr int kMaxAttempts = 5;
constexpr int kAttemptCycle = kMaxAttempts - 1;  // attempts 1..4 all retry
constexpr int kVerifyIterations = 4000;

// ---------------------------------------------------------------------------------------------
// The policies, through the engine

// The 64-rule policy. The hand-written side below encodes the same rules with these indices.
std::shared_ptr<const rebound::Policy> make_rules64_policy(bool with_budget) {
    using rebound::Matcher;
    rebound::PolicyBuilder b(with_budget ? "rules64_budget" : "rules64");
    b.max_attempts(kMaxAttempts)
        .backoff(rebound::Backoff::exponential(50ms, 2.0, 2s))
        .jitter(rebound::Jitter::full())
        .deadline(30s)
        .min_attempt_budget(100ms);
    // retry_on, 56 rules.
    for (const char* code : {"40001", "40P01", "55P03", "57P01", "57P02", "57P03", "53000", "53100",
                             "53200", "53300", "58000", "58030", "HYT00", "HYT01"}) {
        b.retry_on(Matcher::sqlstate(code));  // 0..13
    }
    for (const char* code_class : {"08", "40", "53", "58"}) {
        b.retry_on(Matcher::sqlstate_class(code_class));  // 14..17
    }
    b.retry_on(Matcher::native(Vendor::MySql, 1205))  // 18
        .retry_on(Matcher::native(Vendor::MySql, 1213))
        .retry_on(Matcher::native(Vendor::MySql, 2006))
        .retry_on(Matcher::native(Vendor::MySql, 2013))
        .retry_on(Matcher::native(Vendor::MySql, 1040))
        .retry_on(Matcher::native(Vendor::SqlServer, 1205))  // 23
        .retry_on(Matcher::native(Vendor::SqlServer, 1222))
        .retry_on(Matcher::native(Vendor::SqlServer, 40197))
        .retry_on(Matcher::native(Vendor::SqlServer, 40501))
        .retry_on(Matcher::native(Vendor::SqlServer, 40613))
        .retry_on(Matcher::native(Vendor::SqlServer, 49918))
        .retry_on(Matcher::native(Vendor::Oracle, 60))  // 29
        .retry_on(Matcher::native(Vendor::Oracle, 8177))
        .retry_on(Matcher::native(Vendor::Oracle, 3113))
        .retry_on(Matcher::native(Vendor::Db2, -911))  // 32
        .retry_on(Matcher::native(Vendor::Db2, -913));
    for (const ErrorCategory c :
         {ErrorCategory::Deadlock, ErrorCategory::SerializationFailure, ErrorCategory::LockTimeout,
          ErrorCategory::ConnectionFailure, ErrorCategory::ConnectionLost,
          ErrorCategory::ResourceExhausted, ErrorCategory::ServiceUnavailable,
          ErrorCategory::AdminShutdown}) {
        b.retry_on(Matcher::of_category(c));  // 34..41
    }
    for (const int status : {408, 425, 429, 502, 503, 504}) {
        b.retry_on(Matcher::http_status(status));  // 42..47
    }
    for (const char* type : {"io.timeout", "io.connection_reset", "net.dns.temporary_failure",
                             "grpc.unavailable", "grpc.resource_exhausted"}) {
        b.retry_on(Matcher::error_type(type));  // 48..52
    }
    for (const char* text : {"deadlock detected", "could not serialize access",
                             "server closed the connection unexpectedly"}) {
        b.retry_on(Matcher::message(text));  // 53..55
    }
    // never_retry_on, 8 rules.
    b.never_retry_on(Matcher::of_category(ErrorCategory::ConstraintViolation))
        .never_retry_on(Matcher::of_category(ErrorCategory::SyntaxError))
        .never_retry_on(Matcher::of_category(ErrorCategory::PermissionDenied))
        .never_retry_on(Matcher::of_category(ErrorCategory::AuthenticationFailed))
        .never_retry_on(Matcher::sqlstate("23505"))
        .never_retry_on(Matcher::native(Vendor::MySql, 1062))
        .never_retry_on(Matcher::http_status(401))
        .never_retry_on(Matcher::message("read-only transaction"));
    if (with_budget) {
        // One token per failure, one back per success: the budget stays full.
        b.budget(rebound::BudgetSettings{100, 1.0});
    }
    return b.build();
}

// The one-rule policy of the jitter cases.
std::shared_ptr<const rebound::Policy> make_simple_policy(const rebound::Jitter& jitter) {
    return rebound::PolicyBuilder("simple")
        .max_attempts(kMaxAttempts)
        .backoff(rebound::Backoff::exponential(100ms, 2.0, 1s))
        .jitter(jitter)
        .retry_on(rebound::Matcher::of_category(ErrorCategory::Deadlock))
        .build();
}

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

template <bool kWithBudget, auto* kBudget = &g_budget>
[[gnu::noipa]] Decision decide_rules64(const ErrorDescription& e, const AttemptContext& context,
                                       SeededRandomSource& random) noexcept {
    Decision d;  // a stop, non_retryable
    d.category = e.effective_category();
    const int attempt = std::max(context.attempt, 1);
    if (const std::uint32_t rule = never_retry_rule(e); rule != kNoRule) {
        d.matched = kNeverRetryOnText[rule];
        return d;
    }
    if (d.category == ErrorCategory::CommitOutcomeUnknown && !context.idempotent) {
        d.reason = DecisionReason::OutcomeUnknown;
        return d;
    }
    const std::uint32_t rule = retry_rule(e);
    if (rule == kNoRule) {
        return d;
    }
    d.matched = kRetryOnText[rule];
    if (attempt >= kMaxAttempts) {
        d.reason = DecisionReason::Exhausted;
        return d;
    }
    // Full jitter; every base delay is below the 2s cap.
    const std::int64_t delay =
        uniform(random, 0, kRules64Base[static_cast<std::size_t>(attempt - 1)]);
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

// ---------------------------------------------------------------------------------------------
// The errors

// MySQL lock wait timeout, as the ODBC adapter describes it: matched by native:mysql:1205.
constexpr ErrorDescription mysql_lock_timeout() noexcept {
    ErrorDescription e;
    e.category = ErrorCategory::LockTimeout;
    e.sqlstate = "HY000";
    e.vendor = Vendor::MySql;
    e.native_code = 1205;
    e.message =
        "[MySQL][ODBC 8.0(w) Driver][mysqld-8.0.36]Lock wait timeout exceeded; "
        "try restarting transaction";
    return e;
}

// An unclassified application error: matched by error:io.timeout through its dotted prefix.
constexpr ErrorDescription io_read_timeout() noexcept {
    ErrorDescription e;
    e.error_type = "io.timeout.read";
    e.message = "read timed out after 30000 ms";
    return e;
}

// PostgreSQL division by zero: matches no rule of either list.
constexpr ErrorDescription postgres_division_by_zero() noexcept {
    ErrorDescription e;
    e.category = ErrorCategory::DataError;
    e.sqlstate = "22012";
    e.vendor = Vendor::PostgreSql;
    e.native_code = 7;
    e.message = "ERROR: division by zero; Error while executing the query";
    return e;
}

// ---------------------------------------------------------------------------------------------
// The loop

// The contexts of a retry loop: attempts 1..4 over and over, elapsed growing with the attempt,
// the previous decision's delay fed back.
class ContextSequence {
  public:
    AttemptContext next() noexcept {
        AttemptContext context;
        context.attempt = 1 + static_cast<int>(i_ % kAttemptCycle);
        context.elapsed = Duration{std::int64_t{250'000} * context.attempt};
        context.previous_delay = context.attempt == 1 ? Duration{0} : previous_;
        ++i_;
        return context;
    }
    void record(const Decision& d) noexcept { previous_ = d.delay; }

  private:
    std::uint32_t i_ = 0;
    Duration previous_{0};
};

template <typename Decide, typename OnSuccess>
void run(benchmark::State& state, Decide decide, OnSuccess on_success) {
    SeededRandomSource random(kSeed);
    ContextSequence contexts;
    const std::uint64_t allocations_before = t_allocations;
    for (auto _ : state) {
        const AttemptContext context = contexts.next();
        Decision decision = decide(context, random);
        benchmark::DoNotOptimize(decision);
        contexts.record(decision);
        on_success();
    }
    const std::uint64_t allocations = t_allocations - allocations_before;
    state.counters["allocs_per_op"] =
        benchmark::Counter(static_cast<double>(allocations), benchmark::Counter::kAvgIterations);
}

// What every decision of a case must be.
enum class Expect : std::uint8_t { Retry, NonRetryable };

using BaselineFunction = Decision(const ErrorDescription&, const AttemptContext&,
                                  SeededRandomSource&) noexcept;

struct Case {
    std::string name;
    std::shared_ptr<const rebound::Policy> policy;
    ErrorDescription error;
    BaselineFunction* baseline;
    bool with_budget;
    Expect expect;
    void (*register_benchmarks)(const Case&);
};

bool same(const Decision& a, const Decision& b) noexcept {
    return a.retry == b.retry && a.reason == b.reason && a.delay == b.delay &&
           a.next_attempt == b.next_attempt && a.category == b.category && a.matched == b.matched &&
           a.route == b.route;
}

void print(const char* side, const Decision& d) {
    std::fprintf(stderr, "  %-8s retry=%d reason=%s delay=%lldus next=%d matched='%.*s'\n", side,
                 d.retry ? 1 : 0, std::string(rebound::to_string(d.reason)).c_str(),
                 static_cast<long long>(d.delay.count()), d.next_attempt,
                 static_cast<int>(d.matched.size()), d.matched.data());
}

// Both sides of `c` must agree decision for decision, and every decision must be as expected.
bool verify(const Case& c) {
    SeededRandomSource engine_random(kSeed);
    SeededRandomSource hand_random(kSeed);
    ContextSequence engine_contexts;
    ContextSequence hand_contexts;
    for (int i = 0; i < kVerifyIterations; ++i) {
        const AttemptContext engine_context = engine_contexts.next();
        const AttemptContext hand_context = hand_contexts.next();
        const Decision engine = rebound::decide(*c.policy, c.error, engine_context, engine_random);
        const Decision hand = c.baseline(c.error, hand_context, hand_random);
        engine_contexts.record(engine);
        hand_contexts.record(hand);
        if (c.with_budget) {
            c.policy->record_success();
            hand::g_budget.give();
        }
        const bool expected =
            c.expect == Expect::Retry
                ? engine.retry
                : engine.reason == DecisionReason::NonRetryable && engine.matched.empty();
        if (!same(engine, hand) || !expected) {
            std::fprintf(stderr, "%s: iteration %d (attempt %d): %s\n", c.name.c_str(), i,
                         engine_context.attempt,
                         expected ? "the two sides disagree" : "unexpected decision");
            print("rebound", engine);
            print("baseline", hand);
            return false;
        }
    }
    return true;
}

// The hand-written side numbers the rules as the policy does.
bool verify_rule_texts(const rebound::Policy& policy) {
    bool ok = policy.spec().retry_on.size() == hand::kRetryOnText.size() &&
              policy.spec().never_retry_on.size() == hand::kNeverRetryOnText.size();
    for (std::size_t i = 0; ok && i < hand::kRetryOnText.size(); ++i) {
        ok = policy.retry_on_text(i) == hand::kRetryOnText[i];
    }
    for (std::size_t i = 0; ok && i < hand::kNeverRetryOnText.size(); ++i) {
        ok = policy.never_retry_on_text(i) == hand::kNeverRetryOnText[i];
    }
    if (!ok) {
        std::fprintf(stderr, "the hand-written rules are not numbered as the policy's\n");
    }
    return ok;
}

// Registers `<name>/rebound` and `<name>/baseline`. The baseline is a template argument so that
// both sides make a direct call.
template <BaselineFunction* kBaseline, bool kWithBudget>
void register_benchmarks(const Case& c) {
    benchmark::RegisterBenchmark((c.name + "/rebound").c_str(), [c](benchmark::State& state) {
        run(
            state,
            [&c](const AttemptContext& context, SeededRandomSource& random) {
                return rebound::decide(*c.policy, c.error, context, random);
            },
            [&c] {
                if constexpr (kWithBudget) {
                    c.policy->record_success();
                }
            });
    });
    benchmark::RegisterBenchmark((c.name + "/baseline").c_str(), [c](benchmark::State& state) {
        run(
            state,
            [&c](const AttemptContext& context, SeededRandomSource& random) {
                return kBaseline(c.error, context, random);
            },
            [] {
                if constexpr (kWithBudget) {
                    hand::g_budget.give();
                }
            });
    });
}

// A model must take the engine's retry/stop decisions (retry flag, reason, next attempt,
// category) on every one of the verification iterations; `delay_ok(context, model, engine)`
// judges its delay.
template <typename Model, typename OnSuccess, typename DelayOk>
bool verify_model(const Case& c, const std::string& name, Model model, OnSuccess on_success,
                  DelayOk delay_ok) {
    SeededRandomSource engine_random(kSeed);
    SeededRandomSource model_random(kSeed);
    ContextSequence engine_contexts;
    ContextSequence model_contexts;
    for (int i = 0; i < kVerifyIterations; ++i) {
        const AttemptContext engine_context = engine_contexts.next();
        const AttemptContext model_context = model_contexts.next();
        const Decision engine = rebound::decide(*c.policy, c.error, engine_context, engine_random);
        const Decision modelled = model(model_context, model_random);
        engine_contexts.record(engine);
        model_contexts.record(modelled);
        if (c.with_budget) {
            c.policy->record_success();
            on_success();
        }
        if (engine.retry != modelled.retry || engine.reason != modelled.reason ||
            engine.next_attempt != modelled.next_attempt || engine.category != modelled.category ||
            !delay_ok(model_context, modelled, engine)) {
            std::fprintf(stderr, "%s: iteration %d (attempt %d): the model disagrees\n",
                         name.c_str(), i, engine_context.attempt);
            print("rebound", engine);
            print("model", modelled);
            return false;
        }
    }
    return true;
}

// Full jitter of the simple policy: a delay in [0, base(attempt)] when retrying, 0 otherwise.
bool in_full_jitter_range(const AttemptContext& context, const Decision& d, const Decision&) {
    if (!d.retry) {
        return d.delay == Duration{0};
    }
    const std::int64_t base = hand::kSimpleBase[static_cast<std::size_t>(context.attempt - 1)];
    return d.delay.count() >= 0 && d.delay.count() <= base;
}

// Registers `name`; `make_model()` builds the model's state in the benchmark's thread.
template <typename MakeModel, typename OnSuccess>
void register_model(const std::string& name, MakeModel make_model, OnSuccess on_success) {
    benchmark::RegisterBenchmark(name.c_str(), [make_model, on_success](benchmark::State& state) {
        auto model = make_model();
        run(state, std::move(model), on_success);
    });
}

template <BaselineFunction* kBaseline, bool kWithBudget = false>
Case make_case(std::string name, std::shared_ptr<const rebound::Policy> policy,
               const ErrorDescription& error, Expect expect) {
    return Case{std::move(name),
                std::move(policy),
                error,
                kBaseline,
                kWithBudget,
                expect,
                &register_benchmarks<kBaseline, kWithBudget>};
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
        return 1;
    }

    const auto rules64 = make_rules64_policy(false);
    const auto rules64_budget = make_rules64_policy(true);
    const ErrorDescription deadlock = ErrorDescription::of(ErrorCategory::Deadlock);
    using rebound::Jitter;
    const Case cases[] = {
        make_case<&hand::decide_rules64<false>>("rules64_hit", rules64, mysql_lock_timeout(),
                                                Expect::Retry),
        make_case<&hand::decide_rules64<false>>("rules64_hit_error_type", rules64,
                                                io_read_timeout(), Expect::Retry),
        make_case<&hand::decide_rules64<false>>("rules64_miss", rules64,
                                                postgres_division_by_zero(), Expect::NonRetryable),
        make_case<&hand::decide_rules64<true>, true>("rules64_with_budget", rules64_budget,
                                                     mysql_lock_timeout(), Expect::Retry),
        make_case<&hand::decide_simple<JitterType::None>>(
            "jitter_none", make_simple_policy(Jitter::none()), deadlock, Expect::Retry),
        make_case<&hand::decide_simple<JitterType::Full>>(
            "jitter_full", make_simple_policy(Jitter::full()), deadlock, Expect::Retry),
        make_case<&hand::decide_simple<JitterType::Equal>>(
            "jitter_equal", make_simple_policy(Jitter::equal()), deadlock, Expect::Retry),
        make_case<&hand::decide_simple<JitterType::Decorrelated>>(
            "jitter_decorrelated", make_simple_policy(Jitter::decorrelated()), deadlock,
            Expect::Retry),
        make_case<&hand::decide_simple<JitterType::Bounded>>(
            "jitter_bounded", make_simple_policy(Jitter::bounded(Duration{hand::kBoundedAmount})),
            deadlock, Expect::Retry),
        make_case<&hand::decide_simple<JitterType::Proportional>>(
            "jitter_proportional",
            make_simple_policy(Jitter::proportional(hand::kProportionalFactor)), deadlock,
            Expect::Retry),
    };

    bool ok = verify_rule_texts(*rules64) && verify_rule_texts(*rules64_budget);
    for (const Case& c : cases) {
        ok = ok && verify(c);
    }
    if (!ok) {
        std::fprintf(stderr, "rebound::decide() and the hand-written baseline differ; not run\n");
        return 1;
    }

    // The models of well-known designs, next to the case whose policy they implement.
    const Case& full = cases[5];
    const Case& budgeted = cases[3];
    // libstdc++'s default std::random_device source (RDSEED where the CPU has it), and the
    // getentropy(3) source, to separate the cost of seeding from the cost of cloning.
    const auto clone_model = [&full] { return model::ClonePerOperation(full.error, "default"); };
    const auto clone_getentropy_model = [&full] {
        return model::ClonePerOperation(full.error, "getentropy");
    };
    const auto rand_model = [&full] {
        return [error = full.error](const AttemptContext& context, SeededRandomSource&) {
            return model::decide_std_rand(error, context);
        };
    };
    const auto mutex_model = [&budgeted] {
        return [error = budgeted.error](const AttemptContext& context, SeededRandomSource& random) {
            return hand::decide_rules64<true, &hand::g_mutex_budget>(error, context, random);
        };
    };
    const auto give_mutex = [] { hand::g_mutex_budget.give(); };
    const auto nothing = [] {};
    const auto same_delay = [](const AttemptContext&, const Decision& d, const Decision& engine) {
        return d.delay == engine.delay;
    };
    ok = verify_model(full, "jitter_full/model_clone_per_operation", clone_model(), nothing,
                      in_full_jitter_range) &&
         verify_model(full, "jitter_full/model_clone_getentropy", clone_getentropy_model(), nothing,
                      in_full_jitter_range) &&
         verify_model(full, "jitter_full/model_std_rand", rand_model(), nothing,
                      in_full_jitter_range) &&
         verify_model(budgeted, "rules64_with_budget/model_mutex_quota", mutex_model(), give_mutex,
                      same_delay);
    if (!ok) {
        std::fprintf(stderr, "a model of a well-known design differs from decide(); not run\n");
        return 1;
    }

    for (const Case& c : cases) {
        c.register_benchmarks(c);
        if (&c == &full) {
            register_model(c.name + "/model_clone_per_operation", clone_model, nothing);
            register_model(c.name + "/model_clone_getentropy", clone_getentropy_model, nothing);
            register_model(c.name + "/model_std_rand", rand_model, nothing);
        } else if (&c == &budgeted) {
            register_model(c.name + "/model_mutex_quota", mutex_model, give_mutex);
        }
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

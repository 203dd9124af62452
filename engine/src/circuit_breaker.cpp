#include "rebound/circuit_breaker.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "rebound/internal/rule_index.hpp"
#include "rebound/policy_validation.hpp"
#include "thread_stripe.hpp"
#include "window_bucket.hpp"

namespace rebound {

// The window's bucket words. A bucket's 64-bit word holds a 24-bit tag above a 40-bit count;
// the tag is the bucket's index (time since creation / bucket width) modulo 2^20 and the breaker's
// generation modulo 16. A recorder whose tag differs from the word's starts the bucket afresh
// (compare-and-swap), and a reader counts only words whose tag is that of a bucket in the current
// window and generation. So buckets are rotated without a lock, and a change of state empties the
// window without touching it.
//
// Limits: a bucket untouched for exactly a multiple of 2^20 bucket widths (2.9 hours at the
// smallest, 10ms) could be counted again; a generation 16 changes of state back would have to be
// closed again with a bucket not rewritten since.
//
// Why it scales: outcomes are counted in per-thread stripes (thread_stripe.hpp), so a closed
// breaker's common path, a success, writes only its own stripe's line, without a locked
// instruction when the thread holds the stripe alone, and reads lines that change once per
// bucket. A success needs no trip check when, in the same bucket and generation, the window
// already held minimum_calls calls without tripping (`settled`): within one bucket the window
// only gains outcomes, and a success only lowers the failure share. A check first judges the
// checking stripe's own window and publishes the verdict (`verdict`, rewritten only when it
// changes, so at most once per bucket in a healthy service). When its own share and that of every
// other stripe in use are below the ratio, the window's share is too, being their mediant. Another
// stripe's share is read from its verdict for this bucket, so its counts are not read; only a
// stripe without one (not yet checked in this bucket, or its thread gone) is judged by its counts,
// and only a stripe at or over the ratio makes the check sum every stripe. One thread alone is
// therefore exact without reading other lines, and two threads' checks read each other's counts
// only while one of them is failing.
namespace {

constexpr int kBuckets = 10;
constexpr int kCountBits = 40;
constexpr std::uint64_t kCountMask = (std::uint64_t{1} << kCountBits) - 1;
constexpr std::int64_t kRatioScale = 1'000'000;

constexpr std::uint64_t tag_of(std::int64_t bucket, std::uint64_t generation) noexcept {
    return ((static_cast<std::uint64_t>(bucket) & 0xFFFFF) << 4) | (generation & 0xF);
}

constexpr std::uint64_t count_if_tagged(std::uint64_t word, std::uint64_t tag) noexcept {
    return (word >> kCountBits) == tag ? (word & kCountMask) : 0;
}

// One more in `word` for the bucket `tag`. add_to may race with other writers of the word;
// add_alone is for a word only the calling thread writes: a load and a store, no locked
// instruction.
std::uint64_t incremented(std::uint64_t seen, std::uint64_t tag) noexcept {
    if ((seen >> kCountBits) != tag) {
        return (tag << kCountBits) | 1;
    }
    return (seen & kCountMask) == kCountMask ? seen : seen + 1;  // saturate
}

void add_alone(std::atomic<std::uint64_t>& word, std::uint64_t tag) noexcept {
    word.store(incremented(word.load(std::memory_order_relaxed), tag), std::memory_order_relaxed);
}

void add_to(std::atomic<std::uint64_t>& word, std::uint64_t tag) noexcept {
    std::uint64_t seen = word.load(std::memory_order_relaxed);
    while (!word.compare_exchange_weak(seen, incremented(seen, tag), std::memory_order_seq_cst,
                                       std::memory_order_relaxed)) {
    }
}

constexpr std::uint64_t pack(std::uint64_t generation, BreakerState state) noexcept {
    return (generation << 2) | static_cast<std::uint64_t>(state);
}
constexpr BreakerState state_of(std::uint64_t word) noexcept {
    return static_cast<BreakerState>(word & 3);
}
constexpr std::uint64_t generation_of(std::uint64_t word) noexcept {
    return word >> 2;
}

std::string count_problem(std::string_view setting, std::int64_t low, std::int64_t high,
                          std::int64_t value) {
    return std::string(setting) + " must be between " + std::to_string(low) + " and " +
           std::to_string(high) + ", got " + std::to_string(value);
}

void check_duration(std::vector<BreakerProblem>& out, BreakerSetting setting, std::string_view name,
                    Duration value, Duration low, Duration high) {
    if (value < low || value > high) {
        out.push_back({setting, 0,
                       std::string(name) + " must be between " + format_duration(low) + " and " +
                           format_duration(high) + ", got " + format_duration(value)});
    }
}

}  // namespace

// Everything the hot path reads, fixed for the life of one Compiled.
struct CircuitBreaker::Compiled {
    BreakerSettings settings;
    RuleIndex failures;
    detail::BucketWidth bucket_width;
    std::int64_t failure_ratio_ppm = 0;  // failure_ratio in millionths
};

namespace {

std::uint64_t window_sum(const std::array<std::atomic<std::uint64_t>, kBuckets>& words,
                         std::uint64_t generation, std::int64_t bucket) noexcept {
    std::uint64_t sum = 0;
    for (std::int64_t j = std::max<std::int64_t>(bucket - (kBuckets - 1), 0); j <= bucket; ++j) {
        sum += count_if_tagged(words[static_cast<std::size_t>(j % kBuckets)].load(),
                               tag_of(j, generation));
    }
    return sum;
}

// failures / calls >= the ratio, in integers so that 3 of 30 meets 0.1 exactly (the 128-bit type
// is a GCC and Clang extension).
bool share_reached(std::uint64_t failures, std::uint64_t calls, std::int64_t ratio_ppm) noexcept {
    __extension__ using Wide = unsigned __int128;
    return static_cast<Wide>(failures) * kRatioScale >= static_cast<Wide>(ratio_ppm) * calls;
}

}  // namespace

std::vector<BreakerProblem> validate_breaker(const BreakerSettings& s) {
    using std::chrono::hours;
    using std::chrono::milliseconds;
    std::vector<BreakerProblem> out;
    if (s.trip == BreakerTrip::Ratio) {
        if (!(s.failure_ratio > 0.0 && s.failure_ratio <= 1.0)) {
            out.push_back({BreakerSetting::FailureRatio, 0,
                           "failure_ratio must be above 0 and at most 1, got " +
                               std::to_string(s.failure_ratio)});
        }
        if (s.minimum_calls < 1 || s.minimum_calls > 1'000'000) {
            out.push_back({BreakerSetting::MinimumCalls, 0,
                           count_problem("minimum_calls", 1, 1'000'000, s.minimum_calls)});
        }
        check_duration(out, BreakerSetting::Window, "window", s.window, milliseconds(100),
                       hours(1));
    } else if (s.consecutive_failures < 1 || s.consecutive_failures > 1000) {
        out.push_back({BreakerSetting::ConsecutiveFailures, 0,
                       count_problem("consecutive_failures", 1, 1000, s.consecutive_failures)});
    }
    check_duration(out, BreakerSetting::OpenFor, "open_for", s.open_for, milliseconds(1), hours(1));
    if (s.max_open_for) {
        check_duration(out, BreakerSetting::MaxOpenFor, "max_open_for", *s.max_open_for,
                       std::max(s.open_for, Duration{0}), hours(24));
    }
    if (s.half_open_calls < 1 || s.half_open_calls > 1000) {
        out.push_back({BreakerSetting::HalfOpenCalls, 0,
                       count_problem("half_open_calls", 1, 1000, s.half_open_calls)});
    }
    if (s.slow_call && *s.slow_call <= Duration{0}) {
        out.push_back({BreakerSetting::SlowCall, 0,
                       "slow_call must be above 0, got " + format_duration(*s.slow_call)});
    }
    for (std::size_t i = 0; i < s.failures.size(); ++i) {
        FieldProblems matcher_problems;
        validate_matcher(s.failures[i], PolicyField::RetryOn, i, matcher_problems);
        for (FieldProblem& problem : matcher_problems) {
            out.push_back({BreakerSetting::Failures, i, std::move(problem.message)});
        }
    }
    return out;
}

namespace {

std::string joined(const std::vector<BreakerProblem>& problems, std::string_view name) {
    std::string message = "invalid circuit breaker '" + std::string(name) + "':";
    for (const BreakerProblem& problem : problems) {
        message += "\n  " + problem.message;
    }
    return message;
}

}  // namespace

std::unique_ptr<const CircuitBreaker::Compiled> CircuitBreaker::compile(
    BreakerSettings settings, const ErrorTypeRegistry* error_types) {
    if (const auto problems = validate_breaker(settings); !problems.empty()) {
        throw std::invalid_argument(joined(problems, settings.name));
    }
    auto compiled = std::make_unique<CircuitBreaker::Compiled>();
    compiled->failures = RuleIndex::compile({}, settings.failures, error_types);
    compiled->bucket_width = detail::BucketWidth::of(settings.window.count() / kBuckets);
    compiled->failure_ratio_ppm =
        std::llround(settings.failure_ratio * static_cast<double>(kRatioScale));
    compiled->settings = std::move(settings);
    return compiled;
}

CircuitBreaker::CircuitBreaker(BreakerSettings settings, TimePoint created,
                               const ErrorTypeRegistry* error_types)
    : name_(settings.name), created_(created) {
    static_assert(kExclusiveCallStripes == detail::kThreadStripes);
    compiled_.push_back(compile(std::move(settings), error_types));
    active_.store(compiled_.back().get(), std::memory_order_release);
    open_period_ = compiled_.back()->settings.open_for;
}

CircuitBreaker::~CircuitBreaker() = default;

const BreakerSettings& CircuitBreaker::settings() const noexcept {
    return active_.load(std::memory_order_acquire)->settings;
}

std::int64_t CircuitBreaker::bucket_of(const Compiled& compiled, TimePoint now) const noexcept {
    return detail::bucket_index(since_creation(now), compiled.bucket_width);
}

std::uint64_t CircuitBreaker::window_total(WindowWords CallStripe::*counts,
                                           std::uint64_t generation,
                                           std::int64_t bucket) const noexcept {
    std::uint64_t total = 0;
    for (std::uint32_t used = stripes_used_.load(); used != 0; used &= used - 1) {
        const auto stripe = static_cast<std::size_t>(std::countr_zero(used));
        total += window_sum(call_stripes_[stripe].*counts, generation, bucket);
    }
    return total;
}

bool CircuitBreaker::other_stripes_below_ratio(const Compiled& compiled, std::size_t stripe,
                                               std::uint64_t generation,
                                               std::int64_t bucket) const noexcept {
    const std::uint64_t below = tag_of(bucket, generation) << 1;
    const std::uint32_t others =
        stripes_used_.load(std::memory_order_relaxed) & ~(std::uint32_t{1} << stripe);
    for (std::uint32_t used = others; used != 0; used &= used - 1) {
        const CallStripe& counts = call_stripes_[static_cast<std::size_t>(std::countr_zero(used))];
        const std::uint64_t verdict = counts.verdict.load(std::memory_order_relaxed);
        if (verdict == below) {
            continue;
        }
        if (verdict == (below | 1)) {
            return false;
        }
        // No verdict for this bucket: a thread that has not checked since it began, one that has
        // exited, or the shared stripe. Its own counts decide; the first two seldom write them.
        const std::uint64_t calls = window_sum(counts.calls, generation, bucket);
        if (calls != 0 && share_reached(window_sum(counts.failures, generation, bucket), calls,
                                        compiled.failure_ratio_ppm)) {
            return false;
        }
    }
    return true;
}

bool CircuitBreaker::ratio_tripped(const Compiled& compiled, std::uint64_t generation,
                                   std::int64_t bucket, std::size_t stripe) noexcept {
    const auto minimum = static_cast<std::uint64_t>(compiled.settings.minimum_calls);
    const std::uint64_t tag = tag_of(bucket, generation);
    CallStripe& own = call_stripes_[stripe];
    const std::uint64_t own_calls = window_sum(own.calls, generation, bucket);
    const bool own_hot = share_reached(window_sum(own.failures, generation, bucket), own_calls,
                                       compiled.failure_ratio_ppm);
    if (stripe != kSharedCallStripe) {
        const std::uint64_t verdict = tag << 1 | (own_hot ? 1 : 0);
        if (own.verdict.load(std::memory_order_relaxed) != verdict) {
            own.verdict.store(verdict, std::memory_order_relaxed);
        }
    }
    if (!own_hot && other_stripes_below_ratio(compiled, stripe, generation, bucket)) {
        // Every stripe's share is below the ratio, so the window's is too (it is their mediant),
        // whatever the number of calls: no other stripe's counts need be read.
        if (own_calls >= minimum ||
            window_total(&CallStripe::calls, generation, bucket) >= minimum) {
            own.settled.store(tag, std::memory_order_relaxed);
        }
        return false;
    }
    const std::uint64_t calls = window_total(&CallStripe::calls, generation, bucket);
    if (calls < minimum) {
        return false;
    }
    if (share_reached(window_total(&CallStripe::failures, generation, bucket), calls,
                      compiled.failure_ratio_ppm)) {
        return true;
    }
    own.settled.store(tag, std::memory_order_relaxed);
    return false;
}

std::int64_t CircuitBreaker::since_creation(TimePoint now) const noexcept {
    return std::max<std::int64_t>(std::chrono::duration_cast<Duration>(now - created_).count(), 0);
}

// An open breaker's answer at `now` while its period lasts: refused, with the time left as the
// hint (none when isolated: the period never ends); nullopt once the period is over.
std::optional<BreakerPermit> CircuitBreaker::refusal_while_open(TimePoint now) noexcept {
    const std::int64_t since = since_creation(now);
    const std::int64_t until = open_until_us_.load(std::memory_order_acquire);
    if (since >= until) {
        return std::nullopt;
    }
    refused_.fetch_add(1, std::memory_order_relaxed);
    if (until == kDurationInfinity.count()) {
        return BreakerPermit{};
    }
    return BreakerPermit{false, Duration{until - since}, 0};
}

BreakerPermit CircuitBreaker::acquire(TimePoint now) noexcept {
    const std::uint64_t word = state_word_.load(std::memory_order_acquire);
    if (state_of(word) == BreakerState::Closed) {
        return BreakerPermit{true, std::nullopt, generation_of(word)};
    }
    if (state_of(word) == BreakerState::Open) {
        if (const auto refused = refusal_while_open(now)) {
            return *refused;
        }
    }
    const std::lock_guard lock(mutex_);
    std::uint64_t current = state_word_.load(std::memory_order_relaxed);
    if (state_of(current) == BreakerState::Closed) {
        return BreakerPermit{true, std::nullopt, generation_of(current)};
    }
    if (state_of(current) == BreakerState::Open) {
        if (const auto refused = refusal_while_open(now)) {
            return *refused;
        }
        // half_open_in_use_ keeps the probes of earlier half-open states still in flight.
        half_open_successes_ = 0;
        set_state_locked(BreakerState::HalfOpen);
        current = state_word_.load(std::memory_order_relaxed);
    }
    const int allowed = active_.load(std::memory_order_relaxed)->settings.half_open_calls;
    if (half_open_in_use_ < allowed) {
        ++half_open_in_use_;
        return BreakerPermit{true, std::nullopt, generation_of(current), BreakerState::HalfOpen};
    }
    refused_.fetch_add(1, std::memory_order_relaxed);
    return BreakerPermit{};
}

bool CircuitBreaker::counts_as_failure(const ErrorDescription& error) const noexcept {
    return active_.load(std::memory_order_acquire)->failures.find(error).retry_on !=
           RuleMatch::kNone;
}

void CircuitBreaker::record_success(const BreakerPermit& permit, Duration took,
                                    TimePoint now) noexcept {
    const auto& slow_call = active_.load(std::memory_order_acquire)->settings.slow_call;
    record(permit, slow_call && took > *slow_call ? Outcome::Failure : Outcome::Success, now);
}

void CircuitBreaker::record_error(const BreakerPermit& permit, const ErrorDescription& error,
                                  TimePoint now) noexcept {
    record(permit, counts_as_failure(error) ? Outcome::Failure : Outcome::Ignored, now);
}

void CircuitBreaker::release(const BreakerPermit& permit, TimePoint now) noexcept {
    record(permit, Outcome::Ignored, now);
}

void CircuitBreaker::record(const BreakerPermit& permit, Outcome outcome, TimePoint now) noexcept {
    if (!permit.admitted) {
        return;
    }
    const std::uint64_t word = state_word_.load(std::memory_order_acquire);
    if (generation_of(word) != permit.generation) {
        // Admitted by an earlier state: says nothing about the dependency now. A probe of an
        // earlier half-open state still held its place among half_open_calls until now.
        if (permit.admitted_in == BreakerState::HalfOpen) {
            const std::lock_guard lock(mutex_);
            release_earlier_probe_locked(permit.generation);
        }
        return;
    }
    if (state_of(word) == BreakerState::Closed) {
        record_closed(permit.generation, outcome, now);
    } else if (state_of(word) == BreakerState::HalfOpen) {
        record_half_open(permit.generation, outcome, now);
    }
}

void CircuitBreaker::record_closed(std::uint64_t generation, Outcome outcome,
                                   TimePoint now) noexcept {
    if (outcome == Outcome::Ignored) {
        return;
    }
    const Compiled& compiled = *active_.load(std::memory_order_acquire);
    bool tripped = false;
    if (compiled.settings.trip == BreakerTrip::Consecutive) {
        if (outcome == Outcome::Success) {
            if (consecutive_.load(std::memory_order_relaxed) != 0) {
                consecutive_.store(0, std::memory_order_relaxed);
            }
            return;
        }
        const std::uint64_t run = consecutive_.fetch_add(1, std::memory_order_relaxed) + 1;
        tripped = run >= static_cast<std::uint64_t>(compiled.settings.consecutive_failures);
    } else {
        const std::int64_t bucket = bucket_of(compiled, now);
        const auto slot = static_cast<std::size_t>(bucket % kBuckets);
        const std::uint64_t tag = tag_of(bucket, generation);
        const detail::ThreadStripe thread_stripe = detail::this_thread_stripe();
        const std::size_t stripe =
            thread_stripe.exclusive ? thread_stripe.index : kSharedCallStripe;
        CallStripe& counts = call_stripes_[stripe];
        if (const std::uint32_t bit = std::uint32_t{1} << stripe;
            (stripes_used_.load(std::memory_order_relaxed) & bit) == 0) {
            stripes_used_.fetch_or(bit);  // before the counts, so that every sum sees them
        }
        const auto add = thread_stripe.exclusive ? &add_alone : &add_to;
        add(counts.calls[slot], tag);
        if (outcome == Outcome::Failure) {
            add(counts.failures[slot], tag);
        } else if (counts.settled.load(std::memory_order_relaxed) == tag) {
            return;
        }
        tripped = ratio_tripped(compiled, generation, bucket, stripe);
    }
    if (!tripped) {
        return;
    }
    const std::lock_guard lock(mutex_);
    const std::uint64_t current = state_word_.load(std::memory_order_relaxed);
    if (current == pack(generation, BreakerState::Closed)) {
        open_locked(now, active_.load(std::memory_order_relaxed)->settings.open_for);
    }
}

void CircuitBreaker::record_half_open(std::uint64_t generation, Outcome outcome,
                                      TimePoint now) noexcept {
    const std::lock_guard lock(mutex_);
    if (state_word_.load(std::memory_order_relaxed) != pack(generation, BreakerState::HalfOpen)) {
        release_earlier_probe_locked(generation);  // the state changed since record() looked
        return;
    }
    half_open_in_use_ = std::max(half_open_in_use_ - 1, 0);
    const BreakerSettings& settings = active_.load(std::memory_order_relaxed)->settings;
    if (outcome == Outcome::Failure) {
        open_locked(now, std::min(saturating_add(open_period_, open_period_),
                                  settings.effective_max_open_for()));
    } else if (outcome == Outcome::Success && ++half_open_successes_ >= settings.half_open_calls) {
        close_locked();
    }
}

void CircuitBreaker::open_locked(TimePoint now, Duration period) noexcept {
    open_period_ = period;
    open_until_us_.store(saturating_add(Duration{since_creation(now)}, period).count(),
                         std::memory_order_release);
    set_state_locked(BreakerState::Open);
}

void CircuitBreaker::release_earlier_probe_locked(std::uint64_t generation) noexcept {
    if (generation >= probes_counted_since_ && half_open_in_use_ > 0) {
        --half_open_in_use_;
    }
}

void CircuitBreaker::close_locked() noexcept {
    consecutive_.store(0, std::memory_order_relaxed);
    half_open_successes_ = 0;
    set_state_locked(BreakerState::Closed);
    open_period_ = active_.load(std::memory_order_relaxed)->settings.open_for;
}

void CircuitBreaker::set_state_locked(BreakerState state) noexcept {
    apply_pending_locked();
    const std::uint64_t word = state_word_.load(std::memory_order_relaxed);
    state_word_.store(pack(generation_of(word) + 1, state), std::memory_order_release);
    transitions_to_[static_cast<std::size_t>(state)].fetch_add(1, std::memory_order_relaxed);
    if (listener_) {
        BreakerTransition transition;
        transition.breaker = name_;
        transition.from = state_of(word);
        transition.to = state;
        transition.isolated = isolated_;
        transition.open_for =
            state == BreakerState::Open && !isolated_ ? open_period_ : Duration{0};
        listener_(transition);
    }
}

void CircuitBreaker::set_transition_listener(BreakerTransitionListener listener) {
    const std::lock_guard lock(mutex_);
    listener_ = std::move(listener);
}

void CircuitBreaker::apply_pending_locked() noexcept {
    if (pending_) {
        compiled_.push_back(std::move(pending_));
        active_.store(compiled_.back().get(), std::memory_order_release);
    }
}

void CircuitBreaker::isolate() noexcept {
    const std::lock_guard lock(mutex_);
    isolated_ = true;
    open_until_us_.store(kDurationInfinity.count(), std::memory_order_release);
    set_state_locked(BreakerState::Open);
}

void CircuitBreaker::reset() noexcept {
    const std::lock_guard lock(mutex_);
    isolated_ = false;
    close_locked();
    // Forgets the probes in flight: an operator's reset also frees permits that were never given
    // back.
    half_open_in_use_ = 0;
    probes_counted_since_ = generation_of(state_word_.load(std::memory_order_relaxed));
}

void CircuitBreaker::update_settings(BreakerSettings settings,
                                     const ErrorTypeRegistry* error_types) {
    auto compiled = compile(std::move(settings), error_types);
    const std::lock_guard lock(mutex_);
    pending_ = std::move(compiled);
}

BreakerSnapshot CircuitBreaker::snapshot(TimePoint now) const noexcept {
    const std::lock_guard lock(mutex_);
    const Compiled& compiled = *active_.load(std::memory_order_relaxed);
    const std::uint64_t word = state_word_.load(std::memory_order_relaxed);
    BreakerSnapshot out;
    out.state = state_of(word);
    out.isolated = isolated_;
    if (compiled.settings.trip == BreakerTrip::Ratio && out.state == BreakerState::Closed) {
        const std::int64_t bucket = bucket_of(compiled, now);
        out.calls_in_window = window_total(&CallStripe::calls, generation_of(word), bucket);
        out.failures_in_window = window_total(&CallStripe::failures, generation_of(word), bucket);
    }
    out.consecutive_failures = consecutive_.load(std::memory_order_relaxed);
    out.half_open_permits_in_use = half_open_in_use_;
    if (out.state == BreakerState::Open && !isolated_) {
        out.until_half_open = Duration{std::max<std::int64_t>(
            open_until_us_.load(std::memory_order_relaxed) - since_creation(now), 0)};
    }
    out.open_period = open_period_;
    out.refused = refused_.load(std::memory_order_relaxed);
    for (std::size_t i = 0; i < out.transitions_to.size(); ++i) {
        out.transitions_to[i] = transitions_to_[i].load(std::memory_order_relaxed);
    }
    return out;
}

}  // namespace rebound

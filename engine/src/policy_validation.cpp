#include "rebound/policy_validation.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <system_error>

#include "rebound/error_type_registry.hpp"

namespace rebound {
namespace {

constexpr double kMinTokenRatio = 0.001;
constexpr double kMaxTokenRatio = 1000.0;
constexpr double kMaxMultiplier = 100.0;

void report(FieldProblems& out, PolicyField field, std::size_t index, std::string message,
            ProblemKind kind = ProblemKind::OutOfRange) {
    out.push_back(FieldProblem{field, index, std::move(message), kind});
}

void report(FieldProblems& out, PolicyField field, std::string message,
            ProblemKind kind = ProblemKind::OutOfRange) {
    report(out, field, 0, std::move(message), kind);
}

void report_invalid(FieldProblems& out, PolicyField field, std::size_t index, std::string message) {
    report(out, field, index, std::move(message), ProblemKind::InvalidValue);
}

void check_count(FieldProblems& out, PolicyField field, std::int64_t value) {
    if (std::string problem = count_range_problem(field, value); !problem.empty()) {
        report(out, field, std::move(problem));
    }
}

// The shortest text that reads back as `value`: a multiplier of 100.0001 is not shown as "100"
// next to "at most 100".
std::string format_number(double value) {
    std::array<char, 32> text{};
    const auto [end, error] = std::to_chars(text.data(), text.data() + text.size(), value);
    return error == std::errc{} ? std::string(text.data(), end) : std::string("?");
}

bool is_code_character(char c) {
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

bool is_code(std::string_view text, std::size_t length) {
    if (text.size() != length) {
        return false;
    }
    for (const char c : text) {
        if (!is_code_character(c)) {
            return false;
        }
    }
    return true;
}

}  // namespace

std::string format_duration(Duration d) {
    using std::chrono::hours;
    using std::chrono::milliseconds;
    using std::chrono::minutes;
    using std::chrono::seconds;
    const std::int64_t us = d.count();
    const std::string sign = us < 0 ? "-" : "";
    const std::int64_t magnitude = us < 0 ? -us : us;
    struct Unit {
        std::int64_t size;
        const char* suffix;
    };
    constexpr Unit kUnits[] = {
        {Duration(hours(1)).count(), "h"},
        {Duration(minutes(1)).count(), "m"},
        {Duration(seconds(1)).count(), "s"},
        {Duration(milliseconds(1)).count(), "ms"},
    };
    if (magnitude == 0) {
        return "0ms";
    }
    for (const Unit& unit : kUnits) {
        if (magnitude % unit.size == 0) {
            return sign + std::to_string(magnitude / unit.size) + unit.suffix;
        }
    }
    return sign + std::to_string(magnitude) + "us";
}

std::string count_range_problem(PolicyField field, std::int64_t value) {
    const PolicyFieldInfo& info = info_of(field);
    if (value >= info.min && value <= info.max) {
        return {};
    }
    return std::string(info.wire_name) + " must be between " + std::to_string(info.min) + " and " +
           std::to_string(info.max) + ", got " + std::to_string(value);
}

void validate_duration(Duration value, PolicyField field, std::size_t index, bool must_be_positive,
                       FieldProblems& out) {
    const std::string path = field_path(field, index);
    if (value < Duration::zero()) {
        report(out, field, index, path + " must not be negative, got " + format_duration(value));
    } else if (must_be_positive && value == Duration::zero()) {
        report(out, field, index, path + " must be greater than 0");
    } else if (value > kMaxPolicyDuration) {
        report(out, field, index,
               path + " of " + format_duration(value) + " exceeds the limit of 30 days (720h)");
    }
}

void validate_backoff(const Backoff& backoff, FieldProblems& out) {
    switch (backoff.type) {
        case BackoffType::None:
            return;
        case BackoffType::Fixed:
            validate_duration(backoff.delay, PolicyField::BackoffDelay, 0, false, out);
            return;
        case BackoffType::Linear:
            validate_duration(backoff.increment, PolicyField::BackoffIncrement, 0, false, out);
            break;
        case BackoffType::Exponential:
            if (!(backoff.multiplier > 1.0 && backoff.multiplier <= kMaxMultiplier)) {
                report(out, PolicyField::BackoffMultiplier,
                       "multiplier must be greater than 1.0 and at most 100, got " +
                           format_number(backoff.multiplier));
            }
            break;
    }
    const std::size_t before = out.size();
    validate_duration(backoff.initial, PolicyField::BackoffInitial, 0, false, out);
    validate_duration(backoff.max, PolicyField::BackoffMax, 0, false, out);
    if (out.size() == before && backoff.max < backoff.initial) {
        report(out, PolicyField::BackoffMax,
               "max (" + format_duration(backoff.max) + ") is below initial (" +
                   format_duration(backoff.initial) + ")",
               ProblemKind::Inconsistent);
    }
}

void validate_jitter(const Jitter& jitter, const Backoff& backoff, FieldProblems& out) {
    switch (jitter.type) {
        case JitterType::Bounded:
            validate_duration(jitter.amount, PolicyField::JitterAmount, 0, false, out);
            break;
        case JitterType::Proportional:
            if (!(jitter.factor > 0.0 && jitter.factor <= 1.0)) {
                report(out, PolicyField::JitterFactor,
                       "proportional jitter factor must be greater than 0 and at most 1, got " +
                           format_number(jitter.factor));
            }
            break;
        case JitterType::Decorrelated:
            if (!backoff.has_initial()) {
                report(out, PolicyField::Jitter,
                       "decorrelated jitter needs a backoff with an initial delay (linear or "
                       "exponential), not '" +
                           std::string(to_string(backoff.type)) + "'",
                       ProblemKind::Inconsistent);
            }
            break;
        case JitterType::None:
        case JitterType::Full:
        case JitterType::Equal:
            break;
    }
}

void validate_matcher(const Matcher& matcher, PolicyField list, std::size_t index,
                      FieldProblems& out) {
    switch (matcher.kind) {
        case MatcherKind::Category:
        case MatcherKind::TransientGroup:
            return;
        case MatcherKind::SqlState:
            if (!is_code(matcher.text, 5)) {
                report_invalid(
                    out, list, index,
                    "a SQLSTATE is 5 letters or digits, such as 40001, got '" + matcher.text + "'");
            }
            return;
        case MatcherKind::SqlStateClass:
            if (!is_code(matcher.text, 2)) {
                report_invalid(out, list, index,
                               "a SQLSTATE class is 2 letters or digits, such as 08, got '" +
                                   matcher.text + "'");
            }
            return;
        case MatcherKind::VendorNative:
            if (matcher.vendor == Vendor::Generic) {
                report_invalid(out, list, index,
                               "native codes need a specific vendor, not 'generic'");
            }
            return;
        case MatcherKind::ErrorType:
            if (!is_valid_name(matcher.text)) {
                report_invalid(
                    out, list, index,
                    "error type names match [A-Za-z_][A-Za-z0-9_.-]*, got '" + matcher.text + "'");
            }
            return;
        case MatcherKind::HttpStatus:
            if (matcher.http < 100 || matcher.http > 599) {
                report_invalid(
                    out, list, index,
                    "HTTP status must be between 100 and 599, got " + std::to_string(matcher.http));
            }
            return;
        case MatcherKind::HttpClass:
            if (matcher.http < 1 || matcher.http > 5) {
                report_invalid(out, list, index,
                               "HTTP status class must be 1xx to 5xx, got " +
                                   std::to_string(matcher.http) + "xx");
            }
            return;
        case MatcherKind::GrpcStatus:
            return;  // every GrpcStatus value is a status
        case MatcherKind::Message:
            if (matcher.text.empty()) {
                report_invalid(out, list, index, "a message matcher needs non-empty text");
            }
            return;
    }
}

void validate_budget(const BudgetSettings& budget, FieldProblems& out) {
    check_count(out, PolicyField::BudgetMaxTokens, budget.max_tokens);
    if (!(budget.token_ratio >= kMinTokenRatio && budget.token_ratio <= kMaxTokenRatio)) {
        report(
            out, PolicyField::BudgetTokenRatio,
            "token_ratio must be between 0.001 and 1000, got " + format_number(budget.token_ratio));
    } else if (const double milli = budget.token_ratio * 1000.0;
               std::abs(milli - std::round(milli)) > 1e-6) {
        report(out, PolicyField::BudgetTokenRatio,
               "token_ratio has at most 3 decimals, got " + format_number(budget.token_ratio));
    }
}

void validate_server_delay(const ServerDelaySettings& settings, FieldProblems& out) {
    validate_duration(settings.cap, PolicyField::ServerDelayCap, 0, true, out);
    if (!(settings.spread >= 0.0 && settings.spread <= 1.0)) {
        report(out, PolicyField::ServerDelaySpread,
               "spread must be between 0 and 1, got " + format_number(settings.spread));
    }
}

void validate_hedge(const HedgeSettings& hedge, FieldProblems& out) {
    if (hedge.fixed_delay.has_value() == hedge.learned.has_value()) {
        report(out, PolicyField::HedgeDelay,
               hedge.fixed_delay ? "a hedge has a fixed or a learned delay, not both"
                                 : "a hedge needs a delay: a duration such as 20ms, or "
                                   "{ quantile: 95%, min: 2ms, max: 250ms }",
               ProblemKind::InvalidValue);
    }
    if (hedge.fixed_delay) {
        validate_duration(*hedge.fixed_delay, PolicyField::HedgeDelay, 0, true, out);
    }
    if (hedge.learned) {
        const LearnedHedgeDelay& learned = *hedge.learned;
        if (!(learned.quantile > 0.0 && learned.quantile < 1.0)) {
            report(out, PolicyField::HedgeQuantile,
                   "the hedge quantile must be above 0% and below 100%, got " +
                       format_number(learned.quantile * 100.0) + "%");
        }
        const std::size_t before = out.size();
        validate_duration(learned.min, PolicyField::HedgeMin, 0, false, out);
        validate_duration(learned.max, PolicyField::HedgeMax, 0, false, out);
        if (out.size() == before && learned.max <= learned.min) {
            report(out, PolicyField::HedgeMax,
                   "the hedge delay's max (" + format_duration(learned.max) +
                       ") must be above its min (" + format_duration(learned.min) + ")",
                   ProblemKind::Inconsistent);
        }
    }
    if (!(hedge.max_extra_load > 0.0 && hedge.max_extra_load <= 1.0)) {
        report(out, PolicyField::HedgeMaxExtraLoad,
               "max_extra_load must be above 0% and at most 100%, got " +
                   format_number(hedge.max_extra_load * 100.0) + "%");
    }
    check_count(out, PolicyField::HedgeBurst, hedge.burst);
    const auto learned_only = [&](PolicyField field) {
        report(out, field,
               std::string(info_of(field).wire_name) +
                   " applies to a learned delay only, not to a fixed delay",
               ProblemKind::Conflict);
    };
    if (hedge.window) {
        if (hedge.fixed_delay) {
            learned_only(PolicyField::HedgeWindow);
        } else if (*hedge.window < std::chrono::seconds(1) ||
                   *hedge.window > std::chrono::hours(1)) {
            report(out, PolicyField::HedgeWindow,
                   "window must be between 1s and 1h, got " + format_duration(*hedge.window));
        }
    }
    if (hedge.warmup) {
        if (hedge.fixed_delay) {
            learned_only(PolicyField::HedgeWarmup);
        } else {
            check_count(out, PolicyField::HedgeWarmup, *hedge.warmup);
        }
    }
}

namespace {

constexpr int kMinHedgedAttempts = 2;
constexpr int kMaxHedgedAttempts = 10;

// A hedging policy: its own values, its attempts, and the fields of retrying it must not have
// (backoff and jitter, whose presence only the file shows, are the file compiler's).
void validate_hedging_policy(const PolicySpec& spec, FieldProblems& out) {
    validate_hedge(*spec.hedge, out);
    if (spec.max_attempts >= info_of(PolicyField::MaxAttempts).min &&
        spec.max_attempts <= info_of(PolicyField::MaxAttempts).max &&
        (spec.max_attempts < kMinHedgedAttempts || spec.max_attempts > kMaxHedgedAttempts)) {
        report(out, PolicyField::MaxAttempts,
               "max_attempts must be between 2 and 10 with a hedge, got " +
                   std::to_string(spec.max_attempts));
    }
    if (!spec.routes.empty()) {
        report(out, PolicyField::Routes,
               "a policy with a hedge has no routes: hedges are not retries sent elsewhere",
               ProblemKind::Conflict);
    }
    if (spec.min_attempt_budget != Duration::zero()) {
        report(out, PolicyField::MinAttemptBudget,
               "a policy with a hedge has no min_attempt_budget: hedges are not spaced by a "
               "backoff",
               ProblemKind::Conflict);
    }
}

}  // namespace

FieldProblems validate_policy(const PolicySpec& spec, const PredicateRegistry* predicates) {
    FieldProblems out;
    if (!is_valid_name(spec.name)) {
        report(out, PolicyField::Name,
               "policy names match [A-Za-z_][A-Za-z0-9_.-]*, got '" + spec.name + "'",
               ProblemKind::InvalidName);
    }
    check_count(out, PolicyField::MaxAttempts, spec.max_attempts);
    validate_backoff(spec.backoff, out);
    validate_jitter(spec.jitter, spec.backoff, out);
    for (const PolicyFieldInfo& field : policy_fields()) {  // deadline, min_attempt_budget, ...
        if (field.in_spec.duration.get != nullptr) {
            if (const std::optional<Duration> value = field.in_spec.duration.get(spec)) {
                validate_duration(*value, field.id, 0, field.in_spec.duration.positive, out);
            }
        }
    }
    for (std::size_t i = 0; i < spec.retry_on.size(); ++i) {
        validate_matcher(spec.retry_on[i], PolicyField::RetryOn, i, out);
    }
    for (std::size_t i = 0; i < spec.never_retry_on.size(); ++i) {
        validate_matcher(spec.never_retry_on[i], PolicyField::NeverRetryOn, i, out);
    }
    for (std::size_t i = 0; i < spec.retry_if.size(); ++i) {
        const std::string& name = spec.retry_if[i];
        if (!is_valid_name(name)) {
            report(out, PolicyField::RetryIf, i,
                   "predicate names match [A-Za-z_][A-Za-z0-9_.-]*, got '" + name + "'",
                   ProblemKind::InvalidName);
        } else if (predicates != nullptr && predicates->find(name) == nullptr) {
            report(out, PolicyField::RetryIf, i,
                   "unknown predicate '" + name + "': register it in code first",
                   ProblemKind::UnknownPredicate);
        }
    }
    if (spec.budget) {
        validate_budget(*spec.budget, out);
    }
    for (std::size_t i = 0; i < spec.routes.size(); ++i) {
        const Route& route = spec.routes[i];
        validate_duration(route.up_to, PolicyField::RouteUpTo, i, false, out);
        // A target names a queue or topic: a name like a policy's, never free text.
        if (route.target.empty()) {
            report_invalid(out, PolicyField::RouteTarget, i, "a route needs a non-empty target");
        } else if (!is_valid_name(route.target)) {
            report(out, PolicyField::RouteTarget, i,
                   "route targets are names that match [A-Za-z_][A-Za-z0-9_.-]*, got '" +
                       route.target + "'",
                   ProblemKind::InvalidName);
        }
        if (i > 0 && route.up_to <= spec.routes[i - 1].up_to) {
            report(
                out, PolicyField::RouteUpTo, i,
                "route up_to values must be strictly increasing: " + format_duration(route.up_to) +
                    " follows " + format_duration(spec.routes[i - 1].up_to),
                ProblemKind::RouteOrder);
        }
    }
    validate_server_delay(spec.server_delay, out);
    if (!spec.breaker.empty() && !is_valid_name(spec.breaker)) {
        report(out, PolicyField::Breaker,
               "breaker names match [A-Za-z_][A-Za-z0-9_.-]*, got '" + spec.breaker + "'",
               ProblemKind::InvalidName);
    }
    if (spec.hedge) {
        validate_hedging_policy(spec, out);
    }
    return out;
}

}  // namespace rebound

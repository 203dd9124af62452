// Helpers shared by the rule sources: positions of resolved fields, numbers in messages, and
// facts about matchers.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../policy_file.hpp"
#include "rebound/duration.hpp"
#include "rebound/matcher.hpp"
#include "rebound/policy_validation.hpp"
#include "rebound/retry_schedule.hpp"

namespace rebound::lint::rules {

// The position of a field's text, else `fallback`.
template <typename T>
SourcePosition position_or(const dsl::Field<T>& field, SourcePosition fallback) {
    return field ? field->position : fallback;
}

inline SourcePosition jitter_position(const ResolvedPolicy& p) {
    return p.fields.jitter ? p.fields.jitter->position : p.name_position();
}

inline SourcePosition backoff_position(const ResolvedPolicy& p) {
    return p.fields.backoff ? p.fields.backoff->position : p.name_position();
}

inline SourcePosition attempts_position(const ResolvedPolicy& p) {
    if (const dsl::Field<std::int64_t> attempts = p.fields.count(PolicyField::MaxAttempts)) {
        return attempts->position;
    }
    return position_or(p.fields.count(PolicyField::MaxRetries), p.name_position());
}

// True when the attempts of `p` after the first wait out its backoff: more than one attempt and
// no `hedge`. A hedging policy starts its attempts on its hedge delay instead (docs/hedging.md),
// so the rules about backoff waits and the retry schedule skip it; RB342..RB346 check it.
inline bool retries_after_backoff(const ResolvedPolicy& p) {
    return p.spec().max_attempts >= 2 && !p.spec().hedge;
}

// "250ms", "31.5s", "2m 5s", "1h 54m 55s": readable, exact below one minute.
std::string duration_text(Duration d);

// "0.1", "2", "1.5": a factor without trailing zeros.
std::string number_text(double value);

// "retry" / "retries".
inline std::string count_of(std::size_t n, std::string_view one, std::string_view many) {
    return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

// "100ms, 200ms, 400ms" (at most `limit` values, then "...").
std::string duration_list(const std::vector<Duration>& values, std::size_t limit = 6);

// ASCII case-insensitive equality (SQLSTATEs).
bool equals_ignoring_case(std::string_view a, std::string_view b);

// A retry_on entry together with the position of its text.
struct LocatedMatcher {
    const Matcher* matcher = nullptr;
    SourcePosition position;
};

// The resolved retry_on / never_retry_on entries with positions (the fallback for entries
// without text, which compiled files do not have, is the policy name).
std::vector<LocatedMatcher> retry_on_entries(const ResolvedPolicy& p);
std::vector<LocatedMatcher> never_retry_on_entries(const ResolvedPolicy& p);

// The retry_on entries of `p` that name `category` and that no never_retry_on entry excludes;
// none when `p` makes a single attempt.
std::vector<LocatedMatcher> retried_category_entries(const ResolvedPolicy& p,
                                                     ErrorCategory category);

// True when every error `include` matches is also matched by `exclude`.
bool covers(const Matcher& exclude, const Matcher& include);

// True when some never_retry_on entry of `p` covers `include`.
bool excluded(const ResolvedPolicy& p, const Matcher& include);

// "'deadlock'", "SQLSTATE class 23", "SQLSTATE 40001", "'native:mysql:1213'": for messages.
std::string describe(const Matcher& m);

// How many retries can start inside the deadline (all of them without one).
std::size_t reachable_retries(const std::vector<ScheduleRow>& schedule);

// The rows of the retries that can start inside the deadline (a prefix of the schedule).
std::vector<ScheduleRow> reachable_rows(const std::vector<ScheduleRow>& schedule);

// The mean delay of a retry after jitter and clamping: every draw is uniform over [min, max].
// For decorrelated jitter the row holds the widest bounds, so this is an upper estimate.
inline Duration mean_delay(const ScheduleRow& row) noexcept {
    return Duration{row.min.count() / 2 + row.max.count() / 2 +
                    (row.min.count() % 2 + row.max.count() % 2) / 2};
}

// "0-3ms" for a range, "50ms" for a single value.
std::string delay_range_text(const ScheduleRow& row);

}  // namespace rebound::lint::rules

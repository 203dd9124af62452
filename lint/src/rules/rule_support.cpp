#include "rule_support.hpp"

#include <cmath>

namespace rebound::lint::rules {
namespace {

std::vector<LocatedMatcher> entries(const std::vector<Matcher>& matchers,
                                    const std::optional<dsl::ListNode<dsl::Located<Matcher>>>& list,
                                    SourcePosition fallback) {
    std::vector<LocatedMatcher> out;
    out.reserve(matchers.size());
    for (std::size_t i = 0; i < matchers.size(); ++i) {
        SourcePosition position = fallback;
        if (list && i < list->items.size()) {
            position = list->items[i].position;
        }
        out.push_back(LocatedMatcher{&matchers[i], position});
    }
    return out;
}

// `value` with up to three decimals, trailing zeros dropped.
std::string decimal(std::int64_t whole, std::int64_t thousandths) {
    std::string text = std::to_string(whole);
    if (thousandths != 0) {
        std::string fraction = std::to_string(1000 + thousandths).substr(1);
        while (fraction.back() == '0') {
            fraction.pop_back();
        }
        text += "." + fraction;
    }
    return text;
}

}  // namespace

std::string number_text(double value) {
    const auto thousandths = static_cast<std::int64_t>(std::llround(value * 1000.0));
    return decimal(thousandths / 1000, thousandths % 1000);
}

std::string duration_text(Duration d) {
    constexpr std::int64_t kMs = 1000;
    constexpr std::int64_t kSecond = 1000 * kMs;
    constexpr std::int64_t kMinute = 60 * kSecond;
    constexpr std::int64_t kHour = 60 * kMinute;
    const std::int64_t us = d.count() < 0 ? 0 : d.count();
    if (us == 0) {
        return "0ms";
    }
    if (us < kMs) {
        return std::to_string(us) + "us";
    }
    if (us < kSecond) {
        return decimal(us / kMs, us % kMs) + "ms";
    }
    if (us < kMinute) {
        return decimal(us / kSecond, (us % kSecond) / kMs) + "s";
    }
    const std::int64_t seconds = (us + kSecond / 2) / kSecond;
    std::string text;
    if (us >= kHour) {
        text = std::to_string(seconds / 3600) + "h";
    }
    const std::int64_t minutes = (seconds / 60) % 60;
    const std::int64_t rest = seconds % 60;
    if (minutes != 0 || us < kHour) {
        text += (text.empty() ? "" : " ") + std::to_string(minutes) + "m";
    }
    if (rest != 0) {
        text += " " + std::to_string(rest) + "s";
    }
    return text;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        const auto lower = [](char c) {
            return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
        };
        if (lower(a[i]) != lower(b[i])) {
            return false;
        }
    }
    return true;
}

std::string duration_list(const std::vector<Duration>& values, std::size_t limit) {
    std::string text;
    for (std::size_t i = 0; i < values.size() && i < limit; ++i) {
        text += (i == 0 ? "" : ", ") + duration_text(values[i]);
    }
    if (values.size() > limit) {
        text += ", ...";
    }
    return text;
}

std::vector<LocatedMatcher> retry_on_entries(const ResolvedPolicy& p) {
    return entries(p.spec().retry_on, p.fields.retry_on, p.name_position());
}

std::vector<LocatedMatcher> never_retry_on_entries(const ResolvedPolicy& p) {
    return entries(p.spec().never_retry_on, p.fields.never_retry_on, p.name_position());
}

std::vector<LocatedMatcher> retried_category_entries(const ResolvedPolicy& p,
                                                     ErrorCategory category) {
    std::vector<LocatedMatcher> out;
    if (p.spec().max_attempts < 2) {
        return out;
    }
    for (const LocatedMatcher& entry : retry_on_entries(p)) {
        const Matcher& m = *entry.matcher;
        if (m.kind == MatcherKind::Category && m.category == category && !excluded(p, m)) {
            out.push_back(entry);
        }
    }
    return out;
}

bool covers(const Matcher& exclude, const Matcher& include) {
    switch (exclude.kind) {
        case MatcherKind::Category:
            return include.kind == MatcherKind::Category && include.category == exclude.category;
        case MatcherKind::TransientGroup:
            return include.kind == MatcherKind::TransientGroup ||
                   (include.kind == MatcherKind::Category &&
                    is_retryable_by_default(include.category));
        case MatcherKind::SqlState:
            return include.kind == MatcherKind::SqlState &&
                   equals_ignoring_case(include.text, exclude.text);
        case MatcherKind::SqlStateClass:
            return (include.kind == MatcherKind::SqlState ||
                    include.kind == MatcherKind::SqlStateClass) &&
                   include.text.size() >= 2 &&
                   equals_ignoring_case(std::string_view(include.text).substr(0, 2), exclude.text);
        case MatcherKind::VendorNative:
            return include.kind == MatcherKind::VendorNative && include.vendor == exclude.vendor &&
                   include.native_code == exclude.native_code;
        case MatcherKind::ErrorType:
            return include.kind == MatcherKind::ErrorType &&
                   (include.text == exclude.text || (include.text.size() > exclude.text.size() &&
                                                     include.text.starts_with(exclude.text) &&
                                                     include.text[exclude.text.size()] == '.'));
        case MatcherKind::HttpStatus:
            return include.kind == MatcherKind::HttpStatus && include.http == exclude.http;
        case MatcherKind::HttpClass:
            return (include.kind == MatcherKind::HttpClass && include.http == exclude.http) ||
                   (include.kind == MatcherKind::HttpStatus && include.http / 100 == exclude.http);
        case MatcherKind::GrpcStatus:
            return include.kind == MatcherKind::GrpcStatus && include.grpc == exclude.grpc;
        case MatcherKind::Message:
            return include.kind == MatcherKind::Message &&
                   include.text.find(exclude.text) != std::string::npos;
    }
    return false;
}

bool excluded(const ResolvedPolicy& p, const Matcher& include) {
    for (const Matcher& exclude : p.spec().never_retry_on) {
        if (covers(exclude, include)) {
            return true;
        }
    }
    return false;
}

std::string describe(const Matcher& m) {
    switch (m.kind) {
        case MatcherKind::Category:
            return "'" + std::string(to_string(m.category)) + "'";
        case MatcherKind::TransientGroup:
            return "'transient'";
        case MatcherKind::SqlState:
            return "SQLSTATE " + m.text;
        case MatcherKind::SqlStateClass:
            return "SQLSTATE class " + m.text;
        default:
            break;
    }
    return "'" + m.to_string() + "'";
}

std::vector<ScheduleRow> reachable_rows(const std::vector<ScheduleRow>& schedule) {
    std::vector<ScheduleRow> rows;
    for (const ScheduleRow& row : schedule) {
        if (row.within_deadline) {
            rows.push_back(row);
        }
    }
    return rows;
}

std::string delay_range_text(const ScheduleRow& row) {
    if (row.min == row.max) {
        return duration_text(row.max);
    }
    return duration_text(row.min) + "-" + duration_text(row.max);
}

std::size_t reachable_retries(const std::vector<ScheduleRow>& schedule) {
    std::size_t count = 0;
    for (const ScheduleRow& row : schedule) {
        if (row.within_deadline) {
            ++count;
        }
    }
    return count;
}

}  // namespace rebound::lint::rules

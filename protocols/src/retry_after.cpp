#include "rebound/http/retry_after.hpp"

#include <array>
#include <cstddef>
#include <cstdint>

namespace rebound::http {
namespace {

using std::chrono::sys_seconds;

constexpr std::int64_t kMaxRetryAfterSeconds =
    std::chrono::duration_cast<std::chrono::seconds>(kMaxRetryAfter).count();

constexpr std::array<std::string_view, 7> kShortDays{"Mon", "Tue", "Wed", "Thu",
                                                     "Fri", "Sat", "Sun"};
constexpr std::array<std::string_view, 7> kLongDays{"Monday", "Tuesday",  "Wednesday", "Thursday",
                                                    "Friday", "Saturday", "Sunday"};
constexpr std::array<std::string_view, 12> kMonths{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// A cursor over the date text; every read checks the bounds and fails on a mismatch.
class Cursor {
  public:
    explicit constexpr Cursor(std::string_view text) noexcept : text_(text) {}

    constexpr bool literal(std::string_view expected) noexcept {
        if (text_.substr(position_, expected.size()) != expected) {
            return false;
        }
        position_ += expected.size();
        return true;
    }

    // Exactly `count` digits.
    constexpr std::optional<int> digits(std::size_t count) noexcept {
        if (position_ + count > text_.size()) {
            return std::nullopt;
        }
        int value = 0;
        for (std::size_t i = 0; i < count; ++i) {
            const char c = text_[position_ + i];
            if (c < '0' || c > '9') {
                return std::nullopt;
            }
            value = value * 10 + (c - '0');
        }
        position_ += count;
        return value;
    }

    // The index of the word of `words` that comes next (day and month names are case-sensitive).
    template <std::size_t N>
    constexpr std::optional<int> one_of(const std::array<std::string_view, N>& words) noexcept {
        for (std::size_t i = 0; i < N; ++i) {
            if (literal(words[i])) {
                return static_cast<int>(i);
            }
        }
        return std::nullopt;
    }

    constexpr bool at_end() const noexcept { return position_ == text_.size(); }

  private:
    std::string_view text_;
    std::size_t position_ = 0;
};

struct Fields {
    int year = 0;
    int month = 0;  // 0..11
    int day = 0;
    int hour = 0;
    int minute = 0;
    int second = 0;
};

// `08:49:37`
constexpr bool read_time(Cursor& in, Fields& f) noexcept {
    const auto hour = in.digits(2);
    if (!hour || !in.literal(":")) {
        return false;
    }
    const auto minute = in.digits(2);
    if (!minute || !in.literal(":")) {
        return false;
    }
    const auto second = in.digits(2);
    if (!second) {
        return false;
    }
    f.hour = *hour;
    f.minute = *minute;
    f.second = *second;
    return true;
}

// The two formats that start with a day name and a comma: IMF-fixdate
// `Sun, 06 Nov 1994 08:49:37 GMT` (short day names, `separator` ' ', a 4-digit year) and RFC 850
// `Sunday, 06-Nov-94 08:49:37 GMT` (long day names, '-', a 2-digit year the caller completes).
template <std::size_t N>
constexpr std::optional<Fields> read_day_comma_date(std::string_view text,
                                                    const std::array<std::string_view, N>& days,
                                                    std::string_view separator,
                                                    std::size_t year_digits) noexcept {
    Cursor in(text);
    Fields f;
    if (!in.one_of(days) || !in.literal(", ")) {
        return std::nullopt;
    }
    const auto day = in.digits(2);
    if (!day || !in.literal(separator)) {
        return std::nullopt;
    }
    const auto month = in.one_of(kMonths);
    if (!month || !in.literal(separator)) {
        return std::nullopt;
    }
    const auto year = in.digits(year_digits);
    if (!year || !in.literal(" ") || !read_time(in, f) || !in.literal(" GMT") || !in.at_end()) {
        return std::nullopt;
    }
    f.day = *day;
    f.month = *month;
    f.year = *year;
    return f;
}

// `Sun Nov  6 08:49:37 1994` (the day is two digits or a space and one digit).
constexpr std::optional<Fields> read_asctime(std::string_view text) noexcept {
    Cursor in(text);
    Fields f;
    if (!in.one_of(kShortDays) || !in.literal(" ")) {
        return std::nullopt;
    }
    const auto month = in.one_of(kMonths);
    if (!month || !in.literal(" ")) {
        return std::nullopt;
    }
    std::optional<int> day = in.literal(" ") ? in.digits(1) : in.digits(2);
    if (!day || !in.literal(" ") || !read_time(in, f) || !in.literal(" ")) {
        return std::nullopt;
    }
    const auto year = in.digits(4);
    if (!year || !in.at_end()) {
        return std::nullopt;
    }
    f.day = *day;
    f.month = *month;
    f.year = *year;
    return f;
}

constexpr bool is_leap(int year) noexcept {
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

constexpr int days_in_month(int year, int month) noexcept {
    constexpr std::array<int, 12> kDays{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return month == 1 && is_leap(year) ? 29 : kDays[static_cast<std::size_t>(month)];
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
constexpr std::int64_t days_from_civil(int year, int month_1_to_12, int day) noexcept {
    const int y = year - (month_1_to_12 <= 2 ? 1 : 0);
    const int era = (y >= 0 ? y : y - 399) / 400;
    const int year_of_era = y - era * 400;
    const int month_index = month_1_to_12 + (month_1_to_12 > 2 ? -3 : 9);
    const int day_of_year = (153 * month_index + 2) / 5 + day - 1;
    const int day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return std::int64_t{era} * 146097 + day_of_era - 719468;
}

constexpr std::optional<sys_seconds> to_time(const Fields& f) noexcept {
    // Second 60 is a leap second, which the grammar allows.
    if (f.day < 1 || f.day > days_in_month(f.year, f.month) || f.hour > 23 || f.minute > 59 ||
        f.second > 60) {
        return std::nullopt;
    }
    const std::int64_t days = days_from_civil(f.year, f.month + 1, f.day);
    return sys_seconds(std::chrono::seconds(days * 86400 + std::int64_t{f.hour} * 3600 +
                                            std::int64_t{f.minute} * 60 + f.second));
}

// The year of the civil date of `t`.
int year_of(sys_seconds t) noexcept {
    const std::chrono::year_month_day date{std::chrono::floor<std::chrono::days>(t)};
    return static_cast<int>(date.year());
}

constexpr std::string_view trim_blanks(std::string_view text) noexcept {
    const std::size_t first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) {
        return {};
    }
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// 1*DIGIT, saturating at kMaxRetryAfter.
constexpr std::optional<Duration> read_delay_seconds(std::string_view text) noexcept {
    if (text.empty()) {
        return std::nullopt;
    }
    constexpr std::int64_t kLimit = kMaxRetryAfterSeconds;
    std::int64_t seconds = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
        seconds = seconds >= kLimit ? kLimit : seconds * 10 + (c - '0');
    }
    return seconds >= kLimit ? kMaxRetryAfter : Duration(std::chrono::seconds(seconds));
}

// `date` - `received`, clamped to [0, kMaxRetryAfter]. system_clock counts nanoseconds, which end
// in 2262, so the difference is taken in whole seconds first (any 4-digit year against any
// receive time fits), and only a difference of at most kMaxRetryAfter goes to finer units.
Duration delay_until(sys_seconds date, std::chrono::system_clock::time_point received) noexcept {
    // received = received_seconds + fraction, 0 <= fraction < 1 s, without leaving the clock's
    // range (a cast truncates toward zero, so it never overflows; floor could, near the minimum).
    const std::chrono::system_clock::duration since_epoch = received.time_since_epoch();
    std::int64_t received_seconds =
        std::chrono::duration_cast<std::chrono::seconds>(since_epoch).count();
    std::chrono::system_clock::duration fraction =
        since_epoch - std::chrono::duration_cast<std::chrono::system_clock::duration>(
                          std::chrono::seconds(received_seconds));
    if (fraction < fraction.zero()) {
        received_seconds -= 1;
        fraction += std::chrono::seconds(1);
    }
    const std::int64_t whole_seconds = date.time_since_epoch().count() - received_seconds;
    if (whole_seconds <= 0) {
        return Duration::zero();  // past, or within the second already begun
    }
    if (whole_seconds > kMaxRetryAfterSeconds) {
        return kMaxRetryAfter;  // beyond it even after the part of a second already gone
    }
    // At most 2^31 s: 2.1e18 ns, within the clock's range.
    return std::chrono::duration_cast<Duration>(std::chrono::seconds(whole_seconds) - fraction);
}

}  // namespace

std::optional<sys_seconds> parse_http_date(std::string_view text, sys_seconds reference) noexcept {
    if (auto fields = read_day_comma_date(text, kShortDays, " ", 4)) {
        return to_time(*fields);
    }
    if (auto fields = read_asctime(text)) {
        return to_time(*fields);
    }
    if (auto fields = read_day_comma_date(text, kLongDays, "-", 2)) {
        // RFC 9110 section 5.6.7: the most recent year with these two digits that is not more than
        // 50 years in the future.
        const int now = year_of(reference);
        int year = now - now % 100 + fields->year;
        if (year > now + 50) {
            year -= 100;
        } else if (year <= now - 50) {
            year += 100;
        }
        fields->year = year;
        return to_time(*fields);
    }
    return std::nullopt;
}

std::optional<Duration> parse_retry_after(std::string_view value,
                                          std::chrono::system_clock::time_point received) noexcept {
    const std::string_view text = trim_blanks(value);
    if (!text.empty() && text.front() >= '0' && text.front() <= '9') {
        return read_delay_seconds(text);
    }
    const sys_seconds reference = std::chrono::floor<std::chrono::seconds>(received);
    const std::optional<sys_seconds> date = parse_http_date(text, reference);
    if (!date) {
        return std::nullopt;
    }
    return delay_until(*date, received);
}

std::optional<Duration> retry_after_hint(std::span<const Header> headers,
                                         std::chrono::system_clock::time_point received) noexcept {
    const std::optional<std::string_view> value = single_value(headers, "Retry-After");
    if (!value) {
        return std::nullopt;
    }
    return parse_retry_after(*value, received);
}

}  // namespace rebound::http

// Retry-After (docs/protocols.md): every format of RFC 9110 section 10.2.3 and its edge cases.
#include <array>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "rebound/http/retry_after.hpp"

namespace {

using namespace std::chrono_literals;
using rebound::Duration;
using rebound::http::Header;
using rebound::http::parse_http_date;
using rebound::http::parse_retry_after;
using rebound::http::retry_after_hint;

// 1994-11-06 08:49:37 UTC.
constexpr std::chrono::sys_seconds kRfcExample{std::chrono::seconds(784111777)};
// 2026-10-21 07:26:30 UTC.
const std::chrono::system_clock::time_point kReceived =
    std::chrono::sys_days{std::chrono::year{2026} / 10 / 21} + 7h + 26min + 30s;

std::optional<Duration> after(std::string_view value) {
    return parse_retry_after(value, kReceived);
}

}  // namespace

TEST_CASE("Retry-After delay-seconds, with blanks around, saturating at 2^31 seconds",
          "[protocols][retry-after]") {
    CHECK(after("120") == Duration(120s));
    CHECK(after("0") == Duration(0s));
    CHECK(after(" \t7 \t") == Duration(7s));
    CHECK(after("0000000000000000000000000000000042") == Duration(42s));
    CHECK(after("2147483648") == Duration(std::chrono::seconds(2147483648LL)));
    CHECK(after("2147483649") == rebound::http::kMaxRetryAfter);
    CHECK(after("99999999999999999999999999999999999999") == rebound::http::kMaxRetryAfter);
}

TEST_CASE("Retry-After garbage, negative, fractional and empty values give no hint",
          "[protocols][retry-after]") {
    for (const std::string_view bad :
         {"", "   ", "-1", "1.5", "+3", "12s", "soon", "1 2", "0x10", "\xff\xfe",
          "Wed, 21 Oct 2026 07:28:00 UTC", "Wed, 21 Oct 2026 07:28:00", "Wed 21 Oct 2026"}) {
        INFO("value '" << bad << "'");
        CHECK_FALSE(after(bad).has_value());
    }
}

TEST_CASE("Retry-After IMF-fixdate counts from the receive time, and a past date means 0",
          "[protocols][retry-after]") {
    CHECK(after("Wed, 21 Oct 2026 07:28:00 GMT") == Duration(90s));
    CHECK(after("  Wed, 21 Oct 2026 07:28:00 GMT\t") == Duration(90s));
    CHECK(after("Wed, 21 Oct 2026 07:26:30 GMT") == Duration(0s));
    CHECK(after("Sun, 06 Nov 1994 08:49:37 GMT") == Duration(0s));
    CHECK(after("Thu, 01 Jan 2027 00:00:00 GMT") == Duration(6194010s));
    // Sub-second receive times: the delay is exact, not rounded to a second.
    CHECK(parse_retry_after("Wed, 21 Oct 2026 07:28:00 GMT", kReceived + 250ms) ==
          Duration(89750ms));
}

TEST_CASE("HTTP-dates in the three formats name the same instant", "[protocols][retry-after]") {
    const std::chrono::sys_seconds now{std::chrono::sys_days{std::chrono::year{2026} / 1 / 1}};
    CHECK(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT", now) == kRfcExample);
    CHECK(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT", now) == kRfcExample);
    CHECK(parse_http_date("Sun Nov  6 08:49:37 1994", now) == kRfcExample);
    CHECK(parse_http_date("Sun Nov 06 08:49:37 1994", now) == kRfcExample);
}

TEST_CASE("RFC 850 two-digit years more than 50 years ahead are the past century",
          "[protocols][retry-after]") {
    const std::chrono::sys_seconds now{std::chrono::sys_days{std::chrono::year{2026} / 1 / 1}};
    const auto year_of = [&](std::string_view text) {
        const auto t = parse_http_date(text, now);
        REQUIRE(t.has_value());
        return static_cast<int>(
            std::chrono::year_month_day{std::chrono::floor<std::chrono::days>(*t)}.year());
    };
    CHECK(year_of("Thursday, 01-Jan-76 00:00:00 GMT") == 2076);  // 50 years ahead: the future
    CHECK(year_of("Friday, 01-Jan-77 00:00:00 GMT") == 1977);    // 51 years ahead: the past
    CHECK(year_of("Sunday, 01-Jan-26 00:00:00 GMT") == 2026);
    CHECK(year_of("Sunday, 01-Jan-00 00:00:00 GMT") == 2000);
}

TEST_CASE("Impossible dates and malformed HTTP-dates are rejected", "[protocols][retry-after]") {
    const std::chrono::sys_seconds now{std::chrono::sys_days{std::chrono::year{2026} / 1 / 1}};
    for (const std::string_view bad : {
             "Sun, 31 Feb 2026 00:00:00 GMT",    // no 31 February
             "Sun, 29 Feb 2025 00:00:00 GMT",    // 2025 is no leap year
             "Sun, 00 Jan 2026 00:00:00 GMT",    // day 0
             "Sun, 06 Nov 1994 24:00:00 GMT",    // hour 24
             "Sun, 06 Nov 1994 08:60:00 GMT",    // minute 60
             "Sun, 06 Nov 1994 08:49:61 GMT",    // second 61
             "Sun, 6 Nov 1994 08:49:37 GMT",     // one-digit day in IMF-fixdate
             "sun, 06 nov 1994 08:49:37 GMT",    // names are case-sensitive
             "Sun, 06 Nov 1994 08:49:37 GMT x",  // trailing text
             "Sunday, 06-Nov-1994 08:49:37 GMT",
             "Sun Nov 6 08:49:37 1994",  // asctime pads the day to two places
             "Sun, 06 Nov 1994 8:49:37 GMT",
             "Funday, 06-Nov-94 08:49:37 GMT",
         }) {
        INFO("date '" << bad << "'");
        CHECK_FALSE(parse_http_date(bad, now).has_value());
    }
    // A leap day and a leap second are dates.
    CHECK(parse_http_date("Thu, 29 Feb 2024 00:00:00 GMT", now).has_value());
    CHECK(parse_http_date("Wed, 31 Dec 2025 23:59:60 GMT", now).has_value());
}

TEST_CASE("The Retry-After header is found in any case, and two different values give no hint",
          "[protocols][retry-after]") {
    const std::vector<Header> lower{{"retry-after", "5"}};
    CHECK(retry_after_hint(lower, kReceived) == Duration(5s));
    const std::vector<Header> same{{"Retry-After", "5"}, {"X-Other", "1"}, {"RETRY-AFTER", " 5"}};
    CHECK(retry_after_hint(same, kReceived) == Duration(5s));
    const std::vector<Header> different{{"Retry-After", "5"}, {"Retry-After", "6"}};
    CHECK_FALSE(retry_after_hint(different, kReceived).has_value());
    const std::vector<Header> none{{"Retry-Afterward", "5"}};
    CHECK_FALSE(retry_after_hint(none, kReceived).has_value());
}

namespace {

// `t` as an IMF-fixdate (the day name is not checked by the parser; any one will do).
std::string imf_fixdate(std::chrono::sys_seconds t) {
    static constexpr std::array<const char*, 12> kMonths{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    const auto day = std::chrono::floor<std::chrono::days>(t);
    const std::chrono::year_month_day date{day};
    const std::chrono::hh_mm_ss time{t - day};
    char text[64];
    std::snprintf(text, sizeof text, "Mon, %02u %s %04d %02d:%02d:%02d GMT",
                  static_cast<unsigned>(date.day()),
                  kMonths[static_cast<unsigned>(date.month()) - 1], static_cast<int>(date.year()),
                  static_cast<int>(time.hours().count()), static_cast<int>(time.minutes().count()),
                  static_cast<int>(time.seconds().count()));
    return text;
}

constexpr std::int64_t kMaxSeconds = std::int64_t{1} << 31;

}  // namespace

TEST_CASE("Retry-After delay-seconds saturate at the limit, its neighbours and any length",
          "[protocols][retry-after]") {
    CHECK(after("2147483647") == Duration(std::chrono::seconds(kMaxSeconds - 1)));
    CHECK(after("2147483648") == rebound::http::kMaxRetryAfter);
    CHECK(after("2147483649") == rebound::http::kMaxRetryAfter);
    // The 64-bit limits of the nanosecond clock and of an integer, and their neighbours.
    for (const std::string_view big :
         {"9223372036", "9223372037", "9223372036854775807", "9223372036854775808",
          "18446744073709551615", "18446744073709551616"}) {
        INFO("value " << big);
        CHECK(after(big) == rebound::http::kMaxRetryAfter);
    }
    // As many digits as a header line holds (curl's limit is 100 kB).
    CHECK(after(std::string(100'000, '9')) == rebound::http::kMaxRetryAfter);
}

TEST_CASE("Retry-After dates up to 9999 saturate instead of overflowing the clock",
          "[protocols][retry-after]") {
    using std::chrono::sys_seconds;
    // The value: "not for a long time", once read as 0 ms or a random delay.
    CHECK(after("Fri, 31 Dec 9999 23:59:59 GMT") == rebound::http::kMaxRetryAfter);
    CHECK(after("Fri Dec 31 23:59:59 9999") == rebound::http::kMaxRetryAfter);
    // Where system_clock's nanoseconds end (2262-04-11 23:47:16.854775807) and its neighbours.
    for (const std::string_view date :
         {"Fri, 11 Apr 2262 23:47:15 GMT", "Fri, 11 Apr 2262 23:47:16 GMT",
          "Fri, 11 Apr 2262 23:47:17 GMT"}) {
        INFO("date " << date);
        CHECK(after(date) == rebound::http::kMaxRetryAfter);
    }

    // The saturation boundary: 2^31 s after the receive time, and its neighbours, with and
    // without a fraction of a second already gone.
    const sys_seconds received = std::chrono::floor<std::chrono::seconds>(kReceived);
    const auto at = [&](std::int64_t seconds, std::chrono::nanoseconds fraction) {
        return parse_retry_after(imf_fixdate(received + std::chrono::seconds(seconds)),
                                 kReceived + fraction);
    };
    CHECK(at(kMaxSeconds - 1, {}) == Duration(std::chrono::seconds(kMaxSeconds - 1)));
    CHECK(at(kMaxSeconds, {}) == rebound::http::kMaxRetryAfter);
    CHECK(at(kMaxSeconds + 1, {}) == rebound::http::kMaxRetryAfter);
    CHECK(at(kMaxSeconds, 250ms) == rebound::http::kMaxRetryAfter - Duration(250ms));
    CHECK(at(kMaxSeconds + 1, 250ms) == rebound::http::kMaxRetryAfter);
    CHECK(at(1, 999'999'999ns) == Duration(0));  // 1 ns left: less than a microsecond
    CHECK(at(0, 1ns) == Duration(0));

    // Every year from 1970 to 9999: the date minus the receive time, clamped to [0, 2^31 s].
    for (int year = 1970; year <= 9999; ++year) {
        const sys_seconds date{std::chrono::sys_days{std::chrono::year{year} / 6 / 15} + 12h};
        const std::int64_t seconds = (date - received).count();
        const Duration expected = seconds <= 0            ? Duration(0)
                                  : seconds > kMaxSeconds ? rebound::http::kMaxRetryAfter
                                                          : Duration(std::chrono::seconds(seconds));
        INFO("year " << year);
        REQUIRE(after(imf_fixdate(date)) == expected);
    }
}

TEST_CASE("Retry-After dates against receive times at the ends of the clock",
          "[protocols][retry-after]") {
    using Clock = std::chrono::system_clock;
    const Clock::time_point latest = Clock::time_point::max();    // 2262-04-11 23:47:16.854775807
    const Clock::time_point earliest = Clock::time_point::min();  // 1677-09-21 00:12:43.145224192
    CHECK(parse_retry_after("Fri, 31 Dec 9999 23:59:59 GMT", earliest) ==
          rebound::http::kMaxRetryAfter);
    CHECK(parse_retry_after("Thu, 01 Jan 1970 00:00:00 GMT", earliest) ==
          rebound::http::kMaxRetryAfter);
    CHECK(parse_retry_after("Thu, 01 Jan 1970 00:00:00 GMT", latest) == Duration(0));
    CHECK(parse_retry_after("Fri, 11 Apr 2262 23:47:16 GMT", latest) == Duration(0));
    // 1 s - 0.854775807 s, truncated to microseconds.
    CHECK(parse_retry_after("Fri, 11 Apr 2262 23:47:17 GMT", latest) == Duration(145224));
    CHECK(parse_retry_after("Tue, 21 Sep 1677 00:12:44 GMT", earliest) == Duration(854775));
    CHECK(parse_retry_after("Tue, 21 Sep 1677 00:12:43 GMT", earliest) == Duration(0));
}

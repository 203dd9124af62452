// The `Retry-After` response header (RFC 9110 section 10.2.3) as a server delay hint
// (docs/protocols.md, docs/resilience.md). Pure functions; they never allocate or throw.
#pragma once

#include <chrono>
#include <optional>
#include <span>
#include <string_view>

#include "rebound/duration.hpp"
#include "rebound/http/header.hpp"

namespace rebound::http {

// Delay-seconds beyond this saturate here.
inline constexpr Duration kMaxRetryAfter = std::chrono::seconds(std::int64_t{1} << 31);

// An HTTP-date in any of the three formats a recipient must accept (RFC 9110 section 5.6.7):
// IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and
// asctime `Sun Nov  6 08:49:37 1994`. A two-digit RFC 850 year more than 50 years after
// `reference` is read as the past century. nullopt for anything else (an impossible date too).
std::optional<std::chrono::sys_seconds> parse_http_date(
    std::string_view text, std::chrono::sys_seconds reference) noexcept;

// The hint one `Retry-After` value gives: delay-seconds (digits with optional spaces or tabs
// around them, saturating at kMaxRetryAfter), or an HTTP-date minus `received` (0 when the date is
// past, kMaxRetryAfter when it is further ahead; any date up to 9999 against any `received`, with
// no overflow). nullopt for anything else: empty, negative, fractional, garbage.
std::optional<Duration> parse_retry_after(std::string_view value,
                                          std::chrono::system_clock::time_point received) noexcept;

// The hint of a response's headers: the `Retry-After` field (any case); nullopt when it is
// absent, unusable, or given twice with different values.
std::optional<Duration> retry_after_hint(std::span<const Header> headers,
                                         std::chrono::system_clock::time_point received) noexcept;

}  // namespace rebound::http

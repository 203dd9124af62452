// One HTTP header field as the client saw it (docs/protocols.md).
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace rebound::http {

// Non-owning views into the caller's storage (the client library's header buffer).
struct Header {
    std::string_view name;
    std::string_view value;
};

// Header names compare case-insensitively (RFC 9110 section 5.1).
bool name_equals(std::string_view a, std::string_view b) noexcept;

// The value of the only field named `name`, with surrounding spaces and tabs removed; nullopt when
// there is none, or when several fields of that name disagree (no single value can be trusted).
std::optional<std::string_view> single_value(std::span<const Header> headers,
                                             std::string_view name) noexcept;

// Splits `Name: value` (the form of curl's header callback and of `rebound classify --header`);
// nullopt when there is no colon or the name is empty.
std::optional<Header> split_header_line(std::string_view line) noexcept;

}  // namespace rebound::http

// Matcher: one rule of a `retry_on` or `never_retry_on` list (docs/policy-format.md, Matchers).
//
// A Matcher is the readable description of a rule; RuleIndex (internal/rule_index.hpp) is its
// compiled, flat form used by the decision.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "rebound/error_category.hpp"
#include "rebound/grpc_status.hpp"
#include "rebound/vendor.hpp"

namespace rebound {

enum class MatcherKind : std::uint8_t {
    Category,        // category equals
    TransientGroup,  // category is retryable by default
    SqlState,        // SQLSTATE equals (case-insensitive)
    SqlStateClass,   // SQLSTATE starts with these two characters
    VendorNative,    // vendor and native code equal
    ErrorType,       // error type is this type or a subtype
    HttpStatus,      // HTTP status equals
    HttpClass,       // HTTP status in this hundred (5 for 5xx)
    GrpcStatus,      // gRPC status equals
    Message,         // message contains the text (case-sensitive)
};

struct Matcher {
    MatcherKind kind = MatcherKind::Category;
    ErrorCategory category = ErrorCategory::Unknown;  // Category
    std::string text;                                 // SqlState, SqlStateClass, ErrorType, Message
    Vendor vendor = Vendor::Generic;                  // VendorNative
    std::int64_t native_code = 0;                     // VendorNative
    int http = 0;  // HttpStatus: the status; HttpClass: the hundreds digit
    rebound::GrpcStatus grpc = rebound::GrpcStatus::Ok;  // GrpcStatus

    static Matcher of_category(ErrorCategory c);
    static Matcher transient();
    static Matcher sqlstate(std::string_view code);
    static Matcher sqlstate_class(std::string_view code_class);
    static Matcher native(Vendor v, std::int64_t code);
    static Matcher error_type(std::string_view type_name);
    static Matcher http_status(int status);
    static Matcher http_class(int hundreds_digit);
    static Matcher grpc_status(rebound::GrpcStatus status);
    static Matcher message(std::string_view substring);

    // The wire form `kind:value` used by explain, decide and logs: `category:deadlock`,
    // `category:transient`, `sqlstate:40001`, `sqlstate_class:08`, `native:mysql:1213`,
    // `error:io.timeout`, `http:503`, `http:5xx`, `grpc:UNAVAILABLE`, `message:text`.
    std::string to_string() const;

    friend bool operator==(const Matcher&, const Matcher&) = default;
};

}  // namespace rebound

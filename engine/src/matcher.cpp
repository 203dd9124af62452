#include "rebound/matcher.hpp"

#include <algorithm>
#include <cctype>

namespace rebound {
namespace {

std::string to_upper(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return out;
}

}  // namespace

Matcher Matcher::of_category(ErrorCategory c) {
    Matcher m;
    m.kind = MatcherKind::Category;
    m.category = c;
    return m;
}

Matcher Matcher::transient() {
    Matcher m;
    m.kind = MatcherKind::TransientGroup;
    return m;
}

Matcher Matcher::sqlstate(std::string_view code) {
    Matcher m;
    m.kind = MatcherKind::SqlState;
    m.text = to_upper(code);
    return m;
}

Matcher Matcher::sqlstate_class(std::string_view code_class) {
    Matcher m;
    m.kind = MatcherKind::SqlStateClass;
    m.text = to_upper(code_class);
    return m;
}

Matcher Matcher::native(Vendor v, std::int64_t code) {
    Matcher m;
    m.kind = MatcherKind::VendorNative;
    m.vendor = v;
    m.native_code = code;
    return m;
}

Matcher Matcher::error_type(std::string_view type_name) {
    Matcher m;
    m.kind = MatcherKind::ErrorType;
    m.text = std::string(type_name);
    return m;
}

Matcher Matcher::http_status(int status) {
    Matcher m;
    m.kind = MatcherKind::HttpStatus;
    m.http = status;
    return m;
}

Matcher Matcher::http_class(int hundreds_digit) {
    Matcher m;
    m.kind = MatcherKind::HttpClass;
    m.http = hundreds_digit;
    return m;
}

Matcher Matcher::grpc_status(rebound::GrpcStatus status) {
    Matcher m;
    m.kind = MatcherKind::GrpcStatus;
    m.grpc = status;
    return m;
}

Matcher Matcher::message(std::string_view substring) {
    Matcher m;
    m.kind = MatcherKind::Message;
    m.text = std::string(substring);
    return m;
}

std::string Matcher::to_string() const {
    switch (kind) {
        case MatcherKind::Category:
            return "category:" + std::string(rebound::to_string(category));
        case MatcherKind::TransientGroup:
            return "category:" + std::string(kTransientGroupName);
        case MatcherKind::SqlState:
            return "sqlstate:" + text;
        case MatcherKind::SqlStateClass:
            return "sqlstate_class:" + text;
        case MatcherKind::VendorNative:
            return "native:" + std::string(rebound::to_string(vendor)) + ":" +
                   std::to_string(native_code);
        case MatcherKind::ErrorType:
            return "error:" + text;
        case MatcherKind::HttpStatus:
            return "http:" + std::to_string(http);
        case MatcherKind::HttpClass:
            return "http:" + std::to_string(http) + "xx";
        case MatcherKind::GrpcStatus:
            return "grpc:" + std::string(rebound::to_string(grpc));
        case MatcherKind::Message:
            break;
    }
    return "message:" + text;
}

}  // namespace rebound

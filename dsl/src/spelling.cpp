#include "rebound/dsl/spelling.hpp"

#include <string>

#include "emit_common.hpp"
#include "rebound/error_category.hpp"

namespace rebound::dsl {

std::string duration_spelling(Duration d) {
    return emit_detail::duration_text(d);
}

std::string number_spelling(double value) {
    return emit_detail::number_text(value);
}

std::string percent_spelling(double fraction) {
    return emit_detail::percent_text(fraction);
}

std::string matcher_spelling(const Matcher& matcher) {
    switch (matcher.kind) {
        case MatcherKind::TransientGroup:
            return std::string(kTransientGroupName);
        case MatcherKind::SqlState:
            return "sqlstate " + matcher.text;
        case MatcherKind::SqlStateClass:
            return "sqlstate class " + matcher.text;
        case MatcherKind::VendorNative:
            return "native " + std::string(emit_detail::vendor_word(matcher.vendor)) + " " +
                   std::to_string(matcher.native_code);
        case MatcherKind::ErrorType:
            return "error " + matcher.text;
        case MatcherKind::HttpStatus:
            return "http " + std::to_string(matcher.http);
        case MatcherKind::HttpClass:
            return "http " + emit_detail::http_class_text(matcher.http);
        case MatcherKind::GrpcStatus:
            return "grpc " + std::string(to_string(matcher.grpc));
        case MatcherKind::Message:
            return "message " + emit_detail::double_quoted(matcher.text);
        case MatcherKind::Category:
            break;
    }
    return std::string(emit_detail::category_word(matcher.category));
}

}  // namespace rebound::dsl

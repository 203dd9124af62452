// The actions of the text DSL's grammar (grammar.hpp): each records the statement a line is, or
// one of its parts, into LineParts, and interprets nothing. Private to rebound::dsl.
#pragma once

#include <string_view>

#include <tao/pegtl.hpp>

#include "field_locations.hpp"
#include "text/grammar.hpp"
#include "text/line_parts.hpp"

namespace rebound::dsl::text {

// PEGTL's lower_case convention, as the grammar (grammar.hpp says why).
// NOLINTBEGIN(readability-identifier-naming)

template <typename Rule>
struct action : pegtl::nothing<Rule> {};

template <Statement Kind>
struct starts_statement {
    template <typename ActionInput>
    static void apply(const ActionInput& in, LineParts& line) {
        line.statement = Kind;
        line.position = position_of(in);
        line.first_word = std::string_view(in.begin(), in.size());
    }
};

// `retry` becomes `retry on` or `retry if`.
template <Statement Kind>
struct refines_statement {
    template <typename ActionInput>
    static void apply(const ActionInput& /*in*/, LineParts& line) {
        line.statement = Kind;
    }
};

template <Role R>
struct records {
    template <typename ActionInput>
    static void apply(const ActionInput& in, LineParts& line) {
        line.tokens.push_back(Token{R, std::string_view(in.begin(), in.size()), position_of(in)});
    }
};

// A name that is the DSL keyword of a top-level scalar field starts that field's statement;
// any other name fails the rule (an action that returns false fails its rule's match), so the
// line is tried as the next statement of the grammar.
template <>
struct action<scalar_field_keyword> {
    template <typename ActionInput>
    static bool apply(const ActionInput& in, LineParts& line) {
        const std::string_view word(in.begin(), in.size());
        const PolicyFieldInfo* field = detail::scalar_field_spelt(word);
        if (field == nullptr) {
            return false;
        }
        starts_statement<Statement::ScalarField>::apply(in, line);
        line.field = field->id;
        return true;
    }
};

template <>
struct action<scalar_field_is_text> {
    template <typename ActionInput>
    static bool apply(const ActionInput& /*in*/, const LineParts& line) {
        return rebound::info_of(line.field).kind == FieldKind::Text;
    }
};

// clang-format off
template <> struct action<rebound_keyword> : starts_statement<Statement::Rebound> {};
template <> struct action<service_keyword> : starts_statement<Statement::Service> {};
template <> struct action<defaults_keyword> : starts_statement<Statement::Defaults> {};
template <> struct action<policy_keyword> : starts_statement<Statement::Policy> {};
template <> struct action<block_end_brace> : starts_statement<Statement::BlockEnd> {};
template <> struct action<handler_keyword> : starts_statement<Statement::Handler> {};
template <> struct action<default_keyword> : starts_statement<Statement::Default> {};
template <> struct action<backoff_keyword> : starts_statement<Statement::Backoff> {};
template <> struct action<jitter_keyword> : starts_statement<Statement::Jitter> {};
template <> struct action<retry_keyword> : starts_statement<Statement::Retry> {};
template <> struct action<retry_on_keyword> : refines_statement<Statement::RetryOn> {};
template <> struct action<retry_if_keyword> : refines_statement<Statement::RetryIf> {};
template <> struct action<never_keyword> : starts_statement<Statement::NeverOn> {};
template <> struct action<on_keyword> : starts_statement<Statement::OnExhausted> {};
template <> struct action<budget_keyword> : starts_statement<Statement::Budget> {};
template <> struct action<route_keyword> : starts_statement<Statement::Route> {};
template <> struct action<routes_keyword> : starts_statement<Statement::RoutesNone> {};
template <> struct action<server_keyword> : starts_statement<Statement::ServerDelay> {};
template <> struct action<breaker_keyword> : starts_statement<Statement::Breaker> {};
template <> struct action<breaker_opening> : refines_statement<Statement::BreakerBlock> {};
template <> struct action<trip_keyword> : starts_statement<Statement::Trip> {};
template <> struct action<open_keyword> : starts_statement<Statement::Open> {};
template <> struct action<half_keyword> : starts_statement<Statement::HalfOpen> {};
template <> struct action<slow_keyword> : starts_statement<Statement::SlowCall> {};
template <> struct action<failures_keyword> : starts_statement<Statement::Failures> {};
template <> struct action<hedge_keyword> : starts_statement<Statement::Hedge> {};
template <> struct action<unknown_word> : starts_statement<Statement::Unknown> {};

template <> struct action<format_version> : records<Role::Version> {};
template <> struct action<service_name> : records<Role::ServiceName> {};
template <> struct action<policy_name> : records<Role::PolicyName> {};
template <> struct action<parent_name> : records<Role::Parent> {};
template <> struct action<inline_block_end> : records<Role::BlockClose> {};
template <> struct action<handler_key> : records<Role::HandlerKey> {};
template <> struct action<bound_policy> : records<Role::BoundPolicy> {};
template <> struct action<handler_option> : records<Role::HandlerOption> {};
template <> struct action<not_keyword> : records<Role::HandlerNegation> {};
template <> struct action<callee_name> : records<Role::Callee> {};
template <> struct action<redeliveries_count> : records<Role::Redeliveries> {};
template <> struct action<fixed_keyword> : records<Role::BackoffType> {};
template <> struct action<linear_keyword> : records<Role::BackoffType> {};
template <> struct action<exponential_keyword> : records<Role::BackoffType> {};
template <> struct action<backoff_none> : records<Role::BackoffType> {};
template <> struct action<backoff_unknown_type> : records<Role::BackoffType> {};
template <> struct action<backoff_delay> : records<Role::Delay> {};
template <> struct action<backoff_initial> : records<Role::Initial> {};
template <> struct action<backoff_increment> : records<Role::Increment> {};
template <> struct action<backoff_multiplier> : records<Role::Multiplier> {};
template <> struct action<backoff_max> : records<Role::Max> {};
template <> struct action<bounded_sign> : records<Role::JitterBound> {};
template <> struct action<bounded_amount> : records<Role::JitterAmount> {};
template <> struct action<jitter_percent> : records<Role::JitterPercent> {};
template <> struct action<jitter_word> : records<Role::JitterWord> {};
template <> struct action<scalar_field_value> : records<Role::FieldValue> {};
template <> struct action<sqlstate_keyword> : records<Role::MatcherStart> {};
template <> struct action<native_keyword> : records<Role::MatcherStart> {};
template <> struct action<error_keyword> : records<Role::MatcherStart> {};
template <> struct action<http_keyword> : records<Role::MatcherStart> {};
template <> struct action<grpc_keyword> : records<Role::MatcherStart> {};
template <> struct action<message_keyword> : records<Role::MatcherStart> {};
template <> struct action<category_word> : records<Role::Category> {};
template <> struct action<sqlstate_code> : records<Role::SqlState> {};
template <> struct action<sqlstate_class_code> : records<Role::SqlStateClass> {};
template <> struct action<native_vendor> : records<Role::Vendor> {};
template <> struct action<native_code> : records<Role::NativeCode> {};
template <> struct action<error_type_name> : records<Role::ErrorType> {};
template <> struct action<http_code> : records<Role::Http> {};
template <> struct action<grpc_code> : records<Role::Grpc> {};
template <> struct action<message_text> : records<Role::Message> {};
template <> struct action<predicate_name> : records<Role::Predicate> {};
template <> struct action<exhausted_action> : records<Role::ExhaustedAction> {};
template <> struct action<budget_tokens> : records<Role::Count> {};
template <> struct action<budget_ratio> : records<Role::Ratio> {};
template <> struct action<route_limit> : records<Role::Delay> {};
template <> struct action<route_target> : records<Role::Target> {};
template <> struct action<empty_list> : records<Role::EmptyList> {};
template <> struct action<server_delay_use> : records<Role::ServerDelayUse> {};
template <> struct action<server_delay_cap> : records<Role::ServerDelayCap> {};
template <> struct action<over_cap_action> : records<Role::OverCapAction> {};
template <> struct action<server_delay_spread> : records<Role::Spread> {};
template <> struct action<breaker_name> : records<Role::BreakerName> {};
template <> struct action<trip_ratio_value> : records<Role::FailureRatio> {};
template <> struct action<trip_minimum_calls> : records<Role::MinimumCalls> {};
template <> struct action<trip_window> : records<Role::Window> {};
template <> struct action<trip_consecutive_count> : records<Role::ConsecutiveFailures> {};
template <> struct action<open_for_value> : records<Role::OpenFor> {};
template <> struct action<max_open_for_value> : records<Role::MaxOpenFor> {};
template <> struct action<half_open_count> : records<Role::HalfOpenCalls> {};
template <> struct action<slow_call_value> : records<Role::SlowCall> {};
template <> struct action<hedge_none> : records<Role::HedgeNone> {};
template <> struct action<hedge_delay> : records<Role::HedgeDelay> {};
template <> struct action<hedge_range> : records<Role::HedgeRange> {};
template <> struct action<hedge_window> : records<Role::HedgeWindow> {};
template <> struct action<hedge_warmup> : records<Role::HedgeWarmup> {};
template <> struct action<hedge_extra> : records<Role::HedgeExtra> {};
template <> struct action<hedge_burst> : records<Role::HedgeBurst> {};
template <> struct action<hedge_on_failure> : records<Role::HedgeOnFailure> {};
// clang-format on

// NOLINTEND(readability-identifier-naming)

}  // namespace rebound::dsl::text

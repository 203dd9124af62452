// The error messages of the text DSL's grammar (grammar.hpp), and the control that raises them,
// for PEGTL 3.2.7. Private to rebound::dsl. grammar.hpp holds the rules only; this file holds
// what a user reads when a rule under must<> fails, so that the messages can be read (and
// reworded) together, apart from the shape of the language.
//
// Adding a message for a new rule: every rule placed under must<> needs one. Add a
// specialisation `template <> inline constexpr const char* error_message<new_rule> = "...";`
// in the section of its statement, in the user's words ("expected a duration such as 250ms
// after 'fixed'"); the reader appends what it found (", got '500'"). A new statement's
// end_of<its_keyword> gets the generic "expected the end of the line" unless it has a
// specialisation here. A must<> on a rule without a message does not compile.
//
// Include this header (not grammar.hpp alone) wherever the grammar is parsed: `control` lives
// here.
#pragma once

#include <tao/pegtl.hpp>

#include "text/grammar.hpp"
#include "text/line_parts.hpp"
#include "text/vocabulary.hpp"

namespace rebound::dsl::text {

// error_message, errors and control follow PEGTL's lower_case convention, as the rules
// (grammar.hpp says why).
// NOLINTBEGIN(readability-identifier-naming)

// ---- Error messages ----------------------------------------------------------------------------
// One per rule under must<>. The reader appends what it found: ", got '500'".

template <typename Rule>
inline constexpr const char* error_message = nullptr;

// clang-format off
template <> inline constexpr const char* error_message<escape_code> =
    "expected an escape sequence: \\\", \\\\, \\n, \\t, \\r or \\xNN";
template <> inline constexpr const char* error_message<closing_quote> =
    "expected a closing '\"' to end the text";

template <typename Keyword> inline constexpr const char* error_message<end_of<Keyword>> =
    "expected the end of the line";
template <> inline constexpr const char* error_message<end_of<block_end_brace>> =
    "expected the end of the line after '}'";
template <> inline constexpr const char* error_message<end_of<defaults_keyword>> =
    "expected the end of the line after '{' (each statement goes on a line of its own)";
template <> inline constexpr const char* error_message<end_of<policy_keyword>> =
    "expected the end of the line after '{' (each statement goes on a line of its own)";
template <> inline constexpr const char* error_message<end_of<handler_keyword>> =
    "expected 'idempotent', 'not idempotent', 'calls NAME, NAME', 'redeliveries N' (in this "
    "order) or the end of the line";
template <> inline constexpr const char* error_message<callee_list> =
    "expected a handler name after 'calls', as in 'calls payments.authorize, inventory.reserve'";
template <> inline constexpr const char* error_message<callee_name> =
    "expected a handler name after ','";
template <> inline constexpr const char* error_message<redeliveries_argument> =
    "expected a number after 'redeliveries', as in 'redeliveries 5'";
template <> inline constexpr const char* error_message<end_of<backoff_keyword>> =
    "expected the end of the backoff; the forms are 'fixed D', 'linear D +D [max D]', "
    "'exponential D [xF] [max D]' and 'none'";
template <> inline constexpr const char* error_message<end_of<jitter_keyword>> =
    "expected the end of the line after the jitter";
template <> inline constexpr const char* error_message<end_of<retry_keyword>> =
    "expected ',' and another item, or the end of the line";
template <> inline constexpr const char* error_message<end_of<never_keyword>> =
    "expected ',' and another matcher, or the end of the line";

template <> inline constexpr const char* error_message<version_argument> =
    "expected the format version after 'rebound', as in 'rebound 1'";
template <> inline constexpr const char* error_message<service_argument> =
    "expected a service name such as payments after 'service' (names match "
    "[A-Za-z_][A-Za-z0-9_.-]*)";

template <> inline constexpr const char* error_message<parent_argument> =
    "expected the name of the policy to extend after 'extends'";
template <> inline constexpr const char* error_message<defaults_opening> =
    "expected '{' after 'defaults'";
template <> inline constexpr const char* error_message<policy_name_argument> =
    "expected a policy name such as interactive after 'policy' (names match "
    "[A-Za-z_][A-Za-z0-9_.-]*)";
template <> inline constexpr const char* error_message<policy_opening> =
    "expected '{' (or 'extends NAME {') after the policy name";

template <> inline constexpr const char* error_message<handler_key_argument> =
    "expected a handler name or a prefix such as orders.* after 'handler'";
template <> inline constexpr const char* error_message<handler_uses> =
    "expected 'uses' after the handler name, as in 'handler ApproveCase uses interactive'";
template <> inline constexpr const char* error_message<default_uses> =
    "expected 'uses' after 'default', as in 'default uses interactive'";
template <> inline constexpr const char* error_message<bound_policy_argument> =
    "expected a policy name after 'uses'";


template <> inline constexpr const char* error_message<backoff_form> =
    "expected a backoff type after 'backoff': fixed, linear, exponential or none";
template <> inline constexpr const char* error_message<fixed_delay_argument> =
    "expected a duration such as 250ms after 'fixed'";
template <> inline constexpr const char* error_message<linear_initial_argument> =
    "expected an initial delay such as 250ms after 'linear'";
template <> inline constexpr const char* error_message<linear_increment_argument> =
    "expected an increment such as +250ms after the initial delay";
template <> inline constexpr const char* error_message<exponential_initial_argument> =
    "expected an initial delay such as 250ms after 'exponential'";
template <> inline constexpr const char* error_message<max_argument> =
    "expected a duration such as 30s after 'max'";

template <> inline constexpr const char* error_message<jitter_form> =
    "expected none, full, equal, decorrelated, a bound such as +-1s or a percentage such as "
    "20% after 'jitter'";
template <> inline constexpr const char* error_message<bounded_amount> =
    "expected a duration such as 1s after '+-'";

template <> inline constexpr const char* error_message<sqlstate_argument> =
    "expected a SQLSTATE such as 40001, or 'class' and a class such as 08, after 'sqlstate'";
template <> inline constexpr const char* error_message<sqlstate_class_argument> =
    "expected a SQLSTATE class such as 08 after 'sqlstate class'";
template <> inline constexpr const char* error_message<native_vendor_argument> =
    "expected a vendor such as mysql after 'native', as in 'native mysql 1213'";
template <> inline constexpr const char* error_message<native_code_argument> =
    "expected a native error code such as 1213 after the vendor";
template <> inline constexpr const char* error_message<error_type_argument> =
    "expected an error type such as io.timeout after 'error'";
template <> inline constexpr const char* error_message<http_argument> =
    "expected an HTTP status such as 503 or a class such as 5xx after 'http'";
template <> inline constexpr const char* error_message<grpc_argument> =
    "expected a gRPC status such as UNAVAILABLE or 14 after 'grpc'";
template <> inline constexpr const char* error_message<message_argument> =
    "expected a quoted text such as \"timed out\" after 'message'";
template <> inline constexpr const char* error_message<matcher> =
    "expected a matcher after ',': a category such as deadlock, sqlstate 40001, "
    "native mysql 1213, error io.timeout, http 503 or message \"text\"";

template <> inline constexpr const char* error_message<retry_mode> =
    "expected 'on' or 'if' after 'retry', as in 'retry on deadlock' or 'retry if is_busy'";
template <> inline constexpr const char* error_message<retry_on_matchers> =
    "expected a matcher after 'retry on': a category such as deadlock, sqlstate 40001, "
    "native mysql 1213, error io.timeout, http 503 or message \"text\" (or 'none' for an "
    "empty list)";
template <> inline constexpr const char* error_message<never_on> =
    "expected 'on' after 'never', as in 'never on constraint_violation'";
template <> inline constexpr const char* error_message<never_on_matchers> =
    "expected a matcher after 'never on': a category such as constraint_violation, "
    "sqlstate class 23, native mysql 1062, error io.timeout, http 404 or message \"text\" "
    "(or 'none' for an empty list)";
template <> inline constexpr const char* error_message<retry_if_predicates> =
    "expected a predicate name after 'retry if' (or 'none' for an empty list)";
template <> inline constexpr const char* error_message<predicate_name> =
    "expected a predicate name after ','";

template <> inline constexpr const char* error_message<exhausted_clause> =
    "expected 'exhausted' after 'on', as in 'on exhausted dead_letter'";
template <> inline constexpr const char* error_message<exhausted_argument> =
    "expected fail or dead_letter after 'on exhausted'";

template <> inline constexpr const char* error_message<tokens_clause> =
    "expected 'tokens N' after 'budget', as in 'budget tokens 100 ratio 0.1'";
template <> inline constexpr const char* error_message<tokens_argument> =
    "expected a whole number after 'tokens'";
template <> inline constexpr const char* error_message<ratio_clause> =
    "expected 'ratio F' after the token count, as in 'budget tokens 100 ratio 0.1'";
template <> inline constexpr const char* error_message<ratio_argument> =
    "expected a number such as 0.1 after 'ratio'";

template <> inline constexpr const char* error_message<up_to> =
    "expected 'up to' after 'route', as in 'route up to 10s -> \"orders.retry.10s\"'";
template <> inline constexpr const char* error_message<route_limit_argument> =
    "expected a duration such as 10s after 'up to'";
template <> inline constexpr const char* error_message<route_arrow> =
    "expected '->' after the duration";
template <> inline constexpr const char* error_message<routes_none> =
    "expected 'none' after 'routes', as in 'routes none' (a route is a line of its own: "
    "'route up to 10s -> \"orders.retry.10s\"')";
template <> inline constexpr const char* error_message<route_target_argument> =
    "expected a quoted target such as \"orders.retry.10s\" after '->'";

template <> inline constexpr const char* error_message<end_of<server_keyword>> =
    "expected 'cap D', 'over cap stop|cap|ignore' or 'spread N%' (in this order), or the end "
    "of the line";
template <> inline constexpr const char* error_message<server_delay_words> =
    "expected 'delay' after 'server', as in 'server delay max cap 30s'";
template <> inline constexpr const char* error_message<server_delay_use_argument> =
    "expected max or ignore after 'server delay'";
template <> inline constexpr const char* error_message<server_delay_cap_argument> =
    "expected a duration such as 30s after 'cap'";
template <> inline constexpr const char* error_message<over_cap_words> =
    "expected 'cap' after 'over', as in 'over cap stop'";
template <> inline constexpr const char* error_message<over_cap_argument> =
    "expected stop, cap or ignore after 'over cap'";
template <> inline constexpr const char* error_message<spread_argument> =
    "expected a percentage such as 10% after 'spread'";

template <> inline constexpr const char* error_message<breaker_name_argument> =
    "expected a breaker name such as ledger-db after 'breaker' (names match "
    "[A-Za-z_][A-Za-z0-9_.-]*)";
template <> inline constexpr const char* error_message<end_of<breaker_keyword>> =
    "expected '{' to open a breaker block, or the end of the line after the breaker name";
template <> inline constexpr const char* error_message<trip_form> =
    "expected 'ratio P% of N calls in D' or 'after N consecutive failures' after 'trip'";
template <> inline constexpr const char* error_message<trip_ratio_argument> =
    "expected a percentage such as 50% after 'trip ratio'";
template <> inline constexpr const char* error_message<trip_of> =
    "expected 'of N calls in D' after the ratio, as in 'trip ratio 50% of 20 calls in 10s'";
template <> inline constexpr const char* error_message<trip_minimum_calls_argument> =
    "expected a whole number of calls after 'of'";
template <> inline constexpr const char* error_message<trip_calls> =
    "expected 'calls' after the number, as in 'of 20 calls in 10s'";
template <> inline constexpr const char* error_message<trip_in> =
    "expected 'in D' after 'calls', as in 'of 20 calls in 10s'";
template <> inline constexpr const char* error_message<trip_window_argument> =
    "expected a duration such as 10s after 'in'";
template <> inline constexpr const char* error_message<trip_consecutive_argument> =
    "expected a whole number after 'trip after', as in 'trip after 5 consecutive failures'";
template <> inline constexpr const char* error_message<trip_consecutive_failures> =
    "expected 'consecutive failures' after the count, as in 'trip after 5 consecutive failures'";
template <> inline constexpr const char* error_message<open_for_argument> =
    "expected a duration such as 5s after 'open'";
template <> inline constexpr const char* error_message<max_open_for_argument> =
    "expected a duration such as 60s after 'max'";
template <> inline constexpr const char* error_message<end_of<open_keyword>> =
    "expected 'max D' or the end of the line after the open period";
template <> inline constexpr const char* error_message<half_open_words> =
    "expected 'open' after 'half', as in 'half open 1 calls'";
template <> inline constexpr const char* error_message<half_open_count_argument> =
    "expected a whole number after 'half open', as in 'half open 1 calls'";
template <> inline constexpr const char* error_message<half_open_calls> =
    "expected 'calls' after the number, as in 'half open 1 calls'";
template <> inline constexpr const char* error_message<slow_call_words> =
    "expected 'call' after 'slow', as in 'slow call 2s'";
template <> inline constexpr const char* error_message<slow_call_argument> =
    "expected a duration such as 2s after 'slow call'";
template <> inline constexpr const char* error_message<failures_matchers> =
    "expected a matcher after 'failures': a category such as transient, sqlstate class 08, "
    "native mysql 1213, error io.timeout, http 503 or message \"text\" (or 'none' for an empty "
    "list)";
template <> inline constexpr const char* error_message<end_of<failures_keyword>> =
    "expected ',' and another matcher, or the end of the line";

template <> inline constexpr const char* error_message<hedge_form> =
    "expected 'after D' or 'none' after 'hedge', as in 'hedge after 20ms' or "
    "'hedge after p95 within 2ms..250ms'";
template <> inline constexpr const char* error_message<hedge_delay_argument> =
    "expected a delay such as 20ms, or a quantile such as p95, after 'hedge after'";
template <> inline constexpr const char* error_message<hedge_range_argument> =
    "expected a range such as 2ms..250ms after 'within'";
template <> inline constexpr const char* error_message<hedge_window_argument> =
    "expected a duration such as 30s after 'window'";
template <> inline constexpr const char* error_message<hedge_warmup_argument> =
    "expected a whole number after 'warmup', as in 'warmup 100'";
template <> inline constexpr const char* error_message<hedge_extra_argument> =
    "expected a percentage such as 5% after 'extra'";
template <> inline constexpr const char* error_message<hedge_burst_argument> =
    "expected a whole number after 'burst', as in 'burst 10'";
template <> inline constexpr const char* error_message<hedge_failure_word> =
    "expected 'failure' after 'on', as in 'on failure next'";
template <> inline constexpr const char* error_message<hedge_on_failure_argument> =
    "expected next or wait after 'on failure'";
template <> inline constexpr const char* error_message<end_of<hedge_keyword>> =
    "expected 'within MIN..MAX', 'window D', 'warmup N', 'extra P%', 'burst N' or "
    "'on failure next|wait' (in this order), or the end of the line";
// clang-format on

// Raises under must<> only, with the rule's message; a must<> on a rule without a message does
// not compile (must_if's RequireMessage).
struct errors {
    template <typename Rule>
    static constexpr const char* message = error_message<Rule>;
    template <typename Rule>
    static constexpr bool raise_on_failure = false;
};

template <typename Rule>
struct control : pegtl::must_if<errors>::control<Rule> {};

// A scalar field's argument: the message names the field that the keyword's action recorded
// ("expected a duration such as 3s after 'deadline'"), from the field table.
template <>
struct control<scalar_field_argument> : pegtl::normal<scalar_field_argument> {
    template <typename ParseInput>
    [[noreturn]] static void raise(const ParseInput& in, const LineParts& line) {
        throw pegtl::parse_error(scalar_argument_message(line.field), in);
    }
};

// NOLINTEND(readability-identifier-naming)

}  // namespace rebound::dsl::text

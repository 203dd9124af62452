// What the grammar's actions record of one line of the text DSL: the statement it is and its
// parts as Tokens (role, text, position), uninterpreted. Private to rebound::dsl.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string_view>
#include <vector>

#include "rebound/dsl/source_position.hpp"
#include "rebound/policy_field.hpp"

namespace rebound::dsl::text {

// ---------------------------------------------------------------------------------------------
// What the grammar's actions record.

enum class Statement : std::uint8_t {
    None,  // a blank or comment line
    BlockEnd,
    Rebound,
    Service,
    Defaults,
    Policy,
    Handler,
    Default,
    Backoff,
    Jitter,
    ScalarField,  // `attempts N`, `deadline D`, ...: a top-level scalar field (LineParts::field)
    Retry,        // `retry` not (yet) followed by `on` or `if`
    RetryOn,
    RetryIf,
    NeverOn,
    OnExhausted,
    Budget,
    Route,
    RoutesNone,
    ServerDelay,
    Breaker,       // `breaker NAME` in a policy block
    BreakerBlock,  // `breaker NAME {`
    Trip,
    Open,
    HalfOpen,
    SlowCall,
    Failures,
    Hedge,
    Unknown,
};

// Where a statement may stand.
// `Block` is a policy or `defaults` block; `BreakerBlock` a `breaker NAME { }` block.
enum class Place : std::uint8_t { Anywhere, TopLevel, Block, BreakerBlock };

struct StatementInfo {
    Statement statement;
    std::string_view spelling;  // as written, and as named in messages
    Place place;
};

inline constexpr StatementInfo kStatements[] = {
    {Statement::None, "", Place::Anywhere},
    {Statement::BlockEnd, "}", Place::Anywhere},
    {Statement::Rebound, "rebound", Place::TopLevel},
    {Statement::Service, "service", Place::TopLevel},
    {Statement::Defaults, "defaults", Place::TopLevel},
    {Statement::Policy, "policy", Place::TopLevel},
    {Statement::Handler, "handler", Place::TopLevel},
    {Statement::Default, "default", Place::TopLevel},
    {Statement::Backoff, "backoff", Place::Block},
    {Statement::Jitter, "jitter", Place::Block},
    {Statement::ScalarField, "", Place::Block},  // spelt by its field: spelling_of()
    {Statement::Retry, "retry", Place::Block},
    {Statement::RetryOn, "retry on", Place::Block},
    {Statement::RetryIf, "retry if", Place::Block},
    {Statement::NeverOn, "never on", Place::Block},
    {Statement::OnExhausted, "on exhausted", Place::Block},
    {Statement::Budget, "budget", Place::Block},
    {Statement::Route, "route", Place::Block},
    {Statement::RoutesNone, "routes none", Place::Block},
    {Statement::ServerDelay, "server delay", Place::Block},
    {Statement::Breaker, "breaker", Place::Block},
    {Statement::BreakerBlock, "breaker", Place::TopLevel},
    {Statement::Trip, "trip", Place::BreakerBlock},
    {Statement::Open, "open", Place::BreakerBlock},
    {Statement::HalfOpen, "half open", Place::BreakerBlock},
    {Statement::SlowCall, "slow call", Place::BreakerBlock},
    {Statement::Failures, "failures", Place::BreakerBlock},
    {Statement::Hedge, "hedge", Place::Block},
    {Statement::Unknown, "", Place::Anywhere},
};

inline const StatementInfo& info_of(Statement statement) noexcept {
    return kStatements[static_cast<std::size_t>(statement)];
}

static_assert([] {
    for (std::size_t i = 0; i < std::size(kStatements); ++i) {
        if (static_cast<std::size_t>(kStatements[i].statement) != i) {
            return false;
        }
    }
    return true;
}());

// The part of a statement a token is.
enum class Role : std::uint8_t {
    Version,
    ServiceName,
    PolicyName,
    Parent,
    BlockClose,  // `{}` on the header line
    HandlerKey,
    BoundPolicy,
    HandlerOption,
    HandlerNegation,  // `not` before the option
    Callee,           // one name after `calls`
    Redeliveries,
    Count,       // budget tokens
    FieldValue,  // the value of a scalar field's statement
    Delay,       // the duration of fixed backoff, of a route
    BackoffType,
    Initial,
    Increment,   // with its `+`
    Multiplier,  // with its `x`
    Max,
    JitterWord,
    JitterBound,  // the `+-`
    JitterAmount,
    JitterPercent,  // with its `%`
    MatcherStart,   // the keyword of a sqlstate, native, error, http, grpc or message matcher
    Category,
    SqlState,
    SqlStateClass,
    Vendor,
    NativeCode,
    ErrorType,
    Http,
    Grpc,
    Message,  // with its quotes
    Predicate,
    ExhaustedAction,
    Ratio,
    Target,     // with its quotes
    EmptyList,  // the `none` of `retry on none`, `never on none`, `retry if none`, `routes none`
    ServerDelayUse,
    ServerDelayCap,
    OverCapAction,
    Spread,        // with its `%`, if any
    BreakerName,   // of a breaker block, or the breaker a policy names
    FailureRatio,  // with its `%`, if any
    MinimumCalls,
    Window,
    ConsecutiveFailures,
    OpenFor,
    MaxOpenFor,
    HalfOpenCalls,
    SlowCall,
    HedgeNone,   // the `none` of `hedge none`
    HedgeDelay,  // `20ms` or `p95`
    HedgeRange,  // `2ms..250ms`
    HedgeWindow,
    HedgeWarmup,
    HedgeExtra,  // with its `%`, if any
    HedgeBurst,
    HedgeOnFailure,
};

struct Token {
    Role role;
    std::string_view text;  // into the parsed text
    SourcePosition position;
};

// One line as the grammar saw it.
struct LineParts {
    Statement statement = Statement::None;
    PolicyField field = PolicyField::Name;  // of a Statement::ScalarField
    SourcePosition position;                // of the statement's first word
    std::string_view first_word;
    std::vector<Token> tokens;

    const Token* find(Role role) const {
        for (const Token& token : tokens) {
            if (token.role == role) {
                return &token;
            }
        }
        return nullptr;
    }
};

// The statement as written and as named in messages: `deadline` for its ScalarField.
inline std::string_view spelling_of(const LineParts& line) noexcept {
    return line.statement == Statement::ScalarField ? rebound::info_of(line.field).dsl_keyword
                                                    : info_of(line.statement).spelling;
}

inline std::uint32_t narrow(std::size_t value) noexcept {
    return static_cast<std::uint32_t>(
        std::min<std::size_t>(value, std::numeric_limits<std::uint32_t>::max()));
}

template <typename ActionInput>
SourcePosition position_of(const ActionInput& in) {
    return {narrow(in.iterator().line), narrow(in.iterator().column)};
}

}  // namespace rebound::dsl::text

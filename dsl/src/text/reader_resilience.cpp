// The text DSL reader's statements of resilience: the settings of a breaker block (`trip`,
// `open`, `half open`, `slow call`, `failures`), `server delay` and `hedge` in a policy block.
// Each reports every value it cannot read (text_reader.hpp, reader.cpp).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "rebound/dsl/diagnostic.hpp"
#include "rebound/dsl/document.hpp"
#include "rebound/dsl/syntax.hpp"
#include "rebound/dsl/text_toolkit/numbers.hpp"
#include "rebound/dsl/text_toolkit/quoting.hpp"
#include "rebound/dsl/text_toolkit/suggestions.hpp"
#include "text/line_parts.hpp"
#include "text/text_helpers.hpp"
#include "text/text_reader.hpp"

namespace rebound::dsl::text {

// `trip ...`, `open ...`, `half open N calls`, `slow call D`, `failures ...` in a breaker block.
void TextReader::read_breaker_statement(const LineParts& parts) {
    if (!first_in_block(parts)) {
        return;
    }
    BreakerNode& node = block_->breaker;
    const auto duration_of = [&](Role role, std::string_view after, std::string_view key) {
        const Token* token = parts.find(role);
        return duration_value(token, token != nullptr ? token->text : "", after, block_path(key));
    };
    switch (parts.statement) {
        case Statement::Trip:
            if (const Token* ratio = parts.find(Role::FailureRatio)) {
                node.failure_ratio =
                    fraction_value(ratio, "the failure ratio", "50%", block_path("failure_ratio"));
                node.minimum_calls =
                    integer_value(parts.find(Role::MinimumCalls), "the number of calls",
                                  block_path("minimum_calls"));
                node.window = duration_of(Role::Window, "'in'", "window");
            } else {
                node.consecutive_failures = integer_value(parts.find(Role::ConsecutiveFailures),
                                                          "the number of consecutive failures",
                                                          block_path("consecutive_failures"));
            }
            break;
        case Statement::Open:
            node.open_for = duration_of(Role::OpenFor, "'open'", "open_for");
            if (parts.find(Role::MaxOpenFor) != nullptr) {
                node.max_open_for = duration_of(Role::MaxOpenFor, "'max'", "max_open_for");
            }
            break;
        case Statement::HalfOpen:
            node.half_open_calls =
                integer_value(parts.find(Role::HalfOpenCalls), "the number of half-open calls",
                              block_path("half_open_calls"));
            break;
        case Statement::SlowCall:
            node.slow_call = duration_of(Role::SlowCall, "'slow call'", "slow_call");
            break;
        case Statement::Failures:
            node.failures = read_matchers(parts, "failures");
            break;
        default:
            break;
    }
}

// `server delay USE [cap D] [over cap ACTION] [spread N%]`; left out as a whole when a part
// cannot be read.
std::optional<ServerDelayNode> TextReader::read_server_delay(const LineParts& parts) {
    const std::string field = block_path("server_delay");
    ServerDelayNode node;
    node.position = parts.position;
    bool complete = true;
    if (const Token* use = parts.find(Role::ServerDelayUse)) {
        if (const std::optional<ServerDelayUse> parsed = parse_word<ServerDelayUse>(use->text)) {
            node.use = Located<ServerDelayUse>{*parsed, use->position};
        } else {
            report(DiagnosticCode::UnknownValue, use->position, field + ".use",
                   "unknown server delay use " + quoted_excerpt(use->text),
                   suggestion_for(use->text, words_of<ServerDelayUse>()));
            complete = false;
        }
    }
    if (const Token* cap = parts.find(Role::ServerDelayCap)) {
        node.cap = duration_value(cap, cap->text, "'cap'", field + ".cap");
        complete = complete && node.cap.has_value();
    }
    if (const Token* action = parts.find(Role::OverCapAction)) {
        if (const std::optional<OverCapAction> parsed = parse_word<OverCapAction>(action->text)) {
            node.over_cap = Located<OverCapAction>{*parsed, action->position};
        } else {
            report(DiagnosticCode::UnknownValue, action->position, field + ".over_cap",
                   "unknown over-cap action " + quoted_excerpt(action->text),
                   suggestion_for(action->text, words_of<OverCapAction>()));
            complete = false;
        }
    }
    if (const Token* spread = parts.find(Role::Spread)) {
        node.spread = fraction_value(spread, "the spread", "10%", field + ".spread");
        complete = complete && node.spread.has_value();
    }
    if (!complete) {
        return std::nullopt;
    }
    return node;
}

// `hedge none`, or `hedge after D|pQ [within MIN..MAX] [window D] [warmup N] [extra P%] [burst N]
// [on failure next|wait]`; left out as a whole when a part cannot be read.
std::optional<HedgeNode> TextReader::read_hedge(const LineParts& parts) {
    HedgeNode node;
    node.position = parts.position;
    if (parts.find(Role::HedgeNone) != nullptr) {
        node.none = true;
        return node;
    }
    const std::string field = block_path("hedge");
    bool complete = read_hedge_delay(parts, node);
    if (const Token* window = parts.find(Role::HedgeWindow)) {
        node.window = duration_value(window, window->text, "'window'", field + ".window");
        complete = complete && node.window.has_value();
    }
    if (const Token* warmup = parts.find(Role::HedgeWarmup)) {
        node.warmup = integer_value(warmup, "the warmup", field + ".warmup");
        complete = complete && node.warmup.has_value();
    }
    if (const Token* extra = parts.find(Role::HedgeExtra)) {
        node.max_extra_load =
            fraction_value(extra, "the extra load", "5%", field + ".max_extra_load");
        complete = complete && node.max_extra_load.has_value();
    }
    if (const Token* burst = parts.find(Role::HedgeBurst)) {
        node.burst = integer_value(burst, "the burst", field + ".burst");
        complete = complete && node.burst.has_value();
    }
    if (const Token* action = parts.find(Role::HedgeOnFailure)) {
        if (const std::optional<HedgeOnFailure> parsed = parse_word<HedgeOnFailure>(action->text)) {
            node.on_failure = Located<HedgeOnFailure>{*parsed, action->position};
        } else {
            report(DiagnosticCode::UnknownValue, action->position, field + ".on_failure",
                   "unknown hedge on-failure action " + quoted_excerpt(action->text),
                   suggestion_for(action->text, words_of<HedgeOnFailure>()));
            complete = false;
        }
    }
    if (!complete) {
        return std::nullopt;
    }
    return node;
}

// `after 20ms` (fixed), or `after p95 within 2ms..250ms` (learned: the range is required).
bool TextReader::read_hedge_delay(const LineParts& parts, HedgeNode& node) {
    const Token* delay = parts.find(Role::HedgeDelay);
    const Token* range = parts.find(Role::HedgeRange);
    if (delay == nullptr) {
        return false;
    }
    const std::string field = block_path("hedge.delay");
    if (!delay->text.starts_with('p')) {
        node.delay = duration_value(delay, delay->text, "'hedge after'", field);
        if (node.delay && range != nullptr) {
            report(DiagnosticCode::ConflictingFields, range->position, field,
                   "'within' bounds a learned delay such as p95, not a fixed delay",
                   "write 'hedge after p95 within 2ms..250ms', or leave 'within' out");
            return false;
        }
        return node.delay.has_value();
    }
    node.learned = true;
    node.learned_position = delay->position;
    const std::string_view percent = delay->text.substr(1);
    if (!is_decimal_text(percent)) {
        report(DiagnosticCode::WrongType, delay->position, field + ".quantile",
               "a learned hedge delay is a quantile such as p95 or p99.9, got " +
                   quoted_excerpt(delay->text));
        return false;
    }
    node.quantile = number_value(delay, percent_as_fraction(percent), "the quantile", "p95",
                                 field + ".quantile");
    if (range == nullptr) {
        report(DiagnosticCode::MissingField, delay->position, field + ".max",
               "a learned hedge delay needs its bounds: 'within MIN..MAX'",
               "write 'hedge after " + excerpt(delay->text) + " within 2ms..250ms'");
        return false;
    }
    return read_hedge_range(*range, node) && node.quantile.has_value();
}

// `2ms..250ms`: the learned delay's min and max, each positioned where it stands.
bool TextReader::read_hedge_range(const Token& range, HedgeNode& node) {
    const std::string field = block_path("hedge.delay");
    const std::size_t dots = range.text.find("..");
    if (dots == std::string_view::npos) {
        report(DiagnosticCode::InvalidValue, range.position, field,
               "expected a range such as 2ms..250ms after 'within', got " +
                   quoted_excerpt(range.text));
        return false;
    }
    const Token min{range.role, range.text.substr(0, dots), range.position};
    const Token max{range.role,
                    range.text.substr(dots + 2),
                    {range.position.line, range.position.column + narrow(dots + 2)}};
    node.min = duration_value(&min, min.text, "'within'", field + ".min");
    node.max = duration_value(&max, max.text, "'..'", field + ".max");
    return node.min.has_value() && node.max.has_value();
}

}  // namespace rebound::dsl::text

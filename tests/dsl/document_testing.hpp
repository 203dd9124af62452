// Test helpers for Documents: values built by hand, and comparison without source positions.
#pragma once

#include <filesystem>
#include <optional>
#include <utility>

#include "rebound/dsl/document.hpp"

namespace rebound::dsl::testing {

// The spec's version-2 conformance vectors (breakers, server delay hints, `calls`): not
// implemented yet, so the front-end tests skip them; tests/conformance runs them as
// expected-to-fail cases.
inline bool is_version_2_vector(const std::filesystem::path& path) {
    return path.filename().string().starts_with("06-resilience");
}

// A value with no source position, as code (not text) would produce it.
template <typename T>
Located<T> located(T value) {
    return Located<T>{std::move(value), SourcePosition{}};
}

// A present Field holding `value`.
template <typename T>
Field<T> field(T value) {
    return located(std::move(value));
}

namespace detail {

inline void strip(SourcePosition& position) {
    position = SourcePosition{};
}
inline void strip(BackoffNode& node);
inline void strip(JitterNode& node);
inline void strip(BudgetNode& node);
inline void strip(RouteNode& node);
inline void strip(ServerDelayNode& node);
inline void strip(HedgeNode& node);
inline void strip(PolicyFields& fields);
template <typename T>
void strip(Located<T>& value);
template <typename T>
void strip(std::optional<T>& value);
template <typename T>
void strip(ListNode<T>& list);

// The value types held by Located (strings, numbers, enumerations, Matcher) have no positions.
template <typename T>
void strip(Located<T>& value) {
    strip(value.position);
}

template <typename T>
void strip(std::optional<T>& value) {
    if (value) {
        strip(*value);
    }
}

template <typename T>
void strip(ListNode<T>& list) {
    strip(list.position);
    for (T& item : list.items) {
        strip(item);
    }
}

inline void strip(BackoffNode& node) {
    strip(node.type);
    strip(node.delay);
    strip(node.initial);
    strip(node.increment);
    strip(node.multiplier);
    strip(node.max);
    strip(node.position);
}

inline void strip(JitterNode& node) {
    strip(node.type);
    strip(node.amount);
    strip(node.factor);
    strip(node.position);
}

inline void strip(BudgetNode& node) {
    strip(node.max_tokens);
    strip(node.token_ratio);
    strip(node.position);
}

inline void strip(RouteNode& node) {
    strip(node.up_to);
    strip(node.target);
    strip(node.position);
}

inline void strip(ServerDelayNode& node) {
    strip(node.use);
    strip(node.cap);
    strip(node.over_cap);
    strip(node.spread);
    strip(node.position);
}

inline void strip(HedgeNode& node) {
    strip(node.delay);
    strip(node.quantile);
    strip(node.min);
    strip(node.max);
    strip(node.learned_position);
    strip(node.max_extra_load);
    strip(node.burst);
    strip(node.on_failure);
    strip(node.window);
    strip(node.warmup);
    strip(node.position);
}

inline void strip(BreakerNode& node) {
    strip(node.name);
    strip(node.failure_ratio);
    strip(node.minimum_calls);
    strip(node.window);
    strip(node.consecutive_failures);
    strip(node.open_for);
    strip(node.max_open_for);
    strip(node.half_open_calls);
    strip(node.slow_call);
    strip(node.failures);
    strip(node.position);
}

inline void strip(PolicyFields& f) {
    for (auto& given : f.scalars) {
        strip(given.second);
    }
    strip(f.backoff);
    strip(f.jitter);
    strip(f.retry_on);
    strip(f.never_retry_on);
    strip(f.retry_if);
    strip(f.budget);
    strip(f.routes);
    strip(f.server_delay);
    strip(f.hedge);
}

}  // namespace detail

// `document` with every SourcePosition zeroed (`file` is kept), so that Documents read from
// different texts compare equal when they state the same things.
inline Document strip_positions(Document document) {
    using detail::strip;
    strip(document.version);
    strip(document.service);
    if (document.defaults) {
        strip(document.defaults->fields);
        strip(document.defaults->position);
    }
    strip(document.policies_position);
    for (BreakerNode& breaker : document.breakers) {
        strip(breaker);
    }
    for (PolicyNode& policy : document.policies) {
        strip(policy.name);
        strip(policy.fields);
        strip(policy.position);
    }
    for (HandlerNode& handler : document.handlers) {
        strip(handler.key);
        strip(handler.policy);
        strip(handler.idempotent);
        strip(handler.position);
    }
    strip(document.default_policy);
    return document;
}

}  // namespace rebound::dsl::testing

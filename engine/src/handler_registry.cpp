#include "rebound/handler_registry.hpp"

#include "rebound/error_type_registry.hpp"

namespace rebound {
namespace {

std::string quoted(std::string_view text) {
    return "'" + std::string(text) + "'";
}

std::string service_text(const PolicySet* set) {
    return set != nullptr ? " of service " + quoted(set->service()) : std::string();
}

}  // namespace

void HandlerRegistry::add(HandlerRegistration registration) {
    if (!is_valid_name(registration.name)) {
        throw HandlerRegistrationError("handler name " + quoted(registration.name) +
                                       " is not a valid name");
    }
    if (!registration.tier.empty() && registration.policy) {
        throw HandlerRegistrationError("handler " + quoted(registration.name) +
                                       " gives both a tier and a policy in code");
    }
    if (!registration.tier.empty() && !is_valid_name(registration.tier)) {
        throw HandlerRegistrationError("handler " + quoted(registration.name) + ": tier " +
                                       quoted(registration.tier) + " is not a valid name");
    }
    const auto [it, inserted] = handlers_.try_emplace(registration.name, registration);
    if (!inserted) {
        throw HandlerRegistrationError("handler " + quoted(registration.name) +
                                       " is already registered");
    }
}

void HandlerRegistry::add(std::string_view name, const RetryPolicyProvider& handler,
                          bool idempotent) {
    HandlerRegistration registration;
    registration.name = std::string(name);
    registration.policy = handler.retry_policy();
    registration.idempotent = idempotent;
    if (!registration.policy) {
        throw HandlerRegistrationError("handler " + quoted(name) +
                                       ": retry_policy() returned no policy");
    }
    add(std::move(registration));
}

const HandlerRegistration* HandlerRegistry::find(std::string_view handler) const {
    const auto it = handlers_.find(handler);
    return it != handlers_.end() ? &it->second : nullptr;
}

HandlerResolution HandlerRegistry::resolve(std::string_view handler, const PolicySet* set) const {
    const HandlerRegistration* registration = find(handler);
    const HandlerBinding* binding = set != nullptr ? set->find_binding(handler) : nullptr;
    const bool idempotent = binding != nullptr
                                ? binding->idempotent
                                : (registration != nullptr && registration->idempotent);
    HandlerResolution resolution;
    resolution.idempotent = idempotent;
    if (registration != nullptr && registration->policy) {
        resolution.policy = registration->policy;
        resolution.via = ResolvedVia::Code;
        return resolution;
    }
    if (binding != nullptr) {
        resolution.policy = set->find(binding->policy);
        resolution.via = ResolvedVia::Binding;
        resolution.binding_key = binding->key;
        return resolution;
    }
    if (registration != nullptr && !registration->tier.empty() && set != nullptr) {
        if (auto tier_policy = set->find(registration->tier)) {
            resolution.policy = std::move(tier_policy);
            resolution.via = ResolvedVia::Annotation;
            return resolution;
        }
    }
    if (set != nullptr && set->default_policy()) {
        resolution.policy = set->find(*set->default_policy());
        resolution.via = ResolvedVia::Default;
        return resolution;
    }
    resolution.policy = PolicySet::builtin();
    resolution.via = ResolvedVia::Builtin;
    return resolution;
}

HandlerExplanation HandlerRegistry::explain(std::string_view handler, const PolicySet* set) const {
    const HandlerResolution resolution = resolve(handler, set);
    const HandlerRegistration* registration = find(handler);
    HandlerExplanation explanation;
    explanation.handler = std::string(handler);
    explanation.policy = resolution.policy->name();
    explanation.via = resolution.via;
    explanation.idempotent = resolution.idempotent;
    const auto passed_over = [&](ResolvedVia source, std::string why) {
        if (source < resolution.via) {
            explanation.passed_over.push_back(std::string(to_string(source)) + ": " +
                                              std::move(why));
        }
    };
    passed_over(ResolvedVia::Code, registration == nullptr ? "the handler is not registered in code"
                                                           : "the handler's code gives no policy");
    passed_over(ResolvedVia::Binding, set == nullptr ? "no service file"
                                                     : "no handlers: key" + service_text(set) +
                                                           " matches " + quoted(handler));
    if (registration == nullptr || registration->tier.empty()) {
        passed_over(ResolvedVia::Annotation, "no tier registered in code");
    } else {
        passed_over(ResolvedVia::Annotation,
                    "tier " + quoted(registration->tier) + " is not a policy" + service_text(set));
    }
    passed_over(ResolvedVia::Default,
                set == nullptr ? "no service file"
                               : "service " + quoted(set->service()) + " has no default");
    switch (resolution.via) {
        case ResolvedVia::Code:
            explanation.rule = "policy given by the handler's code";
            break;
        case ResolvedVia::Binding:
            explanation.rule = "binding " + quoted(resolution.binding_key) + service_text(set);
            break;
        case ResolvedVia::Annotation:
            explanation.rule = "tier " + quoted(registration->tier) + " registered in code";
            break;
        case ResolvedVia::Default:
            explanation.rule = "default" + service_text(set);
            break;
        case ResolvedVia::Builtin:
            explanation.rule = "built-in policy";
            break;
    }
    return explanation;
}

std::vector<UnknownTier> HandlerRegistry::unknown_tiers(const PolicySet& set) const {
    std::vector<UnknownTier> unknown;
    for (const auto& [name, registration] : handlers_) {
        if (!registration.tier.empty() && !set.find(registration.tier)) {
            unknown.push_back({name, registration.tier});
        }
    }
    return unknown;
}

std::string to_string(const HandlerExplanation& explanation) {
    std::string text = "handler " + quoted(explanation.handler) + " uses policy " +
                       quoted(explanation.policy) + " (via " +
                       std::string(to_string(explanation.via)) + ": " + explanation.rule + ")";
    if (explanation.idempotent) {
        text += ", idempotent";
    }
    for (const std::string& line : explanation.passed_over) {
        text += "\n  passed over ";
        text += line;
    }
    return text;
}

}  // namespace rebound

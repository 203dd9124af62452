#include "rebound/handler_registry.hpp"

#include <algorithm>

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
    if (index_.find(registration.name) != NameIndex::npos) {
        throw HandlerRegistrationError("handler " + quoted(registration.name) +
                                       " is already registered");
    }
    if (handlers_.size() >= NameIndex::npos) {
        throw HandlerRegistrationError("too many handlers");
    }
    const std::uint64_t tier_hash = NameIndex::hash(registration.tier);
    handlers_.push_back(Entry{std::move(registration), tier_hash});
    try {
        index_.insert(handlers_.back().registration.name,
                      static_cast<std::uint32_t>(handlers_.size() - 1));
    } catch (...) {
        handlers_.pop_back();
        throw;
    }
    if (handlers_.back().registration.policy) {
        ++code_policies_;
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

std::vector<std::string_view> HandlerRegistry::names() const {
    std::vector<std::string_view> names;
    names.reserve(handlers_.size());
    for (const Entry& entry : handlers_) {
        names.push_back(entry.registration.name);
    }
    return names;
}

const HandlerRegistration* HandlerRegistry::find(std::string_view handler) const noexcept {
    const std::uint32_t at = index_.find(handler);
    return at != NameIndex::npos ? &handlers_[at].registration : nullptr;
}

HandlerRegistry::Choice HandlerRegistry::choose(std::string_view handler,
                                                const PolicySet* set) const noexcept {
    const std::uint64_t handler_hash = NameIndex::hash(handler);
    const HandlerBinding* binding =
        set != nullptr ? set->find_binding(handler, handler_hash) : nullptr;
    Choice choice;
    const bool binding_states_idempotence = binding != nullptr && binding->idempotent.has_value();
    if (binding_states_idempotence) {
        choice.idempotent = *binding->idempotent;
        choice.idempotent_source = IdempotenceSource::Binding;
    }
    // A file binding loses only to a policy given in code: without any such registration, and
    // with idempotency stated by the binding, the registry need not be probed.
    if (binding_states_idempotence && code_policies_ == 0) {
        choice.policy = &set->policy_of(*binding);
        choice.via = ResolvedVia::Binding;
        choice.binding_key = binding->key;
        return choice;
    }
    const std::uint32_t at = index_.find(handler, handler_hash);
    const Entry* entry = at != NameIndex::npos ? &handlers_[at] : nullptr;
    const HandlerRegistration* registration = entry != nullptr ? &entry->registration : nullptr;
    if (!binding_states_idempotence && registration != nullptr) {
        choice.idempotent = registration->idempotent;
        choice.idempotent_source = IdempotenceSource::Code;
    }
    if (registration != nullptr && registration->policy) {
        choice.policy = &registration->policy;
        choice.via = ResolvedVia::Code;
        return choice;
    }
    if (binding != nullptr) {
        choice.policy = &set->policy_of(*binding);
        choice.via = ResolvedVia::Binding;
        choice.binding_key = binding->key;
        return choice;
    }
    if (registration != nullptr && !registration->tier.empty() && set != nullptr) {
        if (const auto* tier_policy = set->find_policy(registration->tier, entry->tier_hash)) {
            choice.policy = tier_policy;
            choice.via = ResolvedVia::Annotation;
            return choice;
        }
    }
    if (set != nullptr) {
        if (const auto* default_policy = set->default_policy_ptr()) {
            choice.policy = default_policy;
            choice.via = ResolvedVia::Default;
            return choice;
        }
    }
    choice.policy = &PolicySet::builtin();
    choice.via = ResolvedVia::Builtin;
    return choice;
}

HandlerResolution HandlerRegistry::resolve(std::string_view handler, const PolicySet* set) const {
    const Choice choice = choose(handler, set);
    HandlerResolution resolution;
    resolution.policy = *choice.policy;
    resolution.via = choice.via;
    resolution.idempotent = choice.idempotent;
    resolution.idempotent_source = choice.idempotent_source;
    resolution.binding_key = choice.binding_key;
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
    explanation.idempotent_source = resolution.idempotent_source;
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
    for (const Entry& entry : handlers_) {
        const HandlerRegistration& registration = entry.registration;
        if (!registration.tier.empty() &&
            set.find_policy(registration.tier, entry.tier_hash) == nullptr) {
            unknown.push_back({registration.name, registration.tier});
        }
    }
    std::sort(unknown.begin(), unknown.end(),
              [](const UnknownTier& a, const UnknownTier& b) { return a.handler < b.handler; });
    return unknown;
}

std::string to_string(const HandlerExplanation& explanation) {
    std::string text = "handler " + quoted(explanation.handler) + " uses policy " +
                       quoted(explanation.policy) + " (via " +
                       std::string(to_string(explanation.via)) + ": " + explanation.rule + ")";
    text += ", idempotent: ";
    text += explanation.idempotent ? "true" : "false";
    text += " (" + std::string(to_string(explanation.idempotent_source)) + ")";
    for (const std::string& line : explanation.passed_over) {
        text += "\n  passed over ";
        text += line;
    }
    return text;
}

}  // namespace rebound

#include "rebound/resilience_registry.hpp"

#include <algorithm>

namespace rebound {
namespace {

bool listed(std::span<const std::string> names, std::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::shared_ptr<CircuitBreaker> ResilienceRegistry::breaker(std::string_view service,
                                                            const BreakerSettings& settings,
                                                            Clock::TimePoint now,
                                                            const ErrorTypeRegistry* error_types) {
    const std::lock_guard lock(mutex_);
    Key key{std::string(service), settings.name};
    if (const auto found = breakers_.find(key); found != breakers_.end()) {
        if (found->second->settings() != settings) {
            found->second->update_settings(settings, error_types);
        }
        return found->second;
    }
    auto created = std::make_shared<CircuitBreaker>(settings, now, error_types);
    attach_listener(key.first, *created);
    breakers_.emplace(std::move(key), created);
    return created;
}

void ResilienceRegistry::attach_listener(const std::string& service,
                                         CircuitBreaker& breaker) const {
    if (!listener_) {
        breaker.set_transition_listener({});
        return;
    }
    breaker.set_transition_listener(
        [listener = listener_, service](const BreakerTransition& transition) {
            listener(service, transition);
        });
}

void ResilienceRegistry::set_transition_listener(TransitionListener listener) {
    const std::lock_guard lock(mutex_);
    listener_ = std::move(listener);
    for (const auto& [key, breaker] : breakers_) {
        attach_listener(key.first, *breaker);
    }
}

std::shared_ptr<RetryBudget> ResilienceRegistry::budget(std::string_view service,
                                                        std::string_view policy,
                                                        const BudgetSettings& settings) {
    const std::lock_guard lock(mutex_);
    Key key{std::string(service), std::string(policy)};
    const auto found = budgets_.find(key);
    if (found == budgets_.end()) {
        auto created = std::make_shared<RetryBudget>(settings);
        budgets_.emplace(std::move(key), BudgetEntry{settings, created});
        return created;
    }
    BudgetEntry& entry = found->second;
    if (entry.settings != settings) {
        const double scaled = entry.budget->tokens() * settings.max_tokens /
                              static_cast<double>(entry.settings.max_tokens);
        entry.budget = std::make_shared<RetryBudget>(settings, scaled);
        entry.settings = settings;
    }
    return entry.budget;
}

std::shared_ptr<HedgeTokens> ResilienceRegistry::hedge_tokens(std::string_view service,
                                                              std::string_view policy,
                                                              const HedgeTokenSettings& settings) {
    const std::lock_guard lock(mutex_);
    Key key{std::string(service), std::string(policy)};
    const auto found = hedge_tokens_.find(key);
    if (found == hedge_tokens_.end()) {
        auto created = std::make_shared<HedgeTokens>(settings);
        hedge_tokens_.emplace(std::move(key), created);
        return created;
    }
    std::shared_ptr<HedgeTokens>& tokens = found->second;
    if (tokens->settings() != settings) {
        const double scaled =
            tokens->tokens() * settings.burst / static_cast<double>(tokens->settings().burst);
        tokens = std::make_shared<HedgeTokens>(settings, scaled);
    }
    return tokens;
}

void ResilienceRegistry::retain_hedge_tokens(std::string_view service,
                                             std::span<const std::string> policies) {
    const std::lock_guard lock(mutex_);
    std::erase_if(hedge_tokens_, [&](const auto& entry) {
        return entry.first.first == service && !listed(policies, entry.first.second);
    });
}

void ResilienceRegistry::retain(std::string_view service,
                                std::span<const std::string> breaker_names,
                                std::span<const std::string> budget_policies) {
    const std::lock_guard lock(mutex_);
    std::erase_if(breakers_, [&](const auto& entry) {
        return entry.first.first == service && !listed(breaker_names, entry.first.second);
    });
    std::erase_if(budgets_, [&](const auto& entry) {
        return entry.first.first == service && !listed(budget_policies, entry.first.second);
    });
}

std::vector<std::pair<std::string, std::shared_ptr<CircuitBreaker>>> ResilienceRegistry::breakers()
    const {
    const std::lock_guard lock(mutex_);
    std::vector<std::pair<std::string, std::shared_ptr<CircuitBreaker>>> all;
    all.reserve(breakers_.size());
    for (const auto& [key, breaker] : breakers_) {
        all.emplace_back(key.first, breaker);
    }
    return all;
}

std::vector<ResilienceRegistry::RegisteredBudget> ResilienceRegistry::budgets() const {
    const std::lock_guard lock(mutex_);
    std::vector<RegisteredBudget> all;
    all.reserve(budgets_.size());
    for (const auto& [key, entry] : budgets_) {
        all.push_back({key.first, key.second, entry.settings, entry.budget});
    }
    return all;
}

ResilienceRegistry& ResilienceRegistry::process() noexcept {
    static ResilienceRegistry registry;
    return registry;
}

}  // namespace rebound

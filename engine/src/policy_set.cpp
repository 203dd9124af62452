#include "rebound/policy_set.hpp"

#include <stdexcept>

namespace rebound {
namespace {

constexpr std::string_view kPrefixSuffix = ".*";

bool is_prefix_key(std::string_view key) noexcept {
    return key.size() > kPrefixSuffix.size() && key.ends_with(kPrefixSuffix);
}

}  // namespace

PolicySet::PolicySet(std::string service, std::vector<std::shared_ptr<const Policy>> policies,
                     std::vector<HandlerBinding> bindings, std::optional<std::string> default_policy)
    : service_(std::move(service)),
      policies_(std::move(policies)),
      bindings_(std::move(bindings)),
      default_policy_(std::move(default_policy)) {
    for (std::size_t i = 0; i < policies_.size(); ++i) {
        if (!policies_[i]) {
            throw std::invalid_argument("policy set '" + service_ + "' holds a null policy");
        }
        if (!policy_index_.emplace(policies_[i]->name(), i).second) {
            throw std::invalid_argument("policy '" + policies_[i]->name() + "' is defined twice");
        }
    }
    const auto require_policy = [this](const std::string& name, const std::string& what) {
        if (!find(name)) {
            throw std::invalid_argument(what + " names unknown policy '" + name + "'");
        }
    };
    for (std::size_t i = 0; i < bindings_.size(); ++i) {
        const HandlerBinding& binding = bindings_[i];
        require_policy(binding.policy, "handler '" + binding.key + "'");
        const std::string_view key = binding.key;
        const bool inserted =
            is_prefix_key(key)
                ? prefix_bindings_.emplace(std::string(key.substr(0, key.size() - 1)), i).second
                : exact_bindings_.emplace(binding.key, i).second;
        if (!inserted) {
            throw std::invalid_argument("handler key '" + binding.key + "' is bound twice");
        }
    }
    if (default_policy_) {
        require_policy(*default_policy_, "default");
    }
}

const std::shared_ptr<const Policy>& PolicySet::builtin() {
    static const std::shared_ptr<const Policy> policy = [] {
        PolicyResult result = Policy::create(builtin_policy_spec());
        if (!result) {
            throw std::logic_error("the built-in policy does not validate");
        }
        return result.policy;
    }();
    return policy;
}

std::shared_ptr<const Policy> PolicySet::find(std::string_view name) const {
    if (const auto it = policy_index_.find(name); it != policy_index_.end()) {
        return policies_[it->second];
    }
    if (name == builtin()->name()) {
        return builtin();
    }
    return nullptr;
}

const HandlerBinding* PolicySet::find_binding(std::string_view handler) const {
    if (const auto it = exact_bindings_.find(handler); it != exact_bindings_.end()) {
        return &bindings_[it->second];
    }
    // Longest prefix first: for a.b.c try "a.b." then "a.".
    for (auto dot = handler.rfind('.'); dot != std::string_view::npos && dot > 0;
         dot = handler.rfind('.', dot - 1)) {
        if (const auto it = prefix_bindings_.find(handler.substr(0, dot + 1));
            it != prefix_bindings_.end()) {
            return &bindings_[it->second];
        }
    }
    return nullptr;
}

HandlerResolution PolicySet::resolve(std::string_view handler) const {
    HandlerResolution resolution;
    if (const HandlerBinding* binding = find_binding(handler)) {
        resolution.policy = find(binding->policy);
        resolution.via = ResolvedVia::Binding;
        resolution.idempotent = binding->idempotent;
        resolution.binding_key = binding->key;
        return resolution;
    }
    if (default_policy_) {
        resolution.policy = find(*default_policy_);
        resolution.via = ResolvedVia::Default;
        return resolution;
    }
    resolution.policy = builtin();
    resolution.via = ResolvedVia::Builtin;
    return resolution;
}

}  // namespace rebound

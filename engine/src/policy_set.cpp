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
                     std::vector<HandlerBinding> bindings,
                     std::optional<std::string> default_policy)
    : service_(std::move(service)),
      policies_(std::move(policies)),
      bindings_(std::move(bindings)),
      default_policy_(std::move(default_policy)) {
    for (std::size_t i = 0; i < policies_.size(); ++i) {
        if (!policies_[i]) {
            throw std::invalid_argument("policy set '" + service_ + "' holds a null policy");
        }
        if (!policy_index_.insert(policies_[i]->name(), static_cast<std::uint32_t>(i))) {
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
        binding_policies_.push_back(find(binding.policy));
        const std::string_view key = binding.key;
        const auto index = static_cast<std::uint32_t>(i);
        const bool inserted = is_prefix_key(key)
                                  ? prefix_bindings_.insert(key.substr(0, key.size() - 1), index)
                                  : exact_bindings_.insert(key, index);
        if (!inserted) {
            throw std::invalid_argument("handler key '" + binding.key + "' is bound twice");
        }
    }
    if (default_policy_) {
        require_policy(*default_policy_, "default");
        default_ = find(*default_policy_);
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

const std::shared_ptr<const Policy>* PolicySet::find_policy(
    std::string_view name, std::uint64_t name_hash) const noexcept {
    if (const std::uint32_t at = policy_index_.find(name, name_hash); at != NameIndex::npos) {
        return &policies_[at];
    }
    const std::shared_ptr<const Policy>& fallback = builtin();
    return name == fallback->name() ? &fallback : nullptr;
}

std::shared_ptr<const Policy> PolicySet::find(std::string_view name) const {
    const std::shared_ptr<const Policy>* policy = find_policy(name, NameIndex::hash(name));
    return policy != nullptr ? *policy : nullptr;
}

const HandlerBinding* PolicySet::find_binding(std::string_view handler,
                                              std::uint64_t handler_hash) const noexcept {
    if (const std::uint32_t at = exact_bindings_.find(handler, handler_hash);
        at != NameIndex::npos) {
        return &bindings_[at];
    }
    if (prefix_bindings_.size() == 0) {
        return nullptr;
    }
    // Longest prefix first: for a.b.c try "a.b." then "a.".
    for (auto dot = handler.rfind('.'); dot != std::string_view::npos && dot > 0;
         dot = handler.rfind('.', dot - 1)) {
        if (const std::uint32_t at = prefix_bindings_.find(handler.substr(0, dot + 1));
            at != NameIndex::npos) {
            return &bindings_[at];
        }
    }
    return nullptr;
}

HandlerResolution PolicySet::resolve(std::string_view handler) const {
    HandlerResolution resolution;
    if (const HandlerBinding* binding = find_binding(handler)) {
        resolution.policy = policy_of(*binding);
        resolution.via = ResolvedVia::Binding;
        if (binding->idempotent) {
            resolution.idempotent = *binding->idempotent;
            resolution.idempotent_source = IdempotenceSource::Binding;
        }
        resolution.binding_key = binding->key;
        return resolution;
    }
    if (default_policy_) {
        resolution.policy = default_;
        resolution.via = ResolvedVia::Default;
        return resolution;
    }
    resolution.policy = builtin();
    resolution.via = ResolvedVia::Builtin;
    return resolution;
}

}  // namespace rebound

// PolicySet: the compiled policies of one service file and its handler bindings.
//
// Immutable once built and shared as std::shared_ptr<const PolicySet>. Binding resolution for a
// handler name (docs/semantics.md, steps 2, 4 and 5): an exact key wins; otherwise the longest
// matching `prefix.*` key; otherwise the file's `default`; otherwise the built-in policy
// `builtin`. Code-provided and annotation tiers (steps 1 and 3) are layered on top by the
// handler registry.
#pragma once

#include <cstdint>
#include <map>  // kept for includers that relied on it
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rebound/internal/name_index.hpp"
#include "rebound/policy.hpp"

namespace rebound {

// Which rule chose a handler's policy.
enum class ResolvedVia : std::uint8_t { Code, Binding, Annotation, Default, Builtin };

constexpr std::string_view to_string(ResolvedVia v) noexcept {
    switch (v) {
        case ResolvedVia::Code:
            return "code";
        case ResolvedVia::Binding:
            return "binding";
        case ResolvedVia::Annotation:
            return "annotation";
        case ResolvedVia::Default:
            return "default";
        case ResolvedVia::Builtin:
            break;
    }
    return "builtin";
}

// Where a handler's idempotency came from (docs/semantics.md): the file's binding when it states
// `idempotent`, else the handler's registration in code, else the default (not idempotent).
enum class IdempotenceSource { Default, Code, Binding };

// "default", "handler code", "file binding": as `rebound explain` prints it.
constexpr std::string_view to_string(IdempotenceSource s) noexcept {
    switch (s) {
        case IdempotenceSource::Code:
            return "handler code";
        case IdempotenceSource::Binding:
            return "file binding";
        case IdempotenceSource::Default:
            break;
    }
    return "default";
}

// The largest `redeliveries` a binding may state.
inline constexpr std::int64_t kMaxRedeliveries = 1000;

// One `handlers:` entry. `key` is an exact handler name or a pattern ending in `.*`.
struct HandlerBinding {
    std::string key;
    std::string policy;
    // What the entry states; nullopt when it says nothing, so that the handler's code decides.
    std::optional<bool> idempotent{};
    // The handlers this one's work calls, by name (resolved like any handler name, possibly in
    // another service's file), and how many more times a broker delivers a failed trigger.
    // Both only describe the call graph for the retry-amplification check (docs/resilience.md);
    // the decision never reads them.
    std::vector<std::string> calls{};
    std::int64_t redeliveries = 0;
    friend bool operator==(const HandlerBinding&, const HandlerBinding&) = default;
};

struct HandlerResolution {
    std::shared_ptr<const Policy> policy;
    ResolvedVia via = ResolvedVia::Builtin;
    bool idempotent = false;  // the effective value
    IdempotenceSource idempotent_source = IdempotenceSource::Default;
    std::string_view binding_key;  // the handlers: key that matched; empty otherwise

    // The policy a run under this resolution uses: `policy`, or the built-in one when it is
    // null (a resolution made in code may leave it null). The rvalue form moves `policy` out, so
    // that a run keeps a resolved policy without a reference-count increment.
    const std::shared_ptr<const Policy>& policy_or_builtin() const& noexcept;
    std::shared_ptr<const Policy> policy_or_builtin() && noexcept;
    // How that policy was chosen: `via`, or Builtin when `policy` is null.
    ResolvedVia via_or_builtin() const noexcept { return policy ? via : ResolvedVia::Builtin; }
};

class PolicySet {
  public:
    // Throws std::invalid_argument when a binding or the default names a policy not in
    // `policies`, when two policies share a name, or when a binding key is malformed.
    PolicySet(std::string service, std::vector<std::shared_ptr<const Policy>> policies,
              std::vector<HandlerBinding> bindings, std::optional<std::string> default_policy);

    const std::string& service() const noexcept { return service_; }
    // In file order; `builtin` is not among them.
    const std::vector<std::shared_ptr<const Policy>>& policies() const noexcept {
        return policies_;
    }
    const std::vector<HandlerBinding>& bindings() const noexcept { return bindings_; }
    const std::optional<std::string>& default_policy() const noexcept { return default_policy_; }

    // The policy named `name` (`builtin` included), or null.
    std::shared_ptr<const Policy> find(std::string_view name) const;

    // The policy of handler `handler` by the file's bindings, default, then builtin; idempotent
    // as the binding states it, else false (the file alone knows nothing of the handler's code).
    HandlerResolution resolve(std::string_view handler) const;

    // The binding that applies to `handler` (exact, else longest prefix), or null.
    const HandlerBinding* find_binding(std::string_view handler) const noexcept {
        return find_binding(handler, NameIndex::hash(handler));
    }
    // The same with `handler_hash` = NameIndex::hash(handler), computed once by the caller.
    // Hot path: an exact binding costs one hash probe; prefixes are tried only without one.
    const HandlerBinding* find_binding(std::string_view handler,
                                       std::uint64_t handler_hash) const noexcept;

    // The policy `binding` (one of bindings()) names, looked up at construction.
    const std::shared_ptr<const Policy>& policy_of(const HandlerBinding& binding) const noexcept {
        return binding_policies_[static_cast<std::size_t>(&binding - bindings_.data())];
    }
    // The policy named `name` (`builtin` included), or null; `name_hash` = NameIndex::hash(name).
    // Does not touch reference counts.
    const std::shared_ptr<const Policy>* find_policy(std::string_view name,
                                                     std::uint64_t name_hash) const noexcept;
    // The file's default policy, or null without one.
    const std::shared_ptr<const Policy>* default_policy_ptr() const noexcept {
        return default_ ? &default_ : nullptr;
    }

    // The shared built-in policy (docs/semantics.md step 5).
    static const std::shared_ptr<const Policy>& builtin();

  private:
    std::string service_;
    std::vector<std::shared_ptr<const Policy>> policies_;
    std::vector<HandlerBinding> bindings_;
    std::optional<std::string> default_policy_;
    // Parallel to bindings_: the policy each names.
    std::vector<std::shared_ptr<const Policy>> binding_policies_;
    std::shared_ptr<const Policy> default_;  // null without a default
    NameIndex policy_index_;                 // policy name -> policies_ index
    NameIndex exact_bindings_;               // handler name -> bindings_ index
    NameIndex prefix_bindings_;              // "jobs." -> bindings_ index
};

inline const std::shared_ptr<const Policy>& HandlerResolution::policy_or_builtin() const& noexcept {
    return policy ? policy : PolicySet::builtin();
}

inline std::shared_ptr<const Policy> HandlerResolution::policy_or_builtin() && noexcept {
    // Not a conditional expression: with builtin()'s const reference on one side, it would copy
    // `policy` (an atomic increment) instead of moving it.
    if (policy) {
        return std::move(policy);
    }
    return PolicySet::builtin();
}

}  // namespace rebound

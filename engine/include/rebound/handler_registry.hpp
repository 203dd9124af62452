// HandlerRegistry: the handlers a service registered in code, and how each finds its policy.
//
// A handler is the name of a unit of work (a command, an event consumer, a job). Code declares,
// next to the handler type, what an annotation would say:
//
//   struct ApproveCase {
//       REBOUND_HANDLER("ApproveCase", "interactive");  // name and tier, annotation-like
//       void operator()(const rebound::AttemptInfo&);
//   };
//   struct NightlyExport {
//       static constexpr std::string_view rebound_handler_name = "NightlyExport";
//       static std::shared_ptr<const rebound::Policy> retry_policy();  // policy given in code
//   };
//   registry.add<ApproveCase>();
//   registry.add<NightlyExport>();
//   registry.add({.name = "legacy.import", .tier = "background"});  // explicit form
//
// A handler object deriving from RetryPolicyProvider may be registered with add(name, object)
// instead (interface-style override). Resolution (docs/semantics.md), first hit wins:
//   1. code:       the policy given by the handler's code;
//   2. binding:    the service file's handlers: entry (exact key, else longest `prefix.*` key);
//   3. annotation: the tier named at registration, looked up among the file's policies;
//   4. default:    the file's `default`;
//   5. builtin:    the built-in policy.
// idempotent comes from the file binding when one matches and states it (`idempotent: false`
// included), else from the registration, else it is false: a binding that says nothing about
// idempotency leaves the code's value alone.
//
// An explicit registration point: fill it at start-up, then share it const; `add` must not run
// concurrently with anything else, every const member is safe from many threads.
#pragma once

#include <concepts>
#include <cstdint>
#include <deque>
#include <map>  // kept for includers that relied on it
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/internal/name_index.hpp"
#include "rebound/policy_set.hpp"

// Declares, inside a handler type, its handler name and retry tier, the way an annotation would.
#define REBOUND_HANDLER(handler_name, tier_name)                           \
    static constexpr std::string_view rebound_handler_name = handler_name; \
    static constexpr std::string_view rebound_retry_tier = tier_name

// Declares, inside a handler type, only its retry tier (the name is given to HandlerRegistry::add).
#define REBOUND_RETRY_TIER(tier_name) \
    static constexpr std::string_view rebound_retry_tier = tier_name

namespace rebound {

// Interface-style override: a handler object that provides its own policy.
class RetryPolicyProvider {
  public:
    virtual ~RetryPolicyProvider() = default;
    virtual std::shared_ptr<const Policy> retry_policy() const = 0;
};

struct HandlerRegistration {
    std::string name{};
    std::string tier{};                      // annotation tier (a policy name); empty for none
    std::shared_ptr<const Policy> policy{};  // policy given in code; null for none
    bool idempotent = false;
};

// Thrown when a handler name is registered twice, or a registration is malformed.
class HandlerRegistrationError : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

// A registered handler whose annotation tier names no policy of a service file.
struct UnknownTier {
    std::string handler;
    std::string tier;
};

// Why a handler uses its policy: for `rebound explain`-style reports and logs.
struct HandlerExplanation {
    std::string handler;
    std::string policy;
    ResolvedVia via = ResolvedVia::Builtin;
    bool idempotent = false;
    IdempotenceSource idempotent_source = IdempotenceSource::Default;
    std::string rule;  // the source that chose, e.g. "binding 'orders.*' of service 'payments'"
    // One line per source consulted before the chosen one, saying why it did not apply.
    std::vector<std::string> passed_over;
};

// "handler 'X' uses policy 'P' (via binding: ...), idempotent: false (file binding)", then one
// indented line per passed-over source.
std::string to_string(const HandlerExplanation& explanation);

namespace handler_traits {
template <typename T>
concept HasName = requires {
    { T::rebound_handler_name } -> std::convertible_to<std::string_view>;
};
template <typename T>
concept HasTier = requires {
    { T::rebound_retry_tier } -> std::convertible_to<std::string_view>;
};
template <typename T>
concept HasIdempotence = requires {
    { T::rebound_idempotent } -> std::convertible_to<bool>;
};
template <typename T>
concept ProvidesPolicy = requires {
    { T::retry_policy() } -> std::convertible_to<std::shared_ptr<const Policy>>;
};
}  // namespace handler_traits

class HandlerRegistry {
  public:
    // Registers one handler. Throws HandlerRegistrationError when the name is already registered,
    // is not a valid name, or the registration gives both a tier and a policy (only one can apply).
    void add(HandlerRegistration registration);

    // Registers handler type `Handler` from its annotation-like static members:
    // rebound_handler_name (required), rebound_retry_tier, rebound_idempotent, retry_policy().
    template <handler_traits::HasName Handler>
    void add() {
        add<Handler>(std::string_view(Handler::rebound_handler_name));
    }

    // The same with the name given here (for types with REBOUND_RETRY_TIER only).
    template <typename Handler>
    void add(std::string_view name) {
        HandlerRegistration registration;
        registration.name = std::string(name);
        if constexpr (handler_traits::HasTier<Handler>) {
            registration.tier = std::string(std::string_view(Handler::rebound_retry_tier));
        }
        if constexpr (handler_traits::HasIdempotence<Handler>) {
            registration.idempotent = Handler::rebound_idempotent;
        }
        if constexpr (handler_traits::ProvidesPolicy<Handler>) {
            registration.policy = Handler::retry_policy();
            if (!registration.policy) {
                throw HandlerRegistrationError("handler '" + registration.name +
                                               "': retry_policy() returned no policy");
            }
        }
        add(std::move(registration));
    }

    // Registers a handler object that provides its own policy (asked once, here).
    void add(std::string_view name, const RetryPolicyProvider& handler, bool idempotent = false);

    // The registration of `handler`, or null. Stays valid while the registry lives.
    const HandlerRegistration* find(std::string_view handler) const noexcept;
    std::size_t size() const noexcept { return handlers_.size(); }
    // Every registered name, in registration order; the views live as long as the registry.
    std::vector<std::string_view> names() const;

    // The policy of `handler` against the service file `set` (null: no file). Handlers that were
    // never registered resolve by the file and the built-in policy alone. The result's
    // binding_key views `set`. Allocates nothing for registered or unregistered names.
    HandlerResolution resolve(std::string_view handler, const PolicySet* set) const;

    // What resolve() chooses, as views that touch no reference count: `policy` points into
    // `set`, into this registry or to the built-in policy, and is never null.
    struct Choice {
        const std::shared_ptr<const Policy>* policy = nullptr;
        ResolvedVia via = ResolvedVia::Builtin;
        bool idempotent = false;
        IdempotenceSource idempotent_source = IdempotenceSource::Default;
        std::string_view binding_key{};
    };
    // The hot path of resolve(): one hash of `handler`, one probe of `set`'s exact bindings
    // (prefixes are walked only when no exact binding exists), and one probe of this registry
    // unless a binding that states `idempotent` was found and no registration gives a policy in
    // code.
    Choice choose(std::string_view handler, const PolicySet* set) const noexcept;

    // resolve(), with the reasoning spelled out.
    HandlerExplanation explain(std::string_view handler, const PolicySet* set) const;

    // Every registered handler whose annotation tier is not a policy of `set`, in name order.
    std::vector<UnknownTier> unknown_tiers(const PolicySet& set) const;

  private:
    struct Entry {
        HandlerRegistration registration;
        std::uint64_t tier_hash = 0;  // NameIndex::hash(registration.tier)
    };

    std::deque<Entry> handlers_;     // in registration order; a deque keeps find() results valid
    NameIndex index_;                // name -> handlers_ index
    std::size_t code_policies_ = 0;  // registrations that give a policy in code
};

}  // namespace rebound

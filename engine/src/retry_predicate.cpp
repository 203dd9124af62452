#include "rebound/retry_predicate.hpp"

#include <stdexcept>

#include "rebound/error_type_registry.hpp"

namespace rebound {

void PredicateRegistry::add(std::string_view name, RetryPredicate predicate) {
    if (!is_valid_name(name)) {
        throw std::invalid_argument("predicate names must match [A-Za-z_][A-Za-z0-9_.-]*: '" +
                                    std::string(name) + "'");
    }
    if (!predicate) {
        throw std::invalid_argument("predicate '" + std::string(name) + "' has no function");
    }
    if (!predicates_.emplace(std::string(name), std::move(predicate)).second) {
        throw std::invalid_argument("predicate '" + std::string(name) + "' is already registered");
    }
}

const RetryPredicate* PredicateRegistry::find(std::string_view name) const noexcept {
    const auto it = predicates_.find(name);
    return it == predicates_.end() ? nullptr : &it->second;
}

}  // namespace rebound

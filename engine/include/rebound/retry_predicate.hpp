// Retry predicates: named `retry_if` conditions that live in code.
//
// A policy file names predicates (`retry_if: [is_idempotent_read]`); the application registers
// the functions under those names before compiling policies. Registration is an explicit
// start-up step; compiled policies keep their own copies of the functions they use.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "rebound/error.hpp"

namespace rebound {

// Must not throw: it runs inside the noexcept decision. It may be called from many threads.
using RetryPredicate = std::function<bool(const ErrorDescription&)>;

class PredicateRegistry {
  public:
    // Throws std::invalid_argument for an invalid or already registered name, or an empty function.
    void add(std::string_view name, RetryPredicate predicate);

    // The predicate registered under `name`, or nullptr.
    const RetryPredicate* find(std::string_view name) const noexcept;

  private:
    std::map<std::string, RetryPredicate, std::less<>> predicates_;
};

}  // namespace rebound

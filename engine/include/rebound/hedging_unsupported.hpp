// HedgingUnsupported: what an executor that cannot hedge throws when it is asked to run a
// hedging policy (docs/hedging.md, "Which executors hedge").
//
// Hedges run concurrently, so only an asynchronous executor (rebound::asio) runs a policy with a
// `hedge`. The blocking RetryExecutor, and every driver of a RetryRun, refuse such a policy at the
// start of the run's first attempt, before any work runs, never silently running it as a retrying
// policy. It is a logic error of the caller: the policy was bound to work that the wrong executor
// runs.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace rebound {

class HedgingUnsupported : public std::logic_error {
  public:
    // "policy 'reads' hedges: hedging needs an asynchronous executor (rebound::asio)"
    explicit HedgingUnsupported(std::string_view policy);

    // The name of the policy that was refused.
    const std::string& policy() const noexcept { return policy_; }

  private:
    std::string policy_;
};

}  // namespace rebound

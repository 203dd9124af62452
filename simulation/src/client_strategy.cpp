#include "rebound/simulation/client_strategy.hpp"

#include <stdexcept>
#include <utility>

namespace rebound::simulation {

std::shared_ptr<const Policy> compile_policy(PolicySpec spec, const BreakerDirectory* breakers) {
    PolicyCompileOptions options;
    options.breakers = breakers;
    PolicyResult result = Policy::create(std::move(spec), options);
    if (!result) {
        throw std::invalid_argument("simulation policy does not compile: " +
                                    result.problems.front().message);
    }
    return std::move(result.policy);
}

PolicyFactory copies_of(std::shared_ptr<const Policy> policy) {
    return [policy = std::move(policy)]() -> std::shared_ptr<const Policy> {
        if (policy->breaker() == nullptr) {
            return compile_policy(policy->spec(), nullptr);
        }
        BreakerDirectory breakers;
        breakers.emplace(policy->spec().breaker,
                         std::make_shared<CircuitBreaker>(policy->breaker()->settings(),
                                                          CircuitBreaker::TimePoint{}));
        return compile_policy(policy->spec(), &breakers);
    };
}

}  // namespace rebound::simulation

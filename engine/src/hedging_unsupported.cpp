#include "rebound/hedging_unsupported.hpp"

namespace rebound {

HedgingUnsupported::HedgingUnsupported(std::string_view policy)
    : std::logic_error("policy '" + std::string(policy) +
                       "' hedges: hedging needs an asynchronous executor (rebound::asio)"),
      policy_(policy) {}

}  // namespace rebound

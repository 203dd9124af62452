#include "rebound/policy_spec.hpp"

namespace rebound {

PolicySpec builtin_policy_spec() {
    PolicySpec spec;
    spec.name = "builtin";
    spec.retry_on.push_back(Matcher::transient());
    return spec;
}

}  // namespace rebound

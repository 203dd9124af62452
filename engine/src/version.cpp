#include "rebound/version.hpp"

namespace rebound {

std::string_view version() noexcept {
    return REBOUND_VERSION;  // defined for this file only, from project(VERSION)
}

}  // namespace rebound

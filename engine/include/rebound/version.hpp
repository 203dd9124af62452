// The version of Rebound, as CMake's project(VERSION) states it (the one place it is written).
#pragma once

#include <string_view>

namespace rebound {

// "0.1.0": the libraries', the command line's and lint's reports' version.
std::string_view version() noexcept;

}  // namespace rebound

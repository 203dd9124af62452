// Counts calls to the global operator new in this process. Only executables that link
// allocation_counter.cpp (which replaces the global allocation functions) may include this.
#pragma once

#include <cstddef>

namespace rebound::testing {

// Allocations made by the current thread since it started.
std::size_t allocations_on_this_thread() noexcept;

}  // namespace rebound::testing

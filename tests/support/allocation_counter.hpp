// Counts calls to the global operator new in this process. Only executables that link
// allocation_counter.cpp (which replaces the global allocation functions) may include this.
#pragma once

#include <cstddef>

namespace rebound::testing {

// Allocations made by the current thread since it started.
std::size_t allocations_on_this_thread() noexcept;

// While alive, the `nth` allocation (1-based) this thread makes from now on fails, once: operator
// new throws std::bad_alloc (the nothrow forms return null). Later ones succeed again, as after a
// large request fails and the memory taken so far is freed. For testing what code does when
// memory runs out.
class FailOneAllocation {
  public:
    explicit FailOneAllocation(std::size_t nth) noexcept;
    ~FailOneAllocation();
    FailOneAllocation(const FailOneAllocation&) = delete;
    FailOneAllocation& operator=(const FailOneAllocation&) = delete;
    // Whether the allocation failed (false: the code made fewer than `nth` allocations).
    bool failed() const noexcept;
};

}  // namespace rebound::testing

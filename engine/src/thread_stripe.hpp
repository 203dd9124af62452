// Which of kThreadStripes stripes the calling thread uses, for the engine's striped counters (the
// retry budget's debts, the circuit breaker's call counts). Private to rebound::engine.
//
// Threads that write to one shared counter word contend for its cache line; spreading them over
// stripes of their own keeps the common path on a line no other thread writes.
#pragma once

#include <cstddef>

namespace rebound::detail {

inline constexpr std::size_t kThreadStripes = 8;

struct ThreadStripe {
    std::size_t index = 0;  // in [0, kThreadStripes)
    // Whether no other live thread uses the stripe: then only this thread writes its words, and
    // it may update them with a load and a store instead of a read-modify-write.
    bool exclusive = false;
};

// The stripe of the calling thread: the lowest stripe no live thread holds, taken on the first
// call and given back when the thread exits (with release and acquire ordering, so the next
// holder sees the last one's writes). So up to kThreadStripes live threads never share a stripe
// however many came and went before. Beyond that, the other threads share stripes in turn: they
// are not exclusive, and the holder of a stripe they share is not told, so a caller that relies on
// `exclusive` must give non-exclusive threads words of their own (as circuit_breaker.cpp does).
ThreadStripe this_thread_stripe() noexcept;

}  // namespace rebound::detail

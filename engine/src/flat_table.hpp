// The engine's one open-addressed hash table layout, shared by RuleIndex (its key and error-type
// tables) and NameIndex. Private to the engine and not installed: the owners keep their slots in
// a std::vector (their headers are installed, so they cannot name this one) and hand them here.
//
// Layout: a power-of-two number of slots, at most a quarter full, so that a miss, the common
// outcome when an error's keys are looked up, ends at a free slot within a probe or two. Linear
// probing from the slot that the hash's top bits name (Fibonacci hashing: a hash need only carry
// its input into its top bits, which one multiplication by an odd constant does).
//
// A slot type says itself whether it is free (is_free below); the owner's matches() decides
// equality, so a table of names can compare a stored tag and length before any bytes.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

namespace rebound::detail {

// Where a hash lands in a table of `capacity` slots, and the probe sequence from there.
struct FlatTableProbe {
    std::size_t mask = 0;
    int shift = 63;

    // `capacity` is 0 or a power of two; a probe of an empty table must not be used.
    static constexpr FlatTableProbe for_capacity(std::size_t capacity) noexcept {
        return capacity < 2 ? FlatTableProbe{capacity == 0 ? 0 : capacity - 1, 63}
                            : FlatTableProbe{capacity - 1, 64 - std::countr_zero(capacity)};
    }
    // The top log2(capacity) bits of `hash` (capacity >= 2).
    constexpr std::size_t home(std::uint64_t hash) const noexcept {
        return static_cast<std::size_t>(hash >> shift);
    }
    constexpr std::size_t next(std::size_t slot) const noexcept { return (slot + 1) & mask; }

    // The same probe over the mask and shift where the owner stores them: a lookup on the hot
    // path then reads them where it needs them instead of holding them in registers from the
    // start (RuleIndex: the decision's key probes, inlined into a function short of registers).
    struct Ref {
        const std::size_t& mask;
        const int& shift;
        std::size_t home(std::uint64_t hash) const noexcept {
            return static_cast<std::size_t>(hash >> shift);
        }
        std::size_t next(std::size_t slot) const noexcept { return (slot + 1) & mask; }
    };
};

// The capacity for `count` entries: 0 for none, else a power of two at least four times `count`
// (so at least 4, and home() never shifts by 64).
constexpr std::size_t flat_table_capacity(std::size_t count) noexcept {
    return count == 0 ? 0 : std::bit_ceil(count * 4);
}

// Puts `entry` in the first free slot from `hash`'s home. Precondition: a slot is free.
template <typename Slot, typename IsFree>
void flat_table_place(std::span<Slot> slots, std::uint64_t hash, const Slot& entry,
                      IsFree is_free) {
    const FlatTableProbe probe = FlatTableProbe::for_capacity(slots.size());
    std::size_t at = probe.home(hash);
    while (!is_free(slots[at])) {
        at = probe.next(at);
    }
    slots[at] = entry;
}

// The first slot from `hash`'s home that `matches`, or null at the first free slot. `probe` is a
// FlatTableProbe or a FlatTableProbe::Ref of the table's capacity; the table has slots. Never
// allocates; always inlined into the owner's lookup, whose callers pass their matches() by
// reference (a call would take it through memory).
template <typename Slot, typename Probe, typename Matches, typename IsFree>
[[gnu::always_inline]] inline const Slot* flat_table_find(std::span<const Slot> slots, Probe probe,
                                                          std::uint64_t hash, Matches matches,
                                                          IsFree is_free) noexcept {
    for (std::size_t at = probe.home(hash);; at = probe.next(at)) {
        const Slot& slot = slots[at];
        if (matches(slot)) {
            return &slot;
        }
        if (is_free(slot)) {
            return nullptr;
        }
    }
}

}  // namespace rebound::detail

// Internal to Rebound, not part of its API: no compatibility promise from one release to the
// next. Installed only because PolicySet and HandlerRegistry hold NameIndexes by value.
//
// NameIndex: a map from names to small integers for lookups on hot paths (handler resolution).
//
// An open-addressed hash table (the engine's one layout: linear probing, at most a quarter full)
// over its own copy of the names. A lookup hashes the name once (or takes a hash the caller
// computed with hash(), so one hash serves several indexes), then compares part of the stored hash,
// the length and the bytes; it never allocates. The hash is fast, not keyed: names come from code
// and configuration, not from requests.
//
// Filled by insert(), then shared const: const members are safe from many threads, insert() must
// not run concurrently with anything. Copies are independent.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rebound {

class NameIndex {
  public:
    // Spelt as std::string::npos.
    static constexpr std::uint32_t npos = UINT32_MAX;  // NOLINT(readability-identifier-naming)

    // The hash every NameIndex uses.
    static std::uint64_t hash(std::string_view name) noexcept;

    // Maps `name` to `value` (not npos). Returns false, changing nothing, when `name` is present.
    bool insert(std::string_view name, std::uint32_t value);

    // The value of `name`, or npos. `name_hash` must be hash(name).
    std::uint32_t find(std::string_view name, std::uint64_t name_hash) const noexcept;
    std::uint32_t find(std::string_view name) const noexcept { return find(name, hash(name)); }

    std::size_t size() const noexcept { return size_; }

  private:
    // 16 bytes: four slots per cache line.
    struct Slot {
        std::uint32_t tag = 0;     // the low half of the name's hash (the high half places it)
        std::uint32_t offset = 0;  // of the name in names_
        std::uint32_t length = 0;
        std::uint32_t value = npos;  // npos: empty slot
    };

    void grow();

    std::vector<Slot> slots_;  // size 0 or a power of two
    std::string names_;        // every name, back to back
    std::size_t size_ = 0;
};

}  // namespace rebound

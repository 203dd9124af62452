#include "rebound/internal/name_index.hpp"

#include "flat_table.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <span>
#include <stdexcept>

namespace rebound {
namespace {

constexpr std::uint64_t kMultiplier = 0x9E3779B97F4A7C15ULL;
constexpr std::uint64_t kWordKey = 0xC2B2AE3D27D4EB4FULL;
constexpr std::uint64_t kFinal = 0xFF51AFD7ED558CCDULL;

std::uint64_t load_word(const char* bytes) noexcept {
    std::uint64_t word = 0;
    std::memcpy(&word, bytes, sizeof word);
    return word;
}

// A bijection of `word`, keyed by its position: changing one word always changes the sum below.
std::uint64_t mix_word(std::uint64_t word, std::uint64_t position) noexcept {
    const std::uint64_t x = (word ^ (kWordKey * (position + 1))) * kMultiplier;
    return x ^ (x >> 32);
}

// Whether `size` bytes at `a` and `b` are equal: word compares (the last word overlapping), which
// for names of a few words beat a call to memcmp.
bool same_bytes(const char* a, const char* b, std::size_t size) noexcept {
    if (size < sizeof(std::uint64_t)) {
        return std::memcmp(a, b, size) == 0;
    }
    std::uint64_t difference = 0;
    std::size_t at = 0;
    for (; at + sizeof(std::uint64_t) < size; at += sizeof(std::uint64_t)) {
        difference |= load_word(a + at) ^ load_word(b + at);
    }
    const std::size_t last = size - sizeof(std::uint64_t);
    difference |= load_word(a + last) ^ load_word(b + last);
    return difference == 0;
}

// The low half of the hash: the top bits choose the home slot (flat_table.hpp), so the low ones
// tell apart the names that probe the same slots.
std::uint32_t tag_of(std::uint64_t hash) noexcept {
    return static_cast<std::uint32_t>(hash);
}

constexpr auto kSlotIsFree = [](const auto& slot) noexcept {
    return slot.value == NameIndex::npos;
};

}  // namespace

// The words are mixed independently and summed, so their multiplications overlap in the CPU
// instead of forming one long dependency chain (names are typically 3 to 6 words).
std::uint64_t NameIndex::hash(std::string_view name) noexcept {
    const char* bytes = name.data();
    const std::size_t size = name.size();
    std::uint64_t h = kMultiplier * (static_cast<std::uint64_t>(size) + 1);
    if (size >= sizeof(std::uint64_t)) {
        std::uint64_t position = 0;
        std::size_t at = 0;
        for (; at + sizeof(std::uint64_t) < size; at += sizeof(std::uint64_t)) {
            h += mix_word(load_word(bytes + at), position++);
        }
        // The last word overlaps the previous one when the size is not a multiple of 8.
        h += mix_word(load_word(bytes + size - sizeof(std::uint64_t)), position);
    } else {
        std::uint64_t tail = 0;
        for (std::size_t i = 0; i < size; ++i) {
            tail |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
        }
        h += mix_word(tail, 0);
    }
    h ^= h >> 33;
    h *= kFinal;
    return h ^ (h >> 29);
}

bool NameIndex::insert(std::string_view name, std::uint32_t value) {
    if (value == npos) {
        throw std::invalid_argument("NameIndex: npos is not a value");
    }
    const std::uint64_t name_hash = hash(name);
    if (find(name, name_hash) != npos) {
        return false;
    }
    if (names_.size() + name.size() > std::numeric_limits<std::uint32_t>::max()) {
        throw std::length_error("NameIndex: names too long");
    }
    if (detail::flat_table_capacity(size_ + 1) > slots_.size()) {
        grow();
    }
    Slot slot;
    slot.tag = tag_of(name_hash);
    slot.offset = static_cast<std::uint32_t>(names_.size());
    slot.length = static_cast<std::uint32_t>(name.size());
    slot.value = value;
    names_.append(name);
    detail::flat_table_place(std::span(slots_), name_hash, slot, kSlotIsFree);
    ++size_;
    return true;
}

void NameIndex::grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(detail::flat_table_capacity(std::max<std::size_t>(size_ + 1, 4)), Slot{});
    for (const Slot& slot : old) {
        if (kSlotIsFree(slot)) {
            continue;
        }
        // Only the tag is stored: the home slot comes from the name's hash, computed again.
        const std::string_view name(names_.data() + slot.offset, slot.length);
        detail::flat_table_place(std::span(slots_), hash(name), slot, kSlotIsFree);
    }
}

std::uint32_t NameIndex::find(std::string_view name, std::uint64_t name_hash) const noexcept {
    if (slots_.empty()) {
        return npos;
    }
    const std::uint32_t tag = tag_of(name_hash);
    const Slot* const slot = detail::flat_table_find(
        std::span<const Slot>(slots_), detail::FlatTableProbe::for_capacity(slots_.size()),
        name_hash,
        [&](const Slot& candidate) {
            // A free slot has length 0 and value npos: "not found" either way.
            return candidate.tag == tag && candidate.length == name.size() &&
                   same_bytes(names_.data() + candidate.offset, name.data(), name.size());
        },
        kSlotIsFree);
    return slot != nullptr ? slot->value : npos;
}

}  // namespace rebound

// RuleIndex's search (rule_index.hpp), as inline definitions: rule_index.cpp builds RuleIndex::find
// from them, and decide() (decision.cpp) inlines the search into its own steps, which spares the
// decision a call, a second set of saved registers and the result's trip through memory (about 15
// instructions of 400; docs/performance.md, Decision). Private to the engine and not installed.
//
// The error-type walk and the message search stay out of line (rule_index.cpp): inlined, their
// saved registers would cost every decision, with such rules or not.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "flat_table.hpp"
#include "rebound/internal/rule_index.hpp"

namespace rebound {
namespace detail {

inline constexpr std::uint64_t kGoldenRatio = 0x9E3779B97F4A7C15ULL;

// The low 16 bits of a packed SQLSTATE (pack_code in rule_index.cpp) are its packed class.
inline constexpr std::uint64_t kClassMask = 0xFFFF;

// A free slot of the key table (generic: the entry type is private to RuleIndex).
inline constexpr auto kKeySlotIsFree = [](const auto& entry) noexcept {
    return entry.kind_and_vendor == 0;
};

inline void keep_lowest(RuleMatch& best, const RuleMatch& candidate) noexcept {
    best.never_retry_on = std::min(best.never_retry_on, candidate.never_retry_on);
    best.retry_on = std::min(best.retry_on, candidate.retry_on);
}

// `bytes` with the ASCII letters upper-cased. Out of line and cold (rule_index.cpp): SQLSTATEs
// come upper-case from every driver.
[[gnu::noinline, gnu::cold]] std::uint64_t upper_case_sqlstate(std::uint64_t bytes) noexcept;

// Whether some byte of `bytes` has both 0x40 and 0x20 set (0x60 to 0x7F, 0xE0 to 0xFF): every
// lower-case ASCII letter does, and no digit or upper-case letter, the characters of a SQLSTATE.
// Three operations instead of the dozen of a full conversion.
inline bool may_have_lower_case(std::uint64_t bytes) noexcept {
    constexpr std::uint64_t kBit40 = 0x0101010101010101ULL * 0x40;
    return (bytes & (bytes << 1) & kBit40) != 0;  // bit 0x20 moved onto bit 0x40
}

// A five-character SQLSTATE packed as pack_code packs it, first character in the low byte: two
// loads. The common upper-case SQLSTATE is used as loaded, behind a well-predicted branch, so the
// hash probe that follows does not wait for the case conversion.
inline std::uint64_t pack_sqlstate(std::string_view sqlstate) noexcept {
    std::uint64_t bytes = 0;
    if constexpr (std::endian::native == std::endian::little) {
        std::uint32_t first_four = 0;
        std::memcpy(&first_four, sqlstate.data(), sizeof first_four);
        bytes = first_four;
    } else {
        for (std::size_t i = 0; i < 4; ++i) {
            bytes |= std::uint64_t{static_cast<unsigned char>(sqlstate[i])} << (8 * i);
        }
    }
    bytes |= std::uint64_t{static_cast<unsigned char>(sqlstate[4])} << 32;
    if (may_have_lower_case(bytes)) [[unlikely]] {
        return upper_case_sqlstate(bytes);
    }
    return bytes;
}

}  // namespace detail

inline std::uint64_t RuleIndex::key_word(KeyKind kind, std::uint8_t vendor) noexcept {
    return static_cast<std::uint64_t>(kind) | (std::uint64_t{vendor} << 8);
}

// One multiplication: the keys are short and regular (packed codes, small native numbers), and
// the table (flat_table.hpp) takes the well-mixed top bits.
inline std::uint64_t RuleIndex::key_hash(std::uint64_t kind_and_vendor,
                                         std::uint64_t code) noexcept {
    return (code ^ std::rotl(kind_and_vendor, 48)) * detail::kGoldenRatio;
}

inline const RuleIndex::KeyEntry* RuleIndex::find_key(std::uint64_t kind_and_vendor,
                                                      std::uint64_t code) const noexcept {
    return detail::flat_table_find(
        std::span<const KeyEntry>(keys_), detail::FlatTableProbe::Ref{key_mask_, key_shift_},
        key_hash(kind_and_vendor, code),
        [&](const KeyEntry& entry) {
            return entry.kind_and_vendor == kind_and_vendor && entry.code == code;
        },
        detail::kKeySlotIsFree);
}

// Always inlined into find_any_inline, its one caller: out of line, the call and its set-up cost
// more than the registers that inlining takes.
[[gnu::always_inline]] inline void RuleIndex::find_sqlstate(std::string_view sqlstate,
                                                            RuleMatch& best) const noexcept {
    const std::uint64_t packed = detail::pack_sqlstate(sqlstate);
    const KeyEntry* const in_class =
        find_key(key_word(KeyKind::SqlStateClass), packed & detail::kClassMask);
    if (in_class == nullptr) {
        return;
    }
    detail::keep_lowest(best, in_class->rules);
    const auto group = std::span(sqlstates_).subspan(in_class->first, in_class->count);
    for (const SqlStateEntry& entry : group) {
        if (entry.code == packed) {
            detail::keep_lowest(best, entry.rules);
            return;
        }
    }
}

// Each of the error's fields is tested before the policy's table for it: an error carries few of
// them, and a field is one load where a table's emptiness is two and a compare.
[[gnu::always_inline]] inline RuleMatch RuleIndex::find_any_inline(
    const ErrorDescription& error) const noexcept {
    RuleMatch best = by_category_[static_cast<std::size_t>(error.effective_category())];
    if (error.sqlstate.size() == 5 &&
        (key_kinds_ & (1U << static_cast<unsigned>(KeyKind::SqlStateClass))) != 0) {
        find_sqlstate(error.sqlstate, best);
    }
    if (error.vendor && error.native_code &&
        (key_kinds_ & (1U << static_cast<unsigned>(KeyKind::Native))) != 0) {
        if (const KeyEntry* const native =
                find_key(key_word(KeyKind::Native, static_cast<std::uint8_t>(*error.vendor)),
                         static_cast<std::uint64_t>(*error.native_code))) {
            detail::keep_lowest(best, native->rules);
        }
    }
    if (!error.error_type.empty() && !error_types_.empty()) {
        find_error_type(error.error_type, best);
    }
    if (error.http_status > 0 && error.http_status < kHttpStatusLimit && !by_http_status_.empty()) {
        detail::keep_lowest(best, by_http_status_[static_cast<std::size_t>(error.http_status)]);
    }
    if (error.grpc_status && static_cast<std::size_t>(*error.grpc_status) < kGrpcStatusCount &&
        !by_grpc_status_.empty()) {
        detail::keep_lowest(best, by_grpc_status_[static_cast<std::size_t>(*error.grpc_status)]);
    }
    if (!error.message.empty() && message_search_ != MessageSearch::None) {
        find_message(error.message, best);
    }
    if (best.never_retry_on != RuleMatch::kNone) {
        best.retry_on = RuleMatch::kNone;
    }
    return best;
}

[[gnu::always_inline]] inline RuleMatch RuleIndex::find_inline(
    const ErrorDescription& error) const noexcept {
    if (!categories_only_) {
        return find_any_inline(error);
    }
    return find_by_category(error);
}

}  // namespace rebound

// RuleIndex's search (rule_index.hpp), as inline definitions: rule_index.cpp builds RuleIndex::find
// from them, and decide() (decision.cpp) inlines the search into its own steps, which spares the
// decision a call, a second set of saved registers and the result's trip through memory (about 20
// instructions of 400, 15 more with a message rule; docs/performance.md, Decision). Private to the
// engine and not installed.
//
// Two parts stay out of line (rule_index.cpp): the error-type walk, which inlined saved a few
// instructions in some cases and cost a few in others, and the AVX2 message search, since code for
// AVX2 cannot be inlined into a function built for the default target.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "flat_table.hpp"
#include "rebound/internal/rule_index.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// GCC and Clang compile a function for AVX2 by attribute, in a library built for the default x86
// target: the message search then has an AVX2 path (rule_index.cpp), which compile chooses where
// the CPU has it.
#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__) && defined(__GNUC__)
#define REBOUND_AVX2_SEARCH 1
#endif

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

// Whether the characters between the first and the last of `needle` are those that follow
// `start`: the rest of a candidate whose first and last characters agree. A loop rather than
// memcmp: candidates are rare, and a search that calls nothing keeps its values in registers
// (with calls to memchr and memcmp it spilled and reloaded them around every message rule).
inline bool middle_matches(const char* start, std::string_view needle) noexcept {
    for (std::size_t i = 1; i + 1 < needle.size(); ++i) {
        if (start[i] != needle[i]) {
            return false;
        }
    }
    return true;
}

// Whether `needle` starts at some candidate `at + i - skipped`, bit i of `candidates` set
// (i >= skipped). Unused in a build without SSE2.
[[maybe_unused]] inline bool any_matches(const char* at, unsigned candidates,
                                         std::string_view needle,
                                         std::size_t skipped = 0) noexcept {
    for (; candidates != 0; candidates &= candidates - 1) {
        if (middle_matches(at + (static_cast<std::size_t>(std::countr_zero(candidates)) - skipped),
                           needle)) {
            return true;
        }
    }
    return false;
}

// The ways of MessageEntry::occurs_in: a search tests kBlock start positions per step, or one at
// a time (kBlock 0), and leaves a message shorter than kBlock to its Narrower search; one without
// a Narrower (Avx2Search) is given only messages of kBlock bytes or more. `equal` and
// `both_equal` return bit i for byte i of the kBlock bytes at each pointer; `repeated`, `firsts`
// and `lasts` are a character repeated over 16 bytes.
struct ScalarSearch {
    static constexpr std::size_t kBlock = 0;
};

#if defined(__SSE2__)
struct Sse2Search {
    static constexpr std::size_t kBlock = 16;
    using Narrower = ScalarSearch;

    // The bytes of `at` that equal `repeated`.
    static unsigned equal(const char* at, const char* repeated) noexcept {
        return static_cast<unsigned>(_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(at)),
                           _mm_loadu_si128(reinterpret_cast<const __m128i*>(repeated)))));
    }
    // The bytes where `starts` equals `firsts` and `ends` equals `lasts`.
    static unsigned both_equal(const char* starts, const char* ends, const char* firsts,
                               const char* lasts) noexcept {
        const auto load = [](const char* at) noexcept {
            return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
        };
        return static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(
            _mm_cmpeq_epi8(load(starts), load(firsts)), _mm_cmpeq_epi8(load(ends), load(lasts)))));
    }
};
using PortableSearch = Sse2Search;
#else
using PortableSearch = ScalarSearch;
#endif

// Lowers `lowest` to the rule of the first of `entries` (one list's message rules, in rule order)
// below it whose text occurs in `message`. Not a lambda: GCC would not inline a lambda, compiled
// for the default target, into find_message_avx2, nor the AVX2 code into it.
template <typename Search, typename Entries>
[[gnu::always_inline]] inline void first_message(const Entries& entries, std::string_view message,
                                                 std::uint32_t& lowest) noexcept {
    for (const auto& entry : entries) {
        if (entry.rule >= lowest) {
            return;
        }
        if (entry.template occurs_in<Search>(message)) {
            lowest = entry.rule;
            return;
        }
    }
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

// Tests Search::kBlock start positions per step for the text's first and last characters
// together (W. Muła, "SIMD-friendly algorithms for substring searching"), and compares the middle
// only where both agree, which is rare. A message of at least kBlock bytes with fewer start
// positions takes one such step; a shorter message goes to the narrower search, down to the same
// test one position at a time. Reads no byte outside the message. Inlined into find_message_with.
template <typename Search>
[[gnu::always_inline]] inline bool RuleIndex::MessageEntry::occurs_in(
    std::string_view message) const noexcept {
    const std::size_t length = text.size();
    if (length > message.size()) {
        return false;
    }
    const char* const start = message.data();
    const std::size_t positions = message.size() - length + 1;
    if constexpr (Search::kBlock == 0) {
        for (std::size_t at = 0; at < positions; ++at) {
            if (start[at] == text.front() && start[at + length - 1] == text.back() &&
                detail::middle_matches(start + at, text)) {
                return true;
            }
        }
        return false;
    } else {
        constexpr std::size_t kBlock = Search::kBlock;
        if constexpr (requires { typename Search::Narrower; }) {
            if (message.size() < kBlock) {
                return occurs_in<typename Search::Narrower>(message);
            }
        }
        const char* const firsts = first_repeated.data();
        const char* const lasts = last_repeated.data();
        if (positions >= kBlock) {
            // Whole blocks, then the last kBlock positions, which may overlap the block before.
            // Bit i of a block's candidates: start position `at + i` has the text's first and
            // last characters.
            const char* const last_block = start + positions - kBlock;
            for (const char* at = start; at < last_block; at += kBlock) {
                if (detail::any_matches(at, Search::both_equal(at, at + length - 1, firsts, lasts),
                                        text)) {
                    return true;
                }
            }
            return detail::any_matches(
                last_block, Search::both_equal(last_block, last_block + length - 1, firsts, lasts),
                text);
        }
        // Fewer than kBlock start positions, but kBlock bytes to load: the starts from the
        // beginning, the ends from the last kBlock bytes, whose bit i is the end of start position
        // i - skipped. The starts shifted up by `skipped` line up with them, and those past the
        // last position leave the kBlock bits of the ends: no mask.
        const std::size_t skipped = kBlock - positions;
        const unsigned candidates = (Search::equal(start, firsts) << skipped) &
                                    Search::equal(start + message.size() - kBlock, lasts);
        return detail::any_matches(start, candidates, text, skipped);
    }
}

// Each list's message rules in rule order, so the first one found is its lowest; a never_retry_on
// rule is sought only below the lowest the keys found, a retry_on rule only when no
// never_retry_on rule matched, and only below the lowest retry_on rule found.
template <typename Search>
[[gnu::always_inline]] inline void RuleIndex::find_message_with(std::string_view message,
                                                                RuleMatch& best) const noexcept {
    detail::first_message<Search>(never_messages_, message, best.never_retry_on);
    if (best.never_retry_on == RuleMatch::kNone) {
        detail::first_message<Search>(retry_messages_, message, best.retry_on);
    }
}

// The search compile chose, by one compare with a member (no call to learn the CPU's features):
// a message of an AVX2 block or more takes the AVX2 search, out of line (rule_index.cpp: code for
// AVX2 cannot be inlined into a function for the default target); any other the portable search,
// inlined into decide() with the rest of the search, which spares it a call and a second set of
// saved registers.
[[gnu::always_inline]] inline void RuleIndex::find_message(std::string_view message,
                                                           RuleMatch& best) const noexcept {
#if defined(REBOUND_AVX2_SEARCH)
    if (message.size() >= avx2_from_) {
        find_message_avx2(message, best);
        return;
    }
#endif
    find_message_with<detail::PortableSearch>(message, best);
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

#include "rebound/internal/rule_index.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

#include "flat_table.hpp"
#include "rule_index_find.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(REBOUND_AVX2_SEARCH)
#include <immintrin.h>
#endif

namespace rebound {

using detail::kClassMask;
using detail::keep_lowest;
using detail::kGoldenRatio;
using detail::kKeySlotIsFree;

namespace {

constexpr char ascii_upper(char c) noexcept {
    return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
}

// Packs up to 8 characters, upper-cased, into one integer, first character in the low byte, so
// lookups compare one word. The low 16 bits of a packed SQLSTATE are its packed class.
std::uint64_t pack_code(std::string_view code) noexcept {
    std::uint64_t key = 0;
    for (std::size_t i = 0; i < code.size() && i < 8; ++i) {
        key |= std::uint64_t{static_cast<unsigned char>(ascii_upper(code[i]))} << (8 * i);
    }
    return key;
}

// Upper-cases the ASCII letters of all eight bytes at once (bytes of 0x80 and above are left
// alone, as ascii_upper does).
std::uint64_t ascii_upper_bytes(std::uint64_t bytes) noexcept {
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
    constexpr std::uint64_t kHighBits = kOnes * 0x80;
    const std::uint64_t seven_bits = bytes & ~kHighBits;
    const std::uint64_t at_least_a = (seven_bits + kOnes * (0x80 - 'a')) & kHighBits;
    const std::uint64_t above_z = (seven_bits + kOnes * (0x80 - 'z' - 1)) & kHighBits;
    const std::uint64_t lower_case = at_least_a & ~above_z & ~bytes;
    return bytes ^ (lower_case >> 2);  // clears 0x20 in each lower-case letter
}

// Error type names are hashed eight bytes at a time, so that one pass over a name gives the hash of
// every prefix of it, and so of every dotted prefix that find_error_type looks up:
//   state(0) = kNameSeed, state(k + 1) = name_step(state(k), word k),
// word k being bytes [8k, 8k + 8) of the name. A name of 8k + r characters (0 <= r < 8) hashes as
// name_step(state(k), its last r bytes, zero above): a prefix that ends inside word k, or where it
// begins (r = 0), is word k with the bytes past the prefix cleared, under the state the walk has at
// word k. name_step is a bijection of its word for a given state, so two names of one length whose
// hashes are equal and whose whole words agree are equal: names of up to 24 characters are told
// apart by their first two words and the hash alone.
constexpr std::uint64_t kNameSeed = 0x243F6A8885A308D3ULL;

constexpr std::uint64_t name_step(std::uint64_t state, std::uint64_t word) noexcept {
    return (std::rotl(state, 23) ^ word) * kGoldenRatio;
}

constexpr std::uint64_t kEmptyNameHash = name_step(kNameSeed, 0);
static_assert(kEmptyNameHash != 0, "the empty name must not hash as a free slot");

// Bytes [at, at + 8) of `name`, the first in the low byte, zero past its end. Precondition:
// at < name.size(). Reads no byte outside the name.
std::uint64_t name_word(std::string_view name, std::size_t at) noexcept {
    const char* const data = name.data();
    const std::size_t remaining = name.size() - at;
    std::uint64_t word = 0;
    if constexpr (std::endian::native == std::endian::little) {
        if (remaining >= sizeof word) {
            std::memcpy(&word, data + at, sizeof word);
            return word;
        }
        if (name.size() >= sizeof word) {  // the last eight bytes, moved down
            std::memcpy(&word, data + name.size() - sizeof word, sizeof word);
            return word >> (8 * (sizeof word - remaining));
        }
    }
    for (std::size_t i = 0; i < remaining && i < sizeof word; ++i) {
        word |= std::uint64_t{static_cast<unsigned char>(data[at + i])} << (8 * i);
    }
    return word;
}

// name_word where the name has all eight bytes (at + 8 <= name.size()): one load, without the
// tests for the name's end.
std::uint64_t whole_word(std::string_view name, std::size_t at) noexcept {
    if constexpr (std::endian::native == std::endian::little) {
        std::uint64_t word = 0;
        std::memcpy(&word, name.data() + at, sizeof word);
        return word;
    } else {
        return name_word(name, at);
    }
}

// The name's last, partial word: bytes [at, size), fewer than eight, zero above; 0 when at is the
// name's end.
std::uint64_t last_word(std::string_view name, std::size_t at) noexcept {
    return at < name.size() ? name_word(name, at) : 0;
}

std::uint64_t name_hash(std::string_view name) noexcept {
    std::uint64_t state = kNameSeed;
    std::size_t at = 0;
    for (; at + 8 <= name.size(); at += 8) {
        state = name_step(state, whole_word(name, at));
    }
    return name_step(state, last_word(name, at));
}

// Bit i set where byte i of `word` is a '.'. With SSE2 on x86-64 (moving a 64-bit word into a
// vector register needs it) one byte compare and one mask (the word in the low half of a
// register, zeros above, which no '.' equals); otherwise exact bit arithmetic
// (no false positives from borrows): the high bit of each byte is set only where the byte equals
// '.', then the eight high bits are gathered into the top byte by one multiplication whose partial
// products never overlap.
std::uint32_t dot_bits(std::uint64_t word) noexcept {
#if defined(__SSE2__) && defined(__x86_64__)
    const __m128i bytes = _mm_cvtsi64_si128(static_cast<long long>(word));
    return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_set1_epi8('.'))));
#else
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
    constexpr std::uint64_t kLowSeven = kOnes * 0x7F;
    const std::uint64_t x = word ^ (kOnes * '.');
    const std::uint64_t zero_bytes = ~(((x & kLowSeven) + kLowSeven) | x) & (kOnes * 0x80);
    return static_cast<std::uint32_t>(((zero_bytes >> 7) * 0x0102040810204080ULL) >> 56);
#endif
}

// Word with only its first `bytes` bytes kept (0 <= bytes <= 7). A table: one `and` with memory
// where the mask's arithmetic is four instructions, once per dot of every error type looked up.
constexpr std::array<std::uint64_t, 8> kFirstBytesMask = [] {
    std::array<std::uint64_t, 8> masks{};
    for (unsigned bytes = 0; bytes < masks.size(); ++bytes) {
        masks[bytes] = (std::uint64_t{1} << (8 * bytes)) - 1;
    }
    return masks;
}();

std::uint64_t first_bytes(std::uint64_t word, unsigned bytes) noexcept {
    return word & kFirstBytesMask[bytes];
}

constexpr auto kNameSlotIsFree = [](const auto& entry) noexcept { return entry.size == 0; };

void keep_lowest(RuleMatch& slot, bool never, std::uint32_t index) noexcept {
    std::uint32_t& target = never ? slot.never_retry_on : slot.retry_on;
    target = std::min(target, index);
}

#if defined(REBOUND_AVX2_SEARCH)
// Compiled for AVX2 by attribute, and not always_inline as the intrinsics are: occurs_in and
// first_message, templates for the default target, call these, and GCC refuses to force AVX2 code
// into a function for the default target. Once those are inlined into find_message_avx2, GCC
// inlines these as well. Vectors pass only between functions compiled for AVX2.
struct Avx2Search {
    static constexpr std::size_t kBlock = 32;

    [[gnu::target("avx2")]] static __m256i load(const char* at) noexcept {
        return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
    }
    [[gnu::target("avx2")]] static __m256i broadcast(const char* repeated) noexcept {
        return _mm256_broadcastsi128_si256(
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(repeated)));
    }
    [[gnu::target("avx2")]] static unsigned equal(const char* at, const char* repeated) noexcept {
        return static_cast<unsigned>(
            _mm256_movemask_epi8(_mm256_cmpeq_epi8(load(at), broadcast(repeated))));
    }
    [[gnu::target("avx2")]] static unsigned both_equal(const char* starts, const char* ends,
                                                       const char* firsts,
                                                       const char* lasts) noexcept {
        return static_cast<unsigned>(_mm256_movemask_epi8(
            _mm256_and_si256(_mm256_cmpeq_epi8(load(starts), broadcast(firsts)),
                             _mm256_cmpeq_epi8(load(ends), broadcast(lasts)))));
    }
};
#endif

#if defined(REBOUND_AVX2_SEARCH)
bool cpu_has_avx2() noexcept {
    __builtin_cpu_init();  // a static initializer may compile a policy before libgcc's has run
    return __builtin_cpu_supports("avx2") != 0;
}
#endif

}  // namespace

namespace detail {

std::uint64_t upper_case_sqlstate(std::uint64_t bytes) noexcept {
    return ascii_upper_bytes(bytes);
}

}  // namespace detail

std::uint64_t RuleIndex::error_type_hash(std::string_view name) noexcept {
    return name_hash(name);
}

RuleIndex RuleIndex::compile(std::span<const Matcher> never_retry_on,
                             std::span<const Matcher> retry_on,
                             const ErrorTypeRegistry* error_types,
                             [[maybe_unused]] MessageSearch widest) {
    RuleIndex index;
    for (std::size_t position = 0; position < never_retry_on.size(); ++position) {
        index.add(never_retry_on[position], true, static_cast<std::uint32_t>(position),
                  error_types);
    }
    for (std::size_t position = 0; position < retry_on.size(); ++position) {
        index.add(retry_on[position], false, static_cast<std::uint32_t>(position), error_types);
    }
    // add() filled the tables as plain lists; rebuild them as hash tables.
    index.build_key_table(std::exchange(index.keys_, {}));
    index.build_name_table(std::exchange(index.error_types_, {}));
    for (std::vector<MessageEntry>* messages : {&index.never_messages_, &index.retry_messages_}) {
        for (MessageEntry& entry : *messages) {
            entry.first_repeated.fill(entry.text.front());
            entry.last_repeated.fill(entry.text.back());
        }
        std::sort(messages->begin(), messages->end(),
                  [](const MessageEntry& a, const MessageEntry& b) { return a.rule < b.rule; });
    }
    if (!index.never_messages_.empty() || !index.retry_messages_.empty()) {
        index.message_search_ = MessageSearch::Portable;
#if defined(REBOUND_AVX2_SEARCH)
        if (widest == MessageSearch::Avx2 && cpu_has_avx2()) {
            index.message_search_ = MessageSearch::Avx2;
            index.avx2_from_ = Avx2Search::kBlock;
        }
#endif
    }
    index.categories_only_ = index.keys_.empty() && index.error_types_.empty() &&
                             index.by_http_status_.empty() && index.by_grpc_status_.empty() &&
                             index.message_search_ == MessageSearch::None;
    return index;
}

RuleMatch* RuleIndex::key_slot(std::uint64_t kind_and_vendor, std::uint64_t code) {
    const auto it = std::find_if(keys_.begin(), keys_.end(), [&](const KeyEntry& e) {
        return e.kind_and_vendor == kind_and_vendor && e.code == code;
    });
    if (it != keys_.end()) {
        return &it->rules;
    }
    key_kinds_ |= 1U << (kind_and_vendor & 0xFF);
    return &keys_.emplace_back(KeyEntry{kind_and_vendor, code, RuleMatch{}}).rules;
}

RuleIndex::NameEntry RuleIndex::name_entry(std::string_view name) {
    NameEntry entry{name_hash(name), name.size(), {}, std::string(name), RuleMatch{}};
    for (std::size_t k = 0; k < entry.leading_words.size() && 8 * k < name.size(); ++k) {
        entry.leading_words[k] = name_word(name, 8 * k);
    }
    return entry;
}

RuleMatch* RuleIndex::name_slot(std::string_view name) {
    const auto it = std::find_if(error_types_.begin(), error_types_.end(),
                                 [&](const NameEntry& e) { return e.name == name; });
    if (it != error_types_.end()) {
        return &it->rules;
    }
    return &error_types_.emplace_back(name_entry(name)).rules;
}

void RuleIndex::add(const Matcher& m, bool never, std::uint32_t index,
                    const ErrorTypeRegistry* error_types) {
    switch (m.kind) {
        case MatcherKind::Category:
            keep_lowest(by_category_[static_cast<std::size_t>(m.category)], never, index);
            break;
        case MatcherKind::TransientGroup:
            for (const CategoryInfo& info : kCategoryTable) {
                if (info.retryable_by_default) {
                    keep_lowest(by_category_[static_cast<std::size_t>(info.category)], never,
                                index);
                }
            }
            break;
        case MatcherKind::SqlState: {
            const std::uint64_t code = pack_code(m.text);
            key_slot(key_word(KeyKind::SqlStateClass), code & kClassMask);  // the class entry
            const auto it = std::find_if(sqlstates_.begin(), sqlstates_.end(),
                                         [&](const SqlStateEntry& e) { return e.code == code; });
            keep_lowest(it != sqlstates_.end()
                            ? it->rules
                            : sqlstates_.emplace_back(SqlStateEntry{code, RuleMatch{}}).rules,
                        never, index);
            break;
        }
        case MatcherKind::SqlStateClass:
            keep_lowest(*key_slot(key_word(KeyKind::SqlStateClass), pack_code(m.text)), never,
                        index);
            break;
        case MatcherKind::VendorNative:
            keep_lowest(*key_slot(key_word(KeyKind::Native, static_cast<std::uint8_t>(m.vendor)),
                                  static_cast<std::uint64_t>(m.native_code)),
                        never, index);
            break;
        case MatcherKind::ErrorType:
            keep_lowest(*name_slot(m.text), never, index);
            if (error_types != nullptr) {
                for (const std::string& subtype : error_types->subtypes_of(m.text)) {
                    keep_lowest(*name_slot(subtype), never, index);
                }
            }
            break;
        case MatcherKind::HttpStatus:
        case MatcherKind::HttpClass: {
            if (by_http_status_.empty()) {
                by_http_status_.assign(kHttpStatusLimit, RuleMatch{});
            }
            const bool whole_class = m.kind == MatcherKind::HttpClass;
            const int first = whole_class ? m.http * 100 : m.http;
            const int last = whole_class ? first + 99 : first;
            for (int status = std::max(first, 0); status <= last && status < kHttpStatusLimit;
                 ++status) {
                keep_lowest(by_http_status_[static_cast<std::size_t>(status)], never, index);
            }
            break;
        }
        case MatcherKind::GrpcStatus:
            if (by_grpc_status_.empty()) {
                by_grpc_status_.assign(kGrpcStatusCount, RuleMatch{});
            }
            keep_lowest(by_grpc_status_[static_cast<std::size_t>(m.grpc)], never, index);
            break;
        case MatcherKind::Message: {
            std::vector<MessageEntry>& messages = never ? never_messages_ : retry_messages_;
            const auto it = std::find_if(messages.begin(), messages.end(),
                                         [&](const MessageEntry& e) { return e.text == m.text; });
            if (it == messages.end()) {
                messages.push_back(MessageEntry{m.text, index, {}, {}});
            } else {
                it->rule = std::min(it->rule, index);
            }
            break;
        }
    }
}

void RuleIndex::build_key_table(std::vector<KeyEntry> entries) {
    // Group the SQLSTATE rules by class and point each class entry at its group.
    std::sort(sqlstates_.begin(), sqlstates_.end(),
              [](const SqlStateEntry& a, const SqlStateEntry& b) {
                  const auto a_class = a.code & kClassMask;
                  const auto b_class = b.code & kClassMask;
                  return a_class != b_class ? a_class < b_class : a.code < b.code;
              });
    for (KeyEntry& entry : entries) {
        if (entry.kind_and_vendor != key_word(KeyKind::SqlStateClass)) {
            continue;
        }
        const auto in_class = [&](const SqlStateEntry& e) {
            return (e.code & kClassMask) == entry.code;
        };
        const auto begin = std::find_if(sqlstates_.begin(), sqlstates_.end(), in_class);
        const auto end = std::find_if_not(begin, sqlstates_.end(), in_class);
        entry.first = static_cast<std::uint32_t>(begin - sqlstates_.begin());
        entry.count = static_cast<std::uint32_t>(end - begin);
    }
    keys_.assign(detail::flat_table_capacity(entries.size()), KeyEntry{});
    const detail::FlatTableProbe probe = detail::FlatTableProbe::for_capacity(keys_.size());
    key_mask_ = probe.mask;
    key_shift_ = probe.shift;
    for (const KeyEntry& entry : entries) {
        detail::flat_table_place(std::span(keys_), key_hash(entry.kind_and_vendor, entry.code),
                                 entry, kKeySlotIsFree);
    }
}

// Hashes the rule names into the table and fills the two filters.
void RuleIndex::build_name_table(const std::vector<NameEntry>& rule_names) {
    error_types_.assign(detail::flat_table_capacity(rule_names.size()), NameEntry{});
    const detail::FlatTableProbe probe = detail::FlatTableProbe::for_capacity(error_types_.size());
    error_type_mask_ = probe.mask;
    error_type_shift_ = probe.shift;
    for (const NameEntry& entry : rule_names) {
        const std::string_view name = entry.name;
        for (std::size_t dot = name.find('.'); dot != std::string_view::npos;
             dot = name.find('.', dot + 1)) {
            name_filter_.add(name_hash(name.substr(0, dot)), NameFilter::kPrefix);
        }
        name_filter_.add(entry.hash, NameFilter::kRuleName);
        detail::flat_table_place(std::span(error_types_), entry.hash, entry, kNameSlotIsFree);
    }
}

// The entry of the error type `name` whose hash (name_hash) is `hash`, or null.
[[gnu::always_inline]] inline const RuleIndex::NameEntry* RuleIndex::find_name(
    std::uint64_t hash, std::string_view name) const noexcept {
    const std::size_t size = name.size();
    return detail::flat_table_find(
        std::span<const NameEntry>(error_types_),
        detail::FlatTableProbe{error_type_mask_, error_type_shift_}, hash,
        [&](const NameEntry& e) {
            // A free slot's size is 0, and the names looked up are never empty. With the hash,
            // the words before the last decide (see name_step).
            if (e.size != size || e.hash != hash) {
                return false;
            }
            if (size <= 8) {
                return true;
            }
            // Read from the name itself: past 8 characters it has its first word, past 16 its
            // second.
            if (size <= 16) {
                return e.leading_words[0] == whole_word(name, 0);
            }
            if (size <= 24) {
                // Word by word: std::array's == calls memcmp.
                return e.leading_words[0] == whole_word(name, 0) &&
                       e.leading_words[1] == whole_word(name, 8);
            }
            return std::memcmp(e.name.data(), name.data(), size) == 0;
        },
        kNameSlotIsFree);
}

// The type's dotted prefixes from the shortest, then the type itself: io, io.timeout,
// io.timeout.read. The walk ends at the first prefix that no rule name continues (name_filter_),
// since no longer prefix can then be a rule name. One pass, eight bytes at a time: the ends of the
// prefixes in a word (its dots, and in the last word the type's end) are found together, each
// prefix is looked at with the hash the walk has at hand, and the table is probed only for a hash
// the rule names' filter may hold. One loop for whole and last words, and one probe in it: each
// copy of the probe would take registers that the walk needs.
//
// A leading dot gives the empty prefix, which needs no test of its own: its hash is in the filter
// as a prefix only when a rule name begins with a dot (build_name_table adds it then), and a probe
// for it finds nothing, since only a free slot has size 0 and a free slot's hash, 0, is not the
// empty name's (kEmptyNameHash).
void RuleIndex::find_error_type(std::string_view type, RuleMatch& best) const noexcept {
    const std::size_t size = type.size();
    std::uint64_t state = kNameSeed;
    for (std::size_t at = 0;; at += 8) {
        const bool is_last = size - at < 8;
        const std::uint64_t word = is_last ? last_word(type, at) : whole_word(type, at);
        std::uint32_t ends = dot_bits(word);
        if (is_last) {
            ends |= 1U << (size - at);
        }
        for (; ends != 0; ends &= ends - 1) {
            const auto offset = static_cast<unsigned>(std::countr_zero(ends));
            const std::uint64_t hash = name_step(state, first_bytes(word, offset));
            const unsigned may_be = name_filter_.may_be(hash);
            if ((may_be & NameFilter::kRuleName) != 0) {
                if (const NameEntry* const entry =
                        find_name(hash, std::string_view(type.data(), at + offset))) {
                    keep_lowest(best, entry->rules);
                }
            }
            if ((may_be & NameFilter::kPrefix) == 0) {
                return;  // no rule name continues this prefix (or the type has ended)
            }
        }
        if (is_last) {
            return;
        }
        state = name_step(state, word);
    }
}

#if defined(REBOUND_AVX2_SEARCH)
// Precondition: message.size() >= Avx2Search::kBlock (avx2_from_).
[[gnu::noinline, gnu::target("avx2")]] void RuleIndex::find_message_avx2(
    std::string_view message, RuleMatch& best) const noexcept {
    find_message_with<Avx2Search>(message, best);
}
#endif

RuleMatch RuleIndex::find_any(const ErrorDescription& error) const noexcept {
    return find_any_inline(error);
}

}  // namespace rebound

// Internal to Rebound, not part of its API: no compatibility promise from one release to the
// next. Installed only because Policy (policy.hpp) and the circuit breaker hold a RuleIndex by
// value.
//
// RuleIndex: the never_retry_on and retry_on lists of one policy, compiled together into flat
// lookup tables and searched without allocating.
//
// Every table entry carries, for each list, the lowest index of a rule that its key matches, so
// one probe per kind of key (category, SQLSTATE, SQLSTATE class, vendor and native code, error
// type and each of its dotted prefixes, HTTP status) answers both lists at once; the walk over a
// type's prefixes stops at the first that no rule name continues. Message substrings are tried
// last, and only those whose rules could still beat what the keys found, with AVX2 where compile
// finds it on the CPU.
//
// `find` reports the first rule of each list in the original order (lowest index) that matches,
// so explain and logs name the rule a reader would pick by reading the list top to bottom.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/error.hpp"
#include "rebound/error_category.hpp"
#include "rebound/error_type_registry.hpp"
#include "rebound/matcher.hpp"

namespace rebound {

// The lowest matching rule index in each list, or kNone.
struct RuleMatch {
    static constexpr std::uint32_t kNone = UINT32_MAX;

    std::uint32_t never_retry_on = kNone;
    // Reported only when no never_retry_on rule matches (the decision stops at step 1 otherwise,
    // so the search does not spend time on it); kNone then.
    std::uint32_t retry_on = kNone;

    friend bool operator==(const RuleMatch&, const RuleMatch&) = default;
};

class RuleIndex {
  public:
    // How find() seeks message substrings: None when no rule has a message; Portable with SSE2
    // where the build targets it (a plain loop otherwise); Avx2 on an x86 CPU that has it, from a
    // build for any x86 target by GCC or Clang.
    enum class MessageSearch : std::uint8_t { None, Portable, Avx2 };

    RuleIndex() = default;  // matches nothing

    // Compiles both lists; `error_types` (optional) adds registered subtypes to error matchers.
    // `widest` caps the message search, which is chosen here, once, for the CPU that runs this:
    // the tests pass Portable to cover the search that other CPUs take.
    // Preconditions: every matcher passed validation (validate_matcher).
    static RuleIndex compile(std::span<const Matcher> never_retry_on,
                             std::span<const Matcher> retry_on,
                             const ErrorTypeRegistry* error_types = nullptr,
                             MessageSearch widest = MessageSearch::Avx2);

    RuleMatch find(const ErrorDescription& error) const noexcept {
        if (!categories_only_) {
            return find_any(error);
        }
        return find_by_category(error);
    }

    // Whether every rule is a category: find() is then one table read, find_by_category().
    bool categories_only() const noexcept { return categories_only_; }

    // The message search that compile chose (for the tests, which check that they cover it).
    MessageSearch message_search() const noexcept { return message_search_; }

    // find() for an index whose rules are categories only (precondition: categories_only()).
    // Inline for the common small policy: one table read.
    RuleMatch find_by_category(const ErrorDescription& error) const noexcept {
        RuleMatch match = by_category_[static_cast<std::size_t>(error.effective_category())];
        if (match.never_retry_on != RuleMatch::kNone) {
            match.retry_on = RuleMatch::kNone;
        }
        return match;
    }

    // The hash under which an error type name is stored (rule_index.cpp explains it). Public for
    // the tests that build colliding names, to check that equality never rests on the hash alone.
    static std::uint64_t error_type_hash(std::string_view name) noexcept;

  private:
    // Integer keys: packed SQLSTATE classes, vendor plus native code. A class entry also lists
    // the SQLSTATE rules of that class (sqlstates_[first, first + count)), so one probe answers
    // both the class and the full SQLSTATE, and a SQLSTATE of a class without rules costs one
    // probe that finds nothing.
    enum class KeyKind : std::uint8_t { Empty, SqlStateClass, Native };
    struct KeyEntry {
        std::uint64_t kind_and_vendor = 0;  // KeyKind in the low byte, vendor above; 0: free slot
        std::uint64_t code = 0;
        RuleMatch rules;
        std::uint32_t first = 0;
        std::uint32_t count = 0;
    };
    struct SqlStateEntry {
        std::uint64_t code = 0;  // packed SQLSTATE
        RuleMatch rules;
    };
    // An error type name with its hash (name_hash in rule_index.cpp: one pass over a name hashes
    // every dotted prefix of it), its length and its first two eight-byte words, which with the
    // hash decide equality for names of up to 24 characters without a memcmp; a free slot has
    // size 0.
    struct NameEntry {
        std::uint64_t hash = 0;
        std::size_t size = 0;
        std::array<std::uint64_t, 2> leading_words{};
        std::string name;
        RuleMatch rules;
    };
    // What a name hash may be: a rule name (kRuleName), a dotted prefix of one, without the dot
    // (kPrefix). Two Bloom filters of 512 one-bit slots chosen by the hash's top nine bits, kept
    // in one byte per slot so that one load, with no shifts or masks, answers both: a "no" is
    // certain, a "maybe" costs a probe of the table (kRuleName) or one more step of the walk
    // (kPrefix).
    struct NameFilter {
        static constexpr unsigned kRuleName = 1;
        static constexpr unsigned kPrefix = 2;
        std::array<std::uint8_t, 512> slots{};

        void add(std::uint64_t hash, std::uint8_t kind) noexcept { slots[hash >> 55] |= kind; }
        unsigned may_be(std::uint64_t hash) const noexcept { return slots[hash >> 55]; }
    };
    // A message substring and the index of its rule in one list; each list's entries are kept
    // in rule order, so the first one found is that list's lowest.
    struct MessageEntry {
        std::string text;
        std::uint32_t rule = RuleMatch::kNone;
        // The first and last characters repeated over 16 bytes, for the vectorised search (AVX2
        // repeats them into both halves of its register).
        std::array<char, 16> first_repeated{};
        std::array<char, 16> last_repeated{};

        // Whether `text` (non-empty) occurs in `message`, sought `Search`'s way
        // (engine/src/rule_index_find.hpp).
        template <typename Search>
        bool occurs_in(std::string_view message) const noexcept;
    };
    static constexpr int kHttpStatusLimit = 600;

    // The search's key functions and steps marked inline are defined in
    // engine/src/rule_index_find.hpp, which rule_index.cpp and the decision (decision.cpp) include:
    // decide() inlines the search into its steps (find_inline, for its friend DecisionSteps).
    friend class DecisionSteps;
    static inline std::uint64_t key_word(KeyKind kind, std::uint8_t vendor = 0) noexcept;
    static inline std::uint64_t key_hash(std::uint64_t kind_and_vendor,
                                         std::uint64_t code) noexcept;
    RuleMatch* key_slot(std::uint64_t kind_and_vendor, std::uint64_t code);
    static NameEntry name_entry(std::string_view name);
    RuleMatch* name_slot(std::string_view name);
    void add(const Matcher& matcher, bool never, std::uint32_t index,
             const ErrorTypeRegistry* error_types);
    void build_key_table(std::vector<KeyEntry> entries);
    void build_name_table(const std::vector<NameEntry>& rule_names);

    inline RuleMatch find_inline(const ErrorDescription& error) const noexcept;  // find()
    RuleMatch find_any(const ErrorDescription& error) const noexcept;            // out of line
    inline RuleMatch find_any_inline(const ErrorDescription& error) const noexcept;
    inline const KeyEntry* find_key(std::uint64_t kind_and_vendor,
                                    std::uint64_t code) const noexcept;
    inline void find_sqlstate(std::string_view sqlstate, RuleMatch& best) const noexcept;
    const NameEntry* find_name(std::uint64_t hash, std::string_view name) const noexcept;
    void find_error_type(std::string_view type, RuleMatch& best) const noexcept;
    inline void find_message(std::string_view message, RuleMatch& best) const noexcept;
    template <typename Search>
    void find_message_with(std::string_view message, RuleMatch& best) const noexcept;
    // Defined, and called, only where the compiler can target AVX2 (REBOUND_AVX2_SEARCH).
    void find_message_avx2(std::string_view message, RuleMatch& best) const noexcept;

    bool categories_only_ = true;
    std::array<RuleMatch, kCategoryCount> by_category_{};
    // Open-addressed tables (engine/src/flat_table.hpp), empty when the policy has no such rule.
    // `key_kinds_` has bit (1 << KeyKind) set for each kind present, so absent kinds cost no
    // probe.
    std::vector<KeyEntry> keys_;
    std::vector<SqlStateEntry> sqlstates_;  // grouped by class
    std::size_t key_mask_ = 0;              // detail::FlatTableProbe
    int key_shift_ = 63;
    std::uint32_t key_kinds_ = 0;
    std::vector<NameEntry> error_types_;
    std::size_t error_type_mask_ = 0;
    int error_type_shift_ = 63;
    NameFilter name_filter_;                 // the rule names and their dotted prefixes
    std::vector<RuleMatch> by_http_status_;  // empty, or kHttpStatusLimit entries
    std::vector<RuleMatch> by_grpc_status_;  // empty, or kGrpcStatusCount entries
    // The message rules of each list, in rule order.
    std::vector<MessageEntry> never_messages_;
    std::vector<MessageEntry> retry_messages_;
    MessageSearch message_search_ = MessageSearch::None;
    // The shortest message that the AVX2 search takes: one AVX2 block where compile chose it,
    // none otherwise. find_message's one compare.
    std::size_t avx2_from_ = SIZE_MAX;
};

}  // namespace rebound

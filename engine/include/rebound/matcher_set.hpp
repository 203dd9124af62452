// MatcherSet: a compiled list of matchers, searched without allocating.
//
// Compilation turns the list into flat tables: a per-category array, sorted packed SQLSTATEs and
// classes, sorted vendor+native pairs, a per-status HTTP array, sorted error type names
// (expanded with registered subtypes) and message substrings. `find` reports the first rule of
// the original list (lowest index) that matches, so explain and logs name the rule a reader
// would pick by reading the list top to bottom.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "rebound/error.hpp"
#include "rebound/error_category.hpp"
#include "rebound/error_type_registry.hpp"
#include "rebound/matcher.hpp"

namespace rebound {

class MatcherSet {
  public:
    MatcherSet() = default;

    // Compiles `matchers`; `error_types` (optional) adds registered subtypes to error matchers.
    // Preconditions: every matcher passed validation (validate_matcher).
    static MatcherSet compile(std::span<const Matcher> matchers,
                              const ErrorTypeRegistry* error_types = nullptr);

    // Returned by find_index when no matcher matches.
    static constexpr std::uint32_t kNoMatch = UINT32_MAX;

    // Index in the compiled list of the first matcher that matches `error`, or kNoMatch.
    // The hot-path form: a plain integer comes back in a register.
    std::uint32_t find_index(const ErrorDescription& error) const noexcept;

    // Index in the compiled list of the first matcher that matches `error`, or nullopt.
    std::optional<std::size_t> find(const ErrorDescription& error) const noexcept {
        const std::uint32_t index = find_index(error);
        return index == kNoMatch ? std::nullopt : std::optional<std::size_t>(index);
    }

    bool empty() const noexcept { return size_ == 0; }
    std::size_t size() const noexcept { return size_; }

  private:
    using RuleIndex = std::uint32_t;
    static constexpr RuleIndex kNoRule = kNoMatch;
    static constexpr int kHttpStatusLimit = 600;

    struct NativeKey {
        Vendor vendor;
        std::int64_t code;
        friend auto operator<=>(const NativeKey&, const NativeKey&) = default;
    };

    std::size_t size_ = 0;
    std::array<RuleIndex, kCategoryCount> by_category_ = [] {
        std::array<RuleIndex, kCategoryCount> none{};
        none.fill(kNoRule);
        return none;
    }();
    std::vector<std::pair<std::uint64_t, RuleIndex>> by_sqlstate_;
    std::vector<std::pair<std::uint64_t, RuleIndex>> by_sqlstate_class_;
    std::vector<std::pair<NativeKey, RuleIndex>> by_native_;
    // Sorted by (length, text): most probes differ in length and never reach memcmp.
    std::vector<std::pair<std::string, RuleIndex>> by_error_type_;
    std::vector<std::pair<std::string, RuleIndex>> by_message_;
    std::vector<RuleIndex> by_http_status_;  // empty, or kHttpStatusLimit entries
};

}  // namespace rebound

#include "rebound/matcher_set.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

namespace rebound {
namespace {

constexpr char ascii_upper(char c) noexcept {
    return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
}

// Packs up to 8 characters, upper-cased, into one integer so lookups compare one word.
std::uint64_t pack_code(std::string_view code) noexcept {
    std::uint64_t key = 0;
    for (const char c : code) {
        key = (key << 8) | static_cast<unsigned char>(ascii_upper(c));
    }
    return key;
}

// Sorts by key, then keeps for each key only its lowest rule index.
template <typename Key>
void sort_and_keep_first(std::vector<std::pair<Key, std::uint32_t>>& entries) {
    std::sort(entries.begin(), entries.end());
    entries.erase(std::unique(entries.begin(), entries.end(),
                              [](const auto& a, const auto& b) { return a.first == b.first; }),
                  entries.end());
}

// Orders error type names by length first, then by text.
struct ShorterFirst {
    bool operator()(std::string_view a, std::string_view b) const noexcept {
        return a.size() != b.size() ? a.size() < b.size() : a < b;
    }
};

std::uint32_t lookup_error_type(const std::vector<std::pair<std::string, std::uint32_t>>& entries,
                                std::string_view probe, std::uint32_t not_found) noexcept {
    const auto it = std::lower_bound(
        entries.begin(), entries.end(), probe,
        [](const auto& entry, std::string_view p) { return ShorterFirst{}(entry.first, p); });
    return (it != entries.end() && it->first == probe) ? it->second : not_found;
}

// Whether `needle` (non-empty) occurs in `haystack`. Like std::string_view::find, it finds
// candidates with memchr on the first character, but checks the second character inline before
// calling memcmp: most candidates fail there, and the call is what costs (docs/performance.md).
bool contains(std::string_view haystack, std::string_view needle) noexcept {
    if (needle.size() > haystack.size()) {
        return false;
    }
    const char* at = haystack.data();
    const char* const last = haystack.data() + (haystack.size() - needle.size());
    const char first = needle.front();
    while (at <= last) {
        const void* hit = std::memchr(at, first, static_cast<std::size_t>(last - at) + 1);
        if (hit == nullptr) {
            return false;
        }
        at = static_cast<const char*>(hit);
        if (needle.size() == 1 || (at[1] == needle[1] && std::memcmp(at + 2, needle.data() + 2,
                                                                     needle.size() - 2) == 0)) {
            return true;
        }
        ++at;
    }
    return false;
}

template <typename Key, typename Probe>
std::uint32_t lookup(const std::vector<std::pair<Key, std::uint32_t>>& entries, const Probe& probe,
                     std::uint32_t not_found) noexcept {
    const auto it =
        std::lower_bound(entries.begin(), entries.end(), probe,
                         [](const auto& entry, const Probe& p) { return entry.first < p; });
    return (it != entries.end() && it->first == probe) ? it->second : not_found;
}

}  // namespace

MatcherSet MatcherSet::compile(std::span<const Matcher> matchers,
                               const ErrorTypeRegistry* error_types) {
    MatcherSet set;
    set.size_ = matchers.size();
    const auto keep_lowest = [](RuleIndex& slot, RuleIndex index) { slot = std::min(slot, index); };
    for (std::size_t position = 0; position < matchers.size(); ++position) {
        const Matcher& m = matchers[position];
        const auto index = static_cast<RuleIndex>(position);
        switch (m.kind) {
            case MatcherKind::Category:
                keep_lowest(set.by_category_[static_cast<std::size_t>(m.category)], index);
                break;
            case MatcherKind::TransientGroup:
                for (const CategoryInfo& info : kCategoryTable) {
                    if (info.retryable_by_default) {
                        keep_lowest(set.by_category_[static_cast<std::size_t>(info.category)],
                                    index);
                    }
                }
                break;
            case MatcherKind::SqlState:
                set.by_sqlstate_.emplace_back(pack_code(m.text), index);
                break;
            case MatcherKind::SqlStateClass:
                set.by_sqlstate_class_.emplace_back(pack_code(m.text), index);
                break;
            case MatcherKind::VendorNative:
                set.by_native_.emplace_back(NativeKey{m.vendor, m.native_code}, index);
                break;
            case MatcherKind::ErrorType:
                set.by_error_type_.emplace_back(m.text, index);
                if (error_types != nullptr) {
                    for (std::string& subtype : error_types->subtypes_of(m.text)) {
                        set.by_error_type_.emplace_back(std::move(subtype), index);
                    }
                }
                break;
            case MatcherKind::HttpStatus:
            case MatcherKind::HttpClass: {
                if (set.by_http_status_.empty()) {
                    set.by_http_status_.assign(kHttpStatusLimit, kNoRule);
                }
                const bool whole_class = m.kind == MatcherKind::HttpClass;
                const int first = whole_class ? m.http * 100 : m.http;
                const int last = whole_class ? first + 99 : first;
                for (int status = std::max(first, 0); status <= last && status < kHttpStatusLimit;
                     ++status) {
                    keep_lowest(set.by_http_status_[static_cast<std::size_t>(status)], index);
                }
                break;
            }
            case MatcherKind::Message:
                set.by_message_.emplace_back(m.text, index);
                break;
        }
    }
    sort_and_keep_first(set.by_sqlstate_);
    sort_and_keep_first(set.by_sqlstate_class_);
    sort_and_keep_first(set.by_native_);
    std::sort(
        set.by_error_type_.begin(), set.by_error_type_.end(), [](const auto& a, const auto& b) {
            return a.first != b.first ? ShorterFirst{}(a.first, b.first) : a.second < b.second;
        });
    set.by_error_type_.erase(
        std::unique(set.by_error_type_.begin(), set.by_error_type_.end(),
                    [](const auto& a, const auto& b) { return a.first == b.first; }),
        set.by_error_type_.end());
    return set;
}

std::uint32_t MatcherSet::find_index(const ErrorDescription& error) const noexcept {
    RuleIndex best = by_category_[static_cast<std::size_t>(error.effective_category())];
    const auto consider = [&best](RuleIndex candidate) { best = std::min(best, candidate); };

    if (error.sqlstate.size() == 5) {
        if (!by_sqlstate_.empty()) {
            consider(lookup(by_sqlstate_, pack_code(error.sqlstate), kNoRule));
        }
        if (!by_sqlstate_class_.empty()) {
            consider(lookup(by_sqlstate_class_, pack_code(error.sqlstate.substr(0, 2)), kNoRule));
        }
    }
    if (!by_native_.empty() && error.vendor && error.native_code) {
        consider(lookup(by_native_, NativeKey{*error.vendor, *error.native_code}, kNoRule));
    }
    if (!by_error_type_.empty()) {
        // The type itself, then each dotted prefix: io.timeout.read, io.timeout, io.
        std::string_view name = error.error_type;
        while (!name.empty()) {
            consider(lookup_error_type(by_error_type_, name, kNoRule));
            const auto dot = name.rfind('.');
            name = dot == std::string_view::npos ? std::string_view{} : name.substr(0, dot);
        }
    }
    if (!by_http_status_.empty() && error.http_status > 0 && error.http_status < kHttpStatusLimit) {
        consider(by_http_status_[static_cast<std::size_t>(error.http_status)]);
    }
    if (!error.message.empty()) {
        for (const auto& [text, index] : by_message_) {
            if (index < best && contains(error.message, text)) {
                best = index;
            }
        }
    }
    return best;
}

}  // namespace rebound

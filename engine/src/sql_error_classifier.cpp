#include "rebound/sql_error_classifier.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <tuple>

namespace rebound {
namespace {

constexpr std::size_t kSqlStateLength = 5;
constexpr std::size_t kSqlStateClassLength = 2;
constexpr std::int64_t kSqlitePrimaryCodeMask = 0xFF;

// Specificity of each level (SqlClassification::specificity): higher is more specific.
constexpr std::uint8_t kGenericClassSpecificity = 1;
constexpr std::uint8_t kGenericSqlStateSpecificity = 2;
constexpr std::uint8_t kVendorClassSpecificity = 3;
constexpr std::uint8_t kVendorSqlStateSpecificity = 4;
constexpr std::uint8_t kVendorNativeRangeSpecificity = 5;
constexpr std::uint8_t kVendorNativeSpecificity = 6;

constexpr char to_upper(char c) noexcept {
    return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}

constexpr bool is_sqlstate_character(char c) noexcept {
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z');
}

// Base-36 value of a SQLSTATE character; precondition: is_sqlstate_character(c).
constexpr std::int64_t digit_value(char c) noexcept {
    return c <= '9' ? c - '0' : c - 'A' + 10;
}

// The integer key of a SQLSTATE or class; nullopt when a character is not [0-9A-Z].
constexpr std::optional<std::int64_t> encode(std::string_view text) noexcept {
    std::int64_t key = 0;
    for (const char c : text) {
        if (!is_sqlstate_character(c)) {
            return std::nullopt;
        }
        key = key * 36 + digit_value(c);
    }
    return key;
}

// ODBC 2 SQLSTATEs that map one-to-one onto an ODBC 3 SQLSTATE (ODBC Programmer's Reference,
// "SQLSTATE Mappings"). The 2.x states 22003, 22005, 22008 and 24000 are left alone: they are also
// valid ODBC 3 states, and the table maps them only for particular functions.
struct SqlStateMapping {
    std::string_view odbc2;
    std::string_view odbc3;
};

constexpr SqlStateMapping kOdbc2Mappings[] = {
    {"01S03", "01001"}, {"01S04", "01001"}, {"37000", "42000"}, {"70100", "HY018"},
    {"S0001", "42S01"}, {"S0002", "42S02"}, {"S0011", "42S11"}, {"S0012", "42S12"},
    {"S0021", "42S21"}, {"S0022", "42S22"}, {"S0023", "42S23"}, {"S1002", "07009"},
    {"S1093", "07009"},
};

// A rule's `matched` text: native:postgresql:1205, native_range:mysql:1-9,
// sqlstate:generic:40001, sqlstate_class:generic:40.
std::string rule_text(const SqlErrorRule& rule) {
    const std::string vendor_name(to_string(rule.vendor));
    switch (rule.key) {
        case SqlRuleKey::NativeCode:
            return "native:" + vendor_name + ":" + std::to_string(rule.native_code);
        case SqlRuleKey::NativeRange:
            return "native_range:" + vendor_name + ":" + std::to_string(rule.native_code) + "-" +
                   std::to_string(rule.native_last);
        case SqlRuleKey::SqlState:
            return "sqlstate:" + vendor_name + ":" + std::string(rule.sqlstate);
        case SqlRuleKey::SqlStateClass:
            return "sqlstate_class:" + vendor_name + ":" + std::string(rule.sqlstate);
    }
    return {};
}

// What a rule is looked up by: its code or encoded SQLSTATE (`first`), the last code of a native
// range (else `first`), and the range's width (last - first; 0 for the other kinds).
struct RuleKey {
    std::int64_t first = 0;
    std::int64_t last = 0;
    std::uint64_t width = 0;
};

// The key of `rule` (whose text is `text`); throws std::invalid_argument for a range that ends
// below its first code or a malformed SQLSTATE.
RuleKey rule_key(const SqlErrorRule& rule, const std::string& text) {
    if (rule.key == SqlRuleKey::NativeCode) {
        return {rule.native_code, rule.native_code, 0};
    }
    if (rule.key == SqlRuleKey::NativeRange) {
        if (rule.native_last < rule.native_code) {
            throw std::invalid_argument("vendor map rule " + text + " ends below its first code");
        }
        // Modular subtraction: exact for any last >= first, even across the int64 range.
        return {rule.native_code, rule.native_last,
                static_cast<std::uint64_t>(rule.native_last) -
                    static_cast<std::uint64_t>(rule.native_code)};
    }
    const std::size_t length =
        rule.key == SqlRuleKey::SqlState ? kSqlStateLength : kSqlStateClassLength;
    const auto encoded = encode(rule.sqlstate);
    if (rule.sqlstate.size() != length || !encoded) {
        throw std::invalid_argument("vendor map rule with a malformed SQLSTATE '" +
                                    std::string(rule.sqlstate) + "'");
    }
    return {*encoded, *encoded, 0};
}

// Counts one more native range of `vendor`; throws past SqlErrorClassifier::kMaxNativeRanges.
void count_range(Vendor vendor, std::size_t& count) {
    if (++count > SqlErrorClassifier::kMaxNativeRanges) {
        throw std::invalid_argument(
            "vendor map of " + std::string(to_string(vendor)) + " has more than " +
            std::to_string(SqlErrorClassifier::kMaxNativeRanges) + " native ranges");
    }
}

// The rule's category in each phase, `none` where it gives none; false when it gives none at all.
bool fill_categories(const SqlErrorRule& rule,
                     std::array<std::uint8_t, kMapPhaseCount>& category_by_phase,
                     std::uint8_t none) noexcept {
    bool applies = false;
    for (std::size_t phase = 0; phase < kMapPhaseCount; ++phase) {
        const auto& category = rule.category_by_phase[phase];
        category_by_phase[phase] = category ? static_cast<std::uint8_t>(*category) : none;
        applies = applies || category.has_value();
    }
    return applies;
}

// How specific a match of `rule` is (SqlClassification::specificity).
std::uint8_t specificity(const SqlErrorRule& rule) noexcept {
    const bool generic = rule.vendor == Vendor::Generic;
    switch (rule.key) {
        case SqlRuleKey::NativeCode:
            return kVendorNativeSpecificity;
        case SqlRuleKey::SqlState:
            return generic ? kGenericSqlStateSpecificity : kVendorSqlStateSpecificity;
        case SqlRuleKey::SqlStateClass:
            return generic ? kGenericClassSpecificity : kVendorClassSpecificity;
        case SqlRuleKey::NativeRange:
            return kVendorNativeRangeSpecificity;
    }
    return 0;
}

// Two neighbouring rules of one vendor and key kind, sorted by width then first code: throws when
// they are the same rule, or equally wide native ranges that overlap (only neighbours can).
void check_distinct(const RuleKey& a, const std::string& a_text, const RuleKey& b,
                    const std::string& b_text) {
    if (a.width != b.width) {
        return;
    }
    if (a.first == b.first) {
        throw std::invalid_argument("vendor map rule " + b_text + " is given twice");
    }
    if (b.first <= a.last) {
        throw std::invalid_argument("vendor map rules " + a_text + " and " + b_text +
                                    " overlap and are equally wide");
    }
}

}  // namespace

NormalizedSqlState normalize_sqlstate(std::string_view sqlstate) noexcept {
    NormalizedSqlState normalized;
    const std::size_t length = std::min(sqlstate.size(), kSqlStateLength);
    for (std::size_t i = 0; i < length; ++i) {
        normalized.text[i] = to_upper(sqlstate[i]);
    }
    normalized.length = static_cast<std::uint8_t>(length);
    if (sqlstate.size() != kSqlStateLength) {
        return normalized;
    }
    const std::string_view upper = normalized.view();
    for (const SqlStateMapping& mapping : kOdbc2Mappings) {
        if (mapping.odbc2 == upper) {
            std::copy(mapping.odbc3.begin(), mapping.odbc3.end(), normalized.text.begin());
            return normalized;
        }
    }
    // Every other S1xxx is HYxxx (S1000 -> HY000, S1T00 -> HYT00, ...).
    if (upper[0] == 'S' && upper[1] == '1') {
        normalized.text[0] = 'H';
        normalized.text[1] = 'Y';
    }
    return normalized;
}

SqlErrorClassifier::SqlErrorClassifier(std::span<const SqlErrorRule> rules) {
    struct Pending {
        std::size_t vendor;
        std::size_t kind;
        RuleKey key;
        Entry entry;
        std::string text;
    };
    std::array<std::size_t, kVendorTable.size()> range_counts{};
    std::vector<Pending> pending;
    pending.reserve(rules.size());
    for (const SqlErrorRule& rule : rules) {
        const auto vendor = static_cast<std::size_t>(rule.vendor);
        const auto kind = static_cast<std::size_t>(rule.key);
        if (vendor >= kVendorTable.size() || kind >= kKeyKindCount) {
            throw std::invalid_argument("vendor map rule with an invalid vendor or key kind");
        }
        std::string text = rule_text(rule);
        const RuleKey key = rule_key(rule, text);
        if (rule.key == SqlRuleKey::NativeRange) {
            count_range(rule.vendor, range_counts[vendor]);
        }
        Entry entry;
        entry.key = key.first;
        entry.last = key.last;
        if (!fill_categories(rule, entry.category_by_phase, kNoCategory)) {
            throw std::invalid_argument("vendor map rule " + text + " applies in no phase");
        }
        entry.specificity = specificity(rule);
        pending.push_back({vendor, kind, key, entry, std::move(text)});
    }
    // Ranges narrowest first, so that the first range holding a code is the most specific.
    std::stable_sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
        return std::tie(a.vendor, a.kind, a.key.width, a.key.first) <
               std::tie(b.vendor, b.kind, b.key.width, b.key.first);
    });
    for (std::size_t i = 1; i < pending.size(); ++i) {
        const Pending& a = pending[i - 1];
        const Pending& b = pending[i];
        if (a.vendor == b.vendor && a.kind == b.kind) {
            check_distinct(a.key, a.text, b.key, b.text);
        }
    }
    // The tables: the texts back to back, the entries grouped by vendor and key kind.
    std::size_t text_size = 0;
    for (const Pending& p : pending) {
        text_size += p.text.size();
    }
    texts_.reserve(text_size);
    entries_.reserve(pending.size());
    for (const Pending& p : pending) {
        Entry entry = p.entry;
        entry.text_offset = static_cast<std::uint32_t>(texts_.size());
        entry.text_length = static_cast<std::uint32_t>(p.text.size());
        texts_.insert(texts_.end(), p.text.begin(), p.text.end());
        Range& range = ranges_[p.vendor][p.kind];
        if (range.first == range.last) {
            range.first = static_cast<std::uint32_t>(entries_.size());
        }
        entries_.push_back(entry);
        range.last = static_cast<std::uint32_t>(entries_.size());
    }
}

SqlClassification SqlErrorClassifier::lookup(Vendor vendor, SqlRuleKey kind, std::int64_t key,
                                             DatabasePhase phase) const noexcept {
    const Range range = ranges_[static_cast<std::size_t>(vendor)][static_cast<std::size_t>(kind)];
    const auto first = entries_.begin() + range.first;
    const auto last = entries_.begin() + range.last;
    const auto found = std::lower_bound(
        first, last, key, [](const Entry& entry, std::int64_t value) { return entry.key < value; });
    if (found == last || found->key != key) {
        return {};
    }
    return make_result(*found, phase);
}

SqlClassification SqlErrorClassifier::lookup_range(Vendor vendor, std::int64_t code,
                                                   DatabasePhase phase) const noexcept {
    const Range range = ranges_[static_cast<std::size_t>(vendor)]
                               [static_cast<std::size_t>(SqlRuleKey::NativeRange)];
    for (std::uint32_t i = range.first; i < range.last; ++i) {
        const Entry& entry = entries_[i];
        if (entry.key <= code && code <= entry.last) {
            if (SqlClassification result = make_result(entry, phase); result.specificity != 0) {
                return result;
            }
        }
    }
    return {};
}

SqlClassification SqlErrorClassifier::make_result(const Entry& entry,
                                                  DatabasePhase phase) const noexcept {
    const std::uint8_t category =
        entry.category_by_phase[static_cast<std::size_t>(map_phase(phase))];
    if (category == kNoCategory) {
        return {};
    }
    return {static_cast<ErrorCategory>(category),
            std::string_view(texts_.data() + entry.text_offset, entry.text_length),
            entry.specificity};
}

SqlClassification SqlErrorClassifier::classify(const SqlErrorRecord& record) const noexcept {
    const NormalizedSqlState normalized = normalize_sqlstate(record.sqlstate);
    const std::string_view sqlstate = normalized.view();
    const std::optional<std::int64_t> state_key =
        sqlstate.size() == kSqlStateLength ? encode(sqlstate) : std::nullopt;
    const std::optional<std::int64_t> class_key =
        state_key ? encode(sqlstate.substr(0, kSqlStateClassLength)) : std::nullopt;
    const DatabasePhase phase = record.phase;

    if (record.vendor && *record.vendor != Vendor::Generic) {
        const Vendor vendor = *record.vendor;
        if (record.native_code) {
            SqlClassification result =
                lookup(vendor, SqlRuleKey::NativeCode, *record.native_code, phase);
            // SQLite extended result codes carry the primary code in their low byte.
            if (result.specificity == 0 && vendor == Vendor::Sqlite) {
                const std::int64_t primary = *record.native_code & kSqlitePrimaryCodeMask;
                if (primary != *record.native_code) {
                    result = lookup(vendor, SqlRuleKey::NativeCode, primary, phase);
                }
            }
            if (result.specificity != 0) {
                return result;
            }
            if (SqlClassification r = lookup_range(vendor, *record.native_code, phase);
                r.specificity != 0) {
                return r;
            }
        }
        if (state_key) {
            if (SqlClassification r = lookup(vendor, SqlRuleKey::SqlState, *state_key, phase);
                r.specificity != 0) {
                return r;
            }
            if (SqlClassification r = lookup(vendor, SqlRuleKey::SqlStateClass, *class_key, phase);
                r.specificity != 0) {
                return r;
            }
        }
    }
    if (state_key) {
        if (SqlClassification r = lookup(Vendor::Generic, SqlRuleKey::SqlState, *state_key, phase);
            r.specificity != 0) {
            return r;
        }
        if (SqlClassification r =
                lookup(Vendor::Generic, SqlRuleKey::SqlStateClass, *class_key, phase);
            r.specificity != 0) {
            return r;
        }
    }
    return {};
}

std::optional<std::pair<std::size_t, SqlClassification>> SqlErrorClassifier::most_specific(
    std::span<const SqlErrorRecord> records, std::optional<DatabasePhase> phase) const noexcept {
    std::optional<std::pair<std::size_t, SqlClassification>> best;
    for (std::size_t index = 0; index < records.size(); ++index) {
        SqlErrorRecord record = records[index];
        if (normalize_sqlstate(record.sqlstate).view().starts_with("01")) {
            continue;
        }
        if (phase) {
            record.phase = *phase;
        }
        const SqlClassification result = classify(record);
        if (!best || result.specificity > best->second.specificity) {
            best.emplace(index, result);
        }
    }
    return best;
}

SqlClassification SqlErrorClassifier::classify_most_specific(
    std::span<const SqlErrorRecord> records) const noexcept {
    if (const auto best = most_specific(records, std::nullopt)) {
        return best->second;
    }
    return records.empty() ? SqlClassification{} : classify(records.front());
}

SqlFailureClassification SqlErrorClassifier::classify_failure(
    std::span<const SqlErrorRecord> records, DatabasePhase phase,
    bool session_dead) const noexcept {
    SqlFailureClassification failure;
    if (const auto best = most_specific(records, phase)) {
        failure.record = best->first;
        failure.category = best->second.category;
        failure.map_rule = best->second.matched;
    }
    if (session_dead && failure.category == ErrorCategory::Unknown) {
        failure.category = ErrorCategory::ConnectionLost;
        failure.connection_dead = true;
    }
    if (phase == DatabasePhase::Commit &&
        restart_scope(failure.category) == RestartScope::Connection) {
        failure.category = ErrorCategory::CommitOutcomeUnknown;
        failure.commit_connection_loss = true;
    }
    return failure;
}

std::string SqlFailureClassification::matched() const {
    std::string text(connection_dead ? std::string_view("connection_dead") : map_rule);
    if (commit_connection_loss) {
        text.insert(0, "commit_connection_loss:");
    }
    return text;
}

std::size_t SqlErrorClassifier::rule_count(Vendor vendor) const noexcept {
    std::size_t count = 0;
    for (const Range& range : ranges_[static_cast<std::size_t>(vendor)]) {
        count += range.last - range.first;
    }
    return count;
}

}  // namespace rebound

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
        std::uint64_t width;  // NativeRange: last - first; other kinds: 0
        std::int64_t key;
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
        const std::string vendor_name(to_string(rule.vendor));
        std::int64_t key = rule.native_code;
        std::int64_t last = rule.native_code;
        std::uint64_t width = 0;
        std::string text;
        if (rule.key == SqlRuleKey::NativeCode) {
            text = "native:" + vendor_name + ":" + std::to_string(rule.native_code);
        } else if (rule.key == SqlRuleKey::NativeRange) {
            text = "native_range:" + vendor_name + ":" + std::to_string(rule.native_code) + "-" +
                   std::to_string(rule.native_last);
            if (rule.native_last < rule.native_code) {
                throw std::invalid_argument("vendor map rule " + text +
                                            " ends below its first code");
            }
            if (++range_counts[vendor] > kMaxNativeRanges) {
                throw std::invalid_argument("vendor map of " + vendor_name + " has more than " +
                                            std::to_string(kMaxNativeRanges) + " native ranges");
            }
            last = rule.native_last;
            // Modular subtraction: exact for any last >= first, even across the int64 range.
            width = static_cast<std::uint64_t>(last) - static_cast<std::uint64_t>(key);
        } else {
            const std::size_t length =
                rule.key == SqlRuleKey::SqlState ? kSqlStateLength : kSqlStateClassLength;
            const auto encoded = encode(rule.sqlstate);
            if (rule.sqlstate.size() != length || !encoded) {
                throw std::invalid_argument("vendor map rule with a malformed SQLSTATE '" +
                                            std::string(rule.sqlstate) + "'");
            }
            key = *encoded;
            text = std::string(rule.key == SqlRuleKey::SqlState ? "sqlstate:" : "sqlstate_class:") +
                   vendor_name + ":" + std::string(rule.sqlstate);
        }
        Entry entry;
        entry.key = key;
        entry.last = last;
        bool applies = false;
        for (std::size_t phase = 0; phase < kMapPhaseCount; ++phase) {
            const auto& category = rule.category_by_phase[phase];
            entry.category_by_phase[phase] =
                category ? static_cast<std::uint8_t>(*category) : kNoCategory;
            applies = applies || category.has_value();
        }
        if (!applies) {
            throw std::invalid_argument("vendor map rule " + text + " applies in no phase");
        }
        const bool generic = rule.vendor == Vendor::Generic;
        switch (rule.key) {
            case SqlRuleKey::NativeCode:
                entry.specificity = kVendorNativeSpecificity;
                break;
            case SqlRuleKey::SqlState:
                entry.specificity =
                    generic ? kGenericSqlStateSpecificity : kVendorSqlStateSpecificity;
                break;
            case SqlRuleKey::SqlStateClass:
                entry.specificity = generic ? kGenericClassSpecificity : kVendorClassSpecificity;
                break;
            case SqlRuleKey::NativeRange:
                entry.specificity = kVendorNativeRangeSpecificity;
                break;
        }
        pending.push_back({vendor, kind, width, key, entry, std::move(text)});
    }
    // Ranges narrowest first, so that the first range holding a code is the most specific.
    std::stable_sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
        return std::tie(a.vendor, a.kind, a.width, a.key) <
               std::tie(b.vendor, b.kind, b.width, b.key);
    });
    for (std::size_t i = 1; i < pending.size(); ++i) {
        const Pending& a = pending[i - 1];
        const Pending& b = pending[i];
        if (a.vendor != b.vendor || a.kind != b.kind || a.width != b.width) {
            continue;
        }
        if (a.key == b.key) {
            throw std::invalid_argument("vendor map rule " + b.text + " is given twice");
        }
        // Same width, sorted by first code: only neighbours can overlap.
        if (b.kind == static_cast<std::size_t>(SqlRuleKey::NativeRange) &&
            b.entry.key <= a.entry.last) {
            throw std::invalid_argument("vendor map rules " + a.text + " and " + b.text +
                                        " overlap and are equally wide");
        }
    }
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

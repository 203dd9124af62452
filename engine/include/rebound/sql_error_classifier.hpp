// SqlErrorClassifier: turns one database error (vendor, SQLSTATE, native code, phase) into an
// ErrorCategory with the vendor error maps (docs/categories.md, "How a database
// error becomes a category").
//
// The classifier is immutable once built and shared as std::shared_ptr<const SqlErrorClassifier>;
// classify() is noexcept, allocates nothing and takes no lock, so it may run on the decision hot
// path from any number of threads. The maps themselves are data (policies/vendors/*.yaml) read by
// the loader in rebound::dsl (rebound/dsl/vendor_map_loader.hpp); this header only knows the
// compiled form.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rebound/error_category.hpp"
#include "rebound/vendor.hpp"

namespace rebound {

// When the error happened: the same record means different things while connecting, executing
// or committing (`HYT00` connecting is connection_failure, executing statement_timeout; `08S01`
// during commit is commit_outcome_unknown). A rollback's records are looked up with the maps'
// `execute` entries (the maps name no rollback phase): whatever happens to the session during a
// rollback, the transaction does not commit, so no outcome is unknown.
enum class DatabasePhase : std::uint8_t { Connect, Execute, Commit, Rollback };

struct DatabasePhaseInfo {
    DatabasePhase phase;
    std::string_view wire_name;
};

inline constexpr std::array<DatabasePhaseInfo, 4> kDatabasePhaseTable{{
    {DatabasePhase::Connect, "connect"},
    {DatabasePhase::Execute, "execute"},
    {DatabasePhase::Commit, "commit"},
    {DatabasePhase::Rollback, "rollback"},
}};

constexpr std::string_view to_string(DatabasePhase phase) noexcept {
    return kDatabasePhaseTable[static_cast<std::size_t>(phase)].wire_name;
}

constexpr std::optional<DatabasePhase> parse_database_phase(std::string_view wire_name) noexcept {
    for (const DatabasePhaseInfo& info : kDatabasePhaseTable) {
        if (info.wire_name == wire_name) {
            return info.phase;
        }
    }
    return std::nullopt;
}

// One diagnostic record to classify. Text is borrowed; any part may be absent.
struct SqlErrorRecord {
    std::optional<Vendor> vendor;  // absent: only the generic SQLSTATE map applies
    std::string_view sqlstate;     // 5 characters, ODBC 2 or 3; empty when absent
    std::optional<std::int64_t> native_code;
    DatabasePhase phase = DatabasePhase::Execute;
};

// The answer: the category and the rule that chose it, printed as in `rebound classify`
// (`native:mysql:1213`, `native_range:oracle:12150-12999`, `sqlstate:postgresql:40P01`,
// `sqlstate_class:generic:08`, ...); `matched`
// is empty when nothing matched and the category is `unknown`. The view stays valid as long as
// the classifier that returned it.
struct SqlClassification {
    ErrorCategory category = ErrorCategory::Unknown;
    std::string_view matched;
    // How specific the winning rule was; used to pick the most specific of several records
    // (higher wins): 0 none, then generic class, generic SQLSTATE, vendor class, vendor SQLSTATE,
    // vendor native range, vendor native code.
    std::uint8_t specificity = 0;
};

// The classification of every record of one failed call, with the phase rules applied
// (SqlErrorClassifier::classify_failure). `map_rule` views the classifier, which must outlive it.
struct SqlFailureClassification {
    ErrorCategory category = ErrorCategory::Unknown;
    // The vendor-map rule that classified the deciding record (`sqlstate:postgresql:57P01`);
    // empty when no rule did.
    std::string_view map_rule;
    // Index of the deciding record (the most specific non-warning one); nullopt when every record
    // is a warning or there is none.
    std::optional<std::size_t> record;
    // The phase rules that applied (docs/categories.md, "The phase rules").
    bool connection_dead = false;         // no rule knew the failure and the session is gone
    bool commit_connection_loss = false;  // the session ended during a commit

    // The rule as `rebound classify` and DatabaseFailure::matched print it: `map_rule`, or
    // `connection_dead`, prefixed with `commit_connection_loss:` when that rule applied; empty
    // for `unknown`.
    std::string matched() const;
};

// Normalises an ODBC 2 SQLSTATE to ODBC 3 (`S1xxx` -> `HYxxx`, `37000` -> `42000`,
// `S0002` -> `42S02`, `S0022` -> `42S22`, ...) and upper-cases it. Input that is not five
// characters is returned unchanged (upper-cased, truncated to five).
struct NormalizedSqlState {
    std::array<char, 5> text{};
    std::uint8_t length = 0;
    // A view into this object: keep the object alive while the view is used.
    constexpr std::string_view view() const noexcept { return {text.data(), length}; }
};
NormalizedSqlState normalize_sqlstate(std::string_view sqlstate) noexcept;

// What a rule of a vendor map keys on.
enum class SqlRuleKey : std::uint8_t {
    NativeCode,     // the vendor's native error number (exact)
    SqlState,       // the five-character SQLSTATE (exact, after normalisation)
    SqlStateClass,  // the SQLSTATE's first two characters
    NativeRange,    // a family of native error numbers: native_code to native_last, inclusive
};

// The phases a vendor map's rule can name (`connect`, `execute`, `commit`): the first three of
// kDatabasePhaseTable. `rollback` is looked up as `execute` (map_phase).
inline constexpr std::size_t kMapPhaseCount = 3;

// The phase whose map entries apply in `phase`.
constexpr DatabasePhase map_phase(DatabasePhase phase) noexcept {
    return phase == DatabasePhase::Rollback ? DatabasePhase::Execute : phase;
}

// One rule of a vendor map, in readable form (the loader fills these from policies/vendors/*.yaml;
// code may build them directly). The rule applies in the phases whose entry is set; a phase left
// empty falls through to the next, less specific rule (docs/categories.md: the phase).
struct SqlErrorRule {
    Vendor vendor = Vendor::Generic;  // Generic: a rule of the ISO/ODBC SQLSTATE map
    SqlRuleKey key = SqlRuleKey::SqlState;
    std::int64_t native_code = 0;  // NativeCode; NativeRange: the first code of the range
    std::int64_t native_last = 0;  // NativeRange: the last code of the range (>= native_code)
    std::string_view sqlstate;     // SqlState: 5 characters; SqlStateClass: 2 characters
    std::array<std::optional<ErrorCategory>, kMapPhaseCount> category_by_phase{};

    // The same category in every phase.
    void set_category(ErrorCategory category) noexcept { category_by_phase.fill(category); }
    // The category in one phase a map names; Rollback, which has no entry of its own (it is
    // looked up as Execute), is ignored.
    void set_category(DatabasePhase phase, ErrorCategory category) noexcept {
        if (phase != DatabasePhase::Rollback) {
            category_by_phase[static_cast<std::size_t>(phase)] = category;
        }
    }
};

// The compiled vendor maps: per vendor, flat arrays sorted by key and searched by bisection.
//
// Precedence (docs/categories.md, docs/vendor-maps.md): vendor + native, vendor + native range
// (the narrowest range that holds the code), vendor + SQLSTATE, vendor + SQLSTATE class, generic
// SQLSTATE, generic SQLSTATE class, else `unknown`. At each level only a rule that applies in the
// record's phase matches (a range that does not apply in the phase leaves the code to the next
// wider range). SQLite extended result codes fall back to their primary code (`code & 0xFF`) when
// the map does not name the extended code. SQLSTATEs are normalised (normalize_sqlstate) before
// lookup. Native ranges are few per vendor (kMaxNativeRanges) and searched in a linear pass,
// narrowest first: no allocation, no lock.
//
// Immutable after construction; safe to share between threads. Not copyable (the results' views
// point into it); movable.
class SqlErrorClassifier {
  public:
    // Native ranges of one vendor: the classifier tries them one by one, so their number is
    // bounded (the loader reports a map with more as RB112 limit-exceeded).
    static constexpr std::size_t kMaxNativeRanges = 64;

    // Throws std::invalid_argument when a rule has a malformed key (SQLSTATE not 5 characters of
    // [0-9A-Z], class not 2, a range whose last code is below its first), applies in no phase,
    // repeats the key of an earlier rule of the same vendor, or is a native range that overlaps
    // another range of the same vendor and the same width (neither would be more specific), and
    // when a vendor has more than kMaxNativeRanges ranges. The loader reports the same problems
    // as positioned diagnostics first.
    explicit SqlErrorClassifier(std::span<const SqlErrorRule> rules);

    SqlErrorClassifier(const SqlErrorClassifier&) = delete;
    SqlErrorClassifier& operator=(const SqlErrorClassifier&) = delete;
    SqlErrorClassifier(SqlErrorClassifier&&) noexcept = default;
    SqlErrorClassifier& operator=(SqlErrorClassifier&&) noexcept = default;
    ~SqlErrorClassifier() = default;

    // Classifies one record. Never allocates, never throws; nothing matched is `unknown` with an
    // empty `matched`.
    SqlClassification classify(const SqlErrorRecord& record) const noexcept;

    // Classifies every record of one failure and returns the most specific result: class-01
    // warnings are skipped (docs/categories.md); of the rest the highest `specificity` wins, the
    // earlier record on a tie. When every record is a warning, the first record's result; an empty
    // span is `unknown`.
    SqlClassification classify_most_specific(
        std::span<const SqlErrorRecord> records) const noexcept;

    // Classifies one failed call as the ODBC adapter does (rebound::odbc::classify_failure) and
    // `rebound classify` and `rebound decide` do: every record is looked up in `phase` (its own
    // `phase` is not read); class-01 warnings are skipped, and of the rest the most specific rule
    // wins (the earlier record on a tie). Then the phase rules (docs/categories.md):
    // 1. `session_dead` (the driver reports the session gone): a failure no rule recognised is
    //    `connection_lost` (`connection_dead`): a session that is gone must be replaced whatever
    //    the code.
    // 2. During a commit, a category whose restart scope is `connection` (connection_lost,
    //    admin_shutdown, ... : the session ended) becomes `commit_outcome_unknown`
    //    (`commit_connection_loss`): the server may have committed before the session went.
    // No record, or only warnings: `unknown` unless a rule applies. Never allocates or throws.
    SqlFailureClassification classify_failure(std::span<const SqlErrorRecord> records,
                                              DatabasePhase phase,
                                              bool session_dead = false) const noexcept;

    // Number of rules of one vendor's map (`Generic`: the ISO/ODBC map).
    std::size_t rule_count(Vendor vendor) const noexcept;

  private:
    static constexpr std::uint8_t kNoCategory = 0xFF;
    static constexpr std::size_t kKeyKindCount = 4;

    // One compiled rule. SQLSTATEs and classes are encoded as integers (base 36) so every table
    // is searched the same way. A native range is `key` to `last`; its group is sorted by width,
    // then by first code.
    struct Entry {
        std::int64_t key = 0;
        std::int64_t last = 0;  // NativeRange: the last code; other kinds: `key`
        std::array<std::uint8_t, kMapPhaseCount> category_by_phase{};  // or kNoCategory
        std::uint8_t specificity = 0;
        std::uint32_t text_offset = 0;  // of the `matched` text in texts_
        std::uint32_t text_length = 0;
    };
    struct Range {
        std::uint32_t first = 0;
        std::uint32_t last = 0;
    };

    SqlClassification lookup(Vendor vendor, SqlRuleKey kind, std::int64_t key,
                             DatabasePhase phase) const noexcept;
    // The narrowest native range of `vendor` that holds `code` and applies in `phase`.
    SqlClassification lookup_range(Vendor vendor, std::int64_t code,
                                   DatabasePhase phase) const noexcept;
    SqlClassification make_result(const Entry& entry, DatabasePhase phase) const noexcept;

    // The most specific non-warning record of `records` (each looked up in `phase` when given,
    // else in its own) and its classification; nullopt when there is none.
    std::optional<std::pair<std::size_t, SqlClassification>> most_specific(
        std::span<const SqlErrorRecord> records, std::optional<DatabasePhase> phase) const noexcept;

    std::vector<Entry> entries_;  // grouped by vendor and key kind, each group sorted by key
    std::vector<char> texts_;     // the `matched` texts of every entry, back to back
    std::array<std::array<Range, kKeyKindCount>, kVendorTable.size()> ranges_{};
};

}  // namespace rebound

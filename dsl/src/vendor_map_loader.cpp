// Reads vendor map files (docs/vendor-maps.md) with yaml-cpp into SqlErrorRules, reporting every
// problem with its position, then compiles them into one SqlErrorClassifier.
//
// yaml-cpp keeps duplicate keys silently and its marks are 0-based: every mapping is walked by
// yaml::walk_mapping (as in policy files), and positions get 1 added.
#include "rebound/dsl/vendor_map_loader.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <iterator>
#include <limits>
#include <map>
#include <span>
#include <system_error>
#include <tuple>
#include <utility>

#include "rebound/dsl/input_limits.hpp"
#include "rebound/dsl/syntax.hpp"
#include "rebound/dsl/text_toolkit/suggestions.hpp"
#include "rebound/error_category.hpp"

#include "diagnostic_sink.hpp"
#include "limits_check.hpp"
#include "yaml/input_guard.hpp"
#include "yaml/mapping.hpp"
#include "yaml/nodes.hpp"

namespace rebound::dsl {
namespace {

constexpr std::string_view kVersionKey = "rebound_vendor_map";
constexpr std::int64_t kSupportedVersion = 1;
constexpr std::string_view kTopLevelKeys[] = {kVersionKey, "vendor", "description", "sources",
                                              "rules"};
constexpr std::string_view kRuleKeys[] = {"native",   "native_range", "sqlstate", "sqlstate_class",
                                          "category", "connect",      "execute",  "commit",
                                          "name",     "note",         "source"};
constexpr std::string_view kRuleKindKeys[] = {"native", "native_range", "sqlstate",
                                              "sqlstate_class"};
// What a vendor map file is called in the messages of the input limits.
constexpr std::string_view kWhat = "a vendor map";

using yaml::position_of;

bool is_sqlstate_text(std::string_view text, std::size_t length) noexcept {
    return text.size() == length && std::all_of(text.begin(), text.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z');
           });
}

// How messages name the key of a rule: 1213, [12150, 12999], '40001'.
std::string key_text(SqlRuleKey key, std::int64_t first, std::int64_t last,
                     const std::string& sqlstate) {
    switch (key) {
        case SqlRuleKey::NativeCode:
            return std::to_string(first);
        case SqlRuleKey::NativeRange:
            return "[" + std::to_string(first) + ", " + std::to_string(last) + "]";
        case SqlRuleKey::SqlState:
        case SqlRuleKey::SqlStateClass:
            break;
    }
    return "'" + sqlstate + "'";
}

// One rule read from a file, with the text its SqlErrorRule's view points into.
struct ReadRule {
    SqlErrorRule rule;
    std::string sqlstate;
    SourcePosition position;
    SourcePosition key_position;  // of the rule's key (`native`, `native_range`, ...)
    std::string path;             // "rules[3]"
};

struct ReadFile {
    std::optional<Vendor> vendor;
    SourcePosition vendor_position;
    std::vector<ReadRule> rules;
};

// One entry of a mapping whose key was a unique scalar.
struct Entry {
    std::string key;
    SourcePosition key_position;
    YAML::Node value;
};

class VendorMapReader {
  public:
    VendorMapReader(std::string file, Diagnostics& diagnostics)
        : file_(std::move(file)), diagnostics_(diagnostics) {}

    ReadFile read(const YAML::Node& root);

  private:
    void read_sources(const Entry& entry);
    // Reports more than SqlErrorClassifier::kMaxNativeRanges ranges, and equally wide ranges
    // that overlap (the later one, with the earlier one's position).
    void check_native_ranges(ReadFile& file);
    void read_rules(const Entry& entry, ReadFile& result);
    std::optional<ReadRule> read_rule(const YAML::Node& node, const std::string& path);
    bool read_rule_key(const Entry& entry, const std::string& path, ReadRule& rule);
    std::optional<std::int64_t> read_native_code(const YAML::Node& node, SourcePosition position,
                                                 const std::string& path);
    // `[first, last]`: both native codes, first <= last.
    std::optional<std::pair<std::int64_t, std::int64_t>> read_native_range(const YAML::Node& node,
                                                                           SourcePosition position,
                                                                           const std::string& path);
    std::optional<ErrorCategory> read_category(const Entry& entry, const std::string& path);
    void check_sources(const Entry& entry, const std::string& path);
    std::optional<std::string> scalar_text(const YAML::Node& node, SourcePosition position,
                                           const std::string& path, std::string_view expected);

    // Every entry with a scalar, unique key; with `allowed`, only known keys (the others reported).
    std::vector<Entry> entries(const YAML::Node& map, const std::string& path,
                               std::span<const std::string_view> allowed, std::string_view where);

    void report(DiagnosticCode code, SourcePosition position, std::string field,
                std::string message, std::string suggestion = {});

    std::string file_;
    Diagnostics& diagnostics_;
    std::optional<Vendor> vendor_;
    std::map<std::string, SourcePosition, std::less<>> sources_;
    bool sources_read_ = false;
    std::vector<std::pair<std::string, SourcePosition>> pending_source_references_;
    std::map<std::tuple<SqlRuleKey, std::int64_t, std::int64_t, std::string>, SourcePosition>
        rule_keys_;
};

void VendorMapReader::report(DiagnosticCode code, SourcePosition position, std::string field,
                             std::string message, std::string suggestion) {
    detail::add_error(diagnostics_, file_, code, position, std::move(field), std::move(message),
                      std::move(suggestion));
}

std::vector<Entry> VendorMapReader::entries(const YAML::Node& map, const std::string& path,
                                            std::span<const std::string_view> allowed,
                                            std::string_view where) {
    std::vector<Entry> result;
    std::optional<std::span<const std::string_view>> known;
    if (!allowed.empty()) {
        known = allowed;
    }
    yaml::walk_mapping(
        yaml::MappingWalk{map, position_of(map.Mark()), path, where, "key", known},
        [this](DiagnosticCode code, SourcePosition position, std::string field, std::string message,
               std::string suggestion) {
            report(code, position, std::move(field), std::move(message), std::move(suggestion));
        },
        [&result](const yaml::MappingEntry& entry) {
            result.push_back(Entry{entry.key.Scalar(), entry.key_position, entry.value});
        });
    return result;
}

std::optional<std::string> VendorMapReader::scalar_text(const YAML::Node& node,
                                                        SourcePosition position,
                                                        const std::string& path,
                                                        std::string_view expected) {
    if (!node.IsScalar()) {
        report(DiagnosticCode::WrongType, position, path,
               "'" + path + "' must be " + std::string(expected));
        return std::nullopt;
    }
    return node.Scalar();
}

ReadFile VendorMapReader::read(const YAML::Node& root) {
    ReadFile result;
    if (!root.IsMap()) {
        report(DiagnosticCode::WrongType, position_of(root.Mark()), "",
               "a vendor map must be a mapping with the keys rebound_vendor_map, vendor, sources "
               "and rules");
        return result;
    }
    const std::vector<Entry> top = entries(root, "", kTopLevelKeys, "at the top level");
    const auto find = [&](std::string_view key) -> const Entry* {
        for (const Entry& entry : top) {
            if (entry.key == key) {
                return &entry;
            }
        }
        return nullptr;
    };
    for (const std::string_view required :
         {kVersionKey, std::string_view("vendor"), std::string_view("sources"),
          std::string_view("rules")}) {
        if (find(required) == nullptr) {
            report(DiagnosticCode::MissingField, position_of(root.Mark()), std::string(required),
                   "the vendor map has no '" + std::string(required) + "'");
        }
    }
    if (const Entry* version = find(kVersionKey)) {
        const auto text = scalar_text(version->value, position_of(version->value.Mark()),
                                      version->key, "the format version 1");
        if (text && *text != std::to_string(kSupportedVersion)) {
            report(DiagnosticCode::UnsupportedVersion, position_of(version->value.Mark()),
                   version->key, "unsupported vendor map version '" + *text + "': expected 1");
        }
    }
    if (const Entry* vendor = find("vendor")) {
        const SourcePosition position = position_of(vendor->value.Mark());
        if (const auto text = scalar_text(vendor->value, position, "vendor", "a vendor name")) {
            vendor_ = parse_vendor(*text);
            if (!vendor_) {
                report(DiagnosticCode::UnknownValue, position, "vendor",
                       "unknown vendor '" + *text + "'", suggestion_for(*text, vendor_words()));
            }
        }
        result.vendor = vendor_;
        result.vendor_position = position;
    }
    if (const Entry* description = find("description")) {
        (void)scalar_text(description->value, position_of(description->value.Mark()), "description",
                          "text");
    }
    if (const Entry* sources = find("sources")) {
        read_sources(*sources);
    }
    if (const Entry* rules = find("rules")) {
        read_rules(*rules, result);
    }
    check_native_ranges(result);
    return result;
}

void VendorMapReader::check_native_ranges(ReadFile& file) {
    std::vector<const ReadRule*> ranges;
    for (const ReadRule& read : file.rules) {
        if (read.rule.key == SqlRuleKey::NativeRange) {
            ranges.push_back(&read);
        }
    }
    if (ranges.size() > SqlErrorClassifier::kMaxNativeRanges) {
        const ReadRule& beyond = *ranges[SqlErrorClassifier::kMaxNativeRanges];
        report(DiagnosticCode::LimitExceeded, beyond.key_position, beyond.path + ".native_range",
               "more than " + std::to_string(SqlErrorClassifier::kMaxNativeRanges) +
                   " native ranges in one map: this one is past the limit",
               "list the codes of a small family one by one, or join neighbouring ranges");
        return;
    }
    const auto width = [](const ReadRule* read) {
        // Modular subtraction: exact for any last >= first.
        return static_cast<std::uint64_t>(read->rule.native_last) -
               static_cast<std::uint64_t>(read->rule.native_code);
    };
    std::stable_sort(ranges.begin(), ranges.end(), [&](const ReadRule* a, const ReadRule* b) {
        return std::make_pair(width(a), a->rule.native_code) <
               std::make_pair(width(b), b->rule.native_code);
    });
    // Equally wide ranges that overlap: neither is more specific, so the map is refused. Sorted
    // by width and then first code, only neighbours can overlap.
    for (std::size_t i = 1; i < ranges.size(); ++i) {
        const ReadRule& a = *ranges[i - 1];
        const ReadRule& b = *ranges[i];
        if (width(&a) != width(&b) || b.rule.native_code > a.rule.native_last) {
            continue;
        }
        const ReadRule& later = a.position.line > b.position.line ? a : b;
        const ReadRule& earlier = &later == &a ? b : a;
        report(DiagnosticCode::ConflictingFields, later.key_position, later.path + ".native_range",
               "native range " +
                   key_text(SqlRuleKey::NativeRange, later.rule.native_code, later.rule.native_last,
                            "") +
                   " overlaps native range " +
                   key_text(SqlRuleKey::NativeRange, earlier.rule.native_code,
                            earlier.rule.native_last, "") +
                   " (line " + std::to_string(earlier.key_position.line) + ", column " +
                   std::to_string(earlier.key_position.column) +
                   ") and is as wide: neither is more specific, so neither can win",
               "give the codes they share a rule of their own, or make one range narrower");
    }
}

void VendorMapReader::read_sources(const Entry& entry) {
    sources_read_ = true;
    if (!entry.value.IsMap()) {
        report(DiagnosticCode::WrongType, position_of(entry.value.Mark()), "sources",
               "'sources' must be a mapping from a short name to the reference it stands for");
        return;
    }
    for (const Entry& source : entries(entry.value, "sources", {}, "in 'sources'")) {
        const std::string path = "sources." + source.key;
        if (scalar_text(source.value, position_of(source.value.Mark()), path,
                        "the text of a reference (title and address)")) {
            sources_.emplace(source.key, source.key_position);
        }
    }
}

void VendorMapReader::read_rules(const Entry& entry, ReadFile& result) {
    if (!entry.value.IsSequence()) {
        report(DiagnosticCode::WrongType, position_of(entry.value.Mark()), "rules",
               "'rules' must be a list of rules such as { native: 1213, category: deadlock, "
               "source: vendor-docs }");
        return;
    }
    std::size_t index = 0;
    for (auto it = entry.value.begin(); it != entry.value.end(); ++it, ++index) {
        const std::string path = "rules[" + std::to_string(index) + "]";
        if (auto rule = read_rule(*it, path)) {
            result.rules.push_back(std::move(*rule));
        }
    }
}

std::optional<ReadRule> VendorMapReader::read_rule(const YAML::Node& node,
                                                   const std::string& path) {
    const SourcePosition position = position_of(node.Mark());
    if (!node.IsMap()) {
        report(DiagnosticCode::WrongType, position, path,
               "a rule must be a mapping such as { sqlstate: \"40001\", category: "
               "serialization_failure, source: vendor-docs }");
        return std::nullopt;
    }
    const std::size_t errors_before = diagnostics_.size();
    ReadRule rule;
    rule.position = position;
    rule.path = path;
    rule.rule.vendor = vendor_.value_or(Vendor::Generic);
    const Entry* kind = nullptr;
    const Entry* source = nullptr;
    bool has_category = false;
    const std::vector<Entry> fields = entries(node, path, kRuleKeys, "in a rule");
    // A misspelt key is reported once, with its suggestion, not again as a missing field.
    const bool keys_reported = diagnostics_.size() != errors_before;
    for (const Entry& field : fields) {
        const std::string field_path = path + "." + field.key;
        if (std::find(std::begin(kRuleKindKeys), std::end(kRuleKindKeys), field.key) !=
            std::end(kRuleKindKeys)) {
            if (kind != nullptr) {
                report(DiagnosticCode::ConflictingFields, field.key_position, field_path,
                       "a rule keys on one of native, native_range, sqlstate or sqlstate_class; "
                       "this one already has '" +
                           kind->key + "'");
                continue;
            }
            kind = &field;
            rule.key_position = field.key_position;
            read_rule_key(field, field_path, rule);
        } else if (field.key == "category") {
            if (const auto category = read_category(field, field_path)) {
                rule.rule.set_category(*category);
            }
            has_category = true;
        } else if (field.key == "source") {
            source = &field;
        } else if (field.key == "name" || field.key == "note") {
            (void)scalar_text(field.value, position_of(field.value.Mark()), field_path, "text");
        }
    }
    // Phase entries override `category` in their phase, whatever their order in the file.
    for (const Entry& field : fields) {
        if (const auto phase = parse_database_phase(field.key)) {
            if (const auto category = read_category(field, path + "." + field.key)) {
                rule.rule.set_category(*phase, *category);
            }
            has_category = true;
        }
    }
    if (!keys_reported && kind == nullptr) {
        report(DiagnosticCode::MissingField, position, path,
               "the rule has no key: give one of native, native_range, sqlstate or "
               "sqlstate_class");
    }
    if (!keys_reported && !has_category) {
        report(DiagnosticCode::MissingField, position, path + ".category",
               "the rule has no category: give 'category' or a phase (connect, execute, commit)");
    }
    if (!keys_reported && source == nullptr) {
        report(DiagnosticCode::MissingField, position, path + ".source",
               "the rule names no source: give 'source' with the name of an entry of 'sources'");
    } else if (source != nullptr) {
        check_sources(*source, path + ".source");
    }
    if (diagnostics_.size() != errors_before) {
        return std::nullopt;
    }
    const auto duplicate_key =
        std::make_tuple(rule.rule.key, rule.rule.native_code, rule.rule.native_last, rule.sqlstate);
    if (const auto first = rule_keys_.find(duplicate_key); first != rule_keys_.end()) {
        report(DiagnosticCode::DuplicateKey, kind->key_position, path,
               "a rule for " + kind->key + " " +
                   key_text(rule.rule.key, rule.rule.native_code, rule.rule.native_last,
                            rule.sqlstate) +
                   " is given twice (first at line " + std::to_string(first->second.line) +
                   ", column " + std::to_string(first->second.column) +
                   "); put every phase of one key into one rule");
        return std::nullopt;
    }
    rule_keys_.emplace(duplicate_key, kind->key_position);
    return rule;
}

bool VendorMapReader::read_rule_key(const Entry& entry, const std::string& path, ReadRule& rule) {
    const SourcePosition position = position_of(entry.value.Mark());
    if (entry.key == "native" || entry.key == "native_range") {
        const bool is_range = entry.key == "native_range";
        rule.rule.key = is_range ? SqlRuleKey::NativeRange : SqlRuleKey::NativeCode;
        std::optional<std::pair<std::int64_t, std::int64_t>> codes;
        if (is_range) {
            codes = read_native_range(entry.value, position, path);
        } else if (const auto code = read_native_code(entry.value, position, path)) {
            codes = std::make_pair(*code, *code);
        }
        if (!codes) {
            return false;
        }
        if (vendor_ == Vendor::Generic) {
            report(DiagnosticCode::InvalidValue, position, path,
                   "the generic map has no native codes: native codes belong to a vendor's map");
            return false;
        }
        rule.rule.native_code = codes->first;
        rule.rule.native_last = codes->second;
        return true;
    }
    const bool is_class = entry.key == "sqlstate_class";
    rule.rule.key = is_class ? SqlRuleKey::SqlStateClass : SqlRuleKey::SqlState;
    const std::size_t length = is_class ? 2 : 5;
    const auto text =
        scalar_text(entry.value, position, path,
                    is_class ? "a SQLSTATE class such as \"08\"" : "a SQLSTATE such as \"40001\"");
    if (!text) {
        return false;
    }
    if (!is_sqlstate_text(*text, length)) {
        report(DiagnosticCode::InvalidValue, position, path,
               std::string(is_class ? "SQLSTATE class '" : "SQLSTATE '") + *text + "' is not " +
                   std::to_string(length) + " characters of 0-9 and A-Z",
               is_class ? "a class is the first two characters of a SQLSTATE, such as \"08\""
                        : "a SQLSTATE is five characters, such as \"40001\" or \"HYT00\"");
        return false;
    }
    if (!is_class && normalize_sqlstate(*text).view() != *text) {
        report(DiagnosticCode::InvalidValue, position, path,
               "'" + *text +
                   "' is an ODBC 2 SQLSTATE; records are normalised to ODBC 3 before "
                   "lookup, so this rule would never match",
               "write '" + std::string(normalize_sqlstate(*text).view()) + "'");
        return false;
    }
    rule.sqlstate = *text;
    return true;
}

std::optional<std::int64_t> VendorMapReader::read_native_code(const YAML::Node& node,
                                                              SourcePosition position,
                                                              const std::string& path) {
    const auto text = scalar_text(node, position, path, "an integer native error code");
    if (!text) {
        return std::nullopt;
    }
    std::int64_t value = 0;
    const char* end = text->data() + text->size();
    const auto parsed =
        std::from_chars(text->data() + (text->starts_with('+') ? 1 : 0), end, value);
    if (parsed.ec == std::errc::result_out_of_range && parsed.ptr == end) {
        report(DiagnosticCode::OutOfRange, position, path,
               "native code '" + *text + "' is out of range: native codes are 64-bit integers (" +
                   std::to_string(std::numeric_limits<std::int64_t>::min()) + " to " +
                   std::to_string(std::numeric_limits<std::int64_t>::max()) + ")");
        return std::nullopt;
    }
    if (text->empty() || parsed.ec != std::errc{} || parsed.ptr != end) {
        report(DiagnosticCode::WrongType, position, path,
               "native code '" + *text + "' is not an integer such as 1213 or -911");
        return std::nullopt;
    }
    return value;
}

std::optional<std::pair<std::int64_t, std::int64_t>> VendorMapReader::read_native_range(
    const YAML::Node& node, SourcePosition position, const std::string& path) {
    if (!node.IsSequence() || node.size() != 2) {
        report(DiagnosticCode::WrongType, position, path,
               "'" + path +
                   "' must be a list of the first and the last native code of a family, "
                   "such as [12150, 12999]");
        return std::nullopt;
    }
    const auto first = read_native_code(node[0], position_of(node[0].Mark()), path + "[0]");
    const auto last = read_native_code(node[1], position_of(node[1].Mark()), path + "[1]");
    if (!first || !last) {
        return std::nullopt;
    }
    if (*last < *first) {
        report(DiagnosticCode::InvalidValue, position, path,
               "native range [" + std::to_string(*first) + ", " + std::to_string(*last) +
                   "] ends below its first code",
               "write the lower code first: [" + std::to_string(*last) + ", " +
                   std::to_string(*first) + "]");
        return std::nullopt;
    }
    return std::make_pair(*first, *last);
}

std::optional<ErrorCategory> VendorMapReader::read_category(const Entry& entry,
                                                            const std::string& path) {
    const SourcePosition position = position_of(entry.value.Mark());
    const auto text = scalar_text(entry.value, position, path, "a category such as deadlock");
    if (!text) {
        return std::nullopt;
    }
    const auto category = parse_category(*text);
    if (!category) {
        // A vendor map names one category: `transient` is a group, not a category.
        report(DiagnosticCode::UnknownValue, position, path, "unknown category '" + *text + "'",
               suggestion_for(*text, category_names()));
    }
    return category;
}

void VendorMapReader::check_sources(const Entry& entry, const std::string& path) {
    std::vector<std::pair<std::string, SourcePosition>> names;
    if (entry.value.IsSequence() && entry.value.size() > 0) {
        for (auto it = entry.value.begin(); it != entry.value.end(); ++it) {
            if (const auto text =
                    scalar_text(*it, position_of(it->Mark()), path, "a source name")) {
                names.emplace_back(*text, position_of(it->Mark()));
            }
        }
    } else if (const auto text = scalar_text(entry.value, position_of(entry.value.Mark()), path,
                                             "a source name or a list of them")) {
        names.emplace_back(*text, position_of(entry.value.Mark()));
    }
    if (!sources_read_) {
        return;  // 'sources' missing or not yet read: reported once at the top level
    }
    std::vector<std::string_view> known;
    for (const auto& [name, position] : sources_) {
        known.push_back(name);
    }
    for (const auto& [name, position] : names) {
        if (!sources_.contains(name)) {
            report(DiagnosticCode::UnknownValue, position, path,
                   "source '" + name + "' is not an entry of 'sources'",
                   suggestion_for(name, known));
        }
    }
}

std::string syntax_message(const YAML::ParserException& error) {
    return "the vendor map is not valid YAML: " + error.msg;
}

// Reads one file's text into `rules`; every problem goes to `diagnostics`. The file is read under
// the limits of policy files (input_limits.hpp): too large a text is not parsed, and a document
// with too many values or with a tag is not read further.
ReadFile read_source(const VendorMapSource& source, Diagnostics& diagnostics) {
    if (std::optional<Diagnostic> too_large =
            check_input_size(source.file, source.text.size(), kWhat)) {
        diagnostics.push_back(std::move(*too_large));
        return {};
    }
    YAML::Node root;
    try {
        root = YAML::Load(source.text);
    } catch (const YAML::ParserException& error) {
        Diagnostic diagnostic;
        diagnostic.code = DiagnosticCode::SyntaxError;
        diagnostic.message = syntax_message(error);
        diagnostic.file = source.file;
        diagnostic.position = position_of(error.mark);
        diagnostics.push_back(std::move(diagnostic));
        return {};
    }
    if (Diagnostics screened = yaml::screen_document(root, source.file); !screened.empty()) {
        diagnostics.insert(diagnostics.end(), std::make_move_iterator(screened.begin()),
                           std::make_move_iterator(screened.end()));
        return {};
    }
    Diagnostics found;
    VendorMapReader reader(source.file, found);
    ReadFile file = reader.read(root);
    detail::cap_diagnostics(found, source.file);
    diagnostics.insert(diagnostics.end(), std::make_move_iterator(found.begin()),
                       std::make_move_iterator(found.end()));
    return file;
}

}  // namespace

VendorMapLoadResult load_vendor_map_sources(const std::vector<VendorMapSource>& sources) {
    VendorMapLoadResult result;
    std::vector<ReadFile> files;
    std::map<Vendor, std::pair<std::string, SourcePosition>> vendor_files;
    for (const VendorMapSource& source : sources) {
        ReadFile file = read_source(source, result.diagnostics);
        if (file.vendor) {
            const auto [first, inserted] = vendor_files.emplace(
                *file.vendor, std::make_pair(source.file, file.vendor_position));
            if (!inserted) {
                Diagnostic diagnostic;
                diagnostic.code = DiagnosticCode::DuplicateKey;
                diagnostic.message = "a second map for vendor '" +
                                     std::string(to_string(*file.vendor)) + "' (the first is " +
                                     first->second.first + "); give each vendor one file";
                diagnostic.file = source.file;
                diagnostic.position = file.vendor_position;
                diagnostic.field = "vendor";
                result.diagnostics.push_back(std::move(diagnostic));
            }
        }
        result.files.push_back(
            VendorMapFileSummary{source.file, source.text, file.vendor, file.rules.size()});
        files.push_back(std::move(file));
    }
    if (has_errors(result.diagnostics)) {
        return result;
    }
    std::vector<SqlErrorRule> rules;
    for (ReadFile& file : files) {
        for (ReadRule& read : file.rules) {
            read.rule.sqlstate = read.sqlstate;
            rules.push_back(read.rule);
        }
    }
    result.classifier = std::make_shared<const SqlErrorClassifier>(rules);
    return result;
}

}  // namespace rebound::dsl

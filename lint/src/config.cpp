#include "rebound/lint/config.hpp"

#include <yaml-cpp/yaml.h>

#include <array>
#include <charconv>
#include <fstream>
#include <map>
#include <span>
#include <sstream>
#include <system_error>

#include "make_finding.hpp"
#include "rebound/dsl/input_limits.hpp"
#include "rebound/dsl/syntax.hpp"
#include "rebound/dsl/text_toolkit/suggestions.hpp"

namespace rebound::lint {
namespace {

constexpr std::array<std::string_view, 4> kLevels{"off", "error", "warning", "note"};

// One threshold of RuleThresholds: the rule whose section (named after the rule) holds it, its
// key, the member it sets (exactly one of the three) and its allowed range.
struct ThresholdField {
    std::string_view section;
    std::string_view key;
    Duration RuleThresholds::*duration = nullptr;
    int RuleThresholds::*count = nullptr;
    double RuleThresholds::*ratio = nullptr;
    double low = 0;   // durations in microseconds
    double high = 0;  // inclusive
};

constexpr double kMicrosecondsPerHour = 3600e6;

constexpr std::array<ThresholdField, 5> kThresholdFields{{
    {"delay-too-short", "min_delay", &RuleThresholds::min_delay, nullptr, nullptr, 1,
     kMicrosecondsPerHour},
    {"unthrottled-retries", "max_attempts", nullptr, &RuleThresholds::max_attempts, nullptr, 1,
     1000},
    {"unthrottled-retries", "window", &RuleThresholds::window, nullptr, nullptr, 1000,
     kMicrosecondsPerHour},
    {"loose-retry-budget", "max_token_ratio", nullptr, nullptr, &RuleThresholds::max_token_ratio,
     0.001, 1000},
    {"retry-amplification", "max", nullptr, &RuleThresholds::max_amplification, nullptr, 1, 1e9},
}};

constexpr std::array<std::string_view, 7> kKeys{"rules",
                                                "predicates",
                                                "handlers",
                                                "delay-too-short",
                                                "unthrottled-retries",
                                                "loose-retry-budget",
                                                "retry-amplification"};

bool is_threshold_section(std::string_view key) {
    for (const ThresholdField& field : kThresholdFields) {
        if (field.section == key) {
            return true;
        }
    }
    return false;
}

SourcePosition position_of(const YAML::Node& node) {
    const YAML::Mark mark = node.Mark();
    if (mark.line < 0 || mark.column < 0) {
        return {};
    }
    // yaml-cpp marks are 0-based.
    return SourcePosition{static_cast<std::uint32_t>(mark.line + 1),
                          static_cast<std::uint32_t>(mark.column + 1)};
}

std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates) {
    if (std::string close = dsl::did_you_mean(word, candidates); !close.empty()) {
        return close;
    }
    std::string expected = "expected one of";
    for (const std::string_view candidate : candidates) {
        expected += " " + std::string(candidate);
    }
    return expected;
}

class ConfigReader {
  public:
    ConfigReader(std::string file, const RuleRegistry& registry, ConfigResult& out)
        : file_(std::move(file)), registry_(registry), out_(out) {}

    void read(const YAML::Node& root) {
        if (!root || root.IsNull()) {
            return;  // an empty configuration is valid
        }
        if (!root.IsMap()) {
            report("RB004", root,
                   "the lint configuration is a mapping with 'rules', 'predicates' and "
                   "rule thresholds, got " +
                       kind(root));
            return;
        }
        std::map<std::string, SourcePosition> seen;
        for (const auto& entry : root) {
            const std::string key = entry.first.as<std::string>("");
            if (!first_time(seen, key, entry.first)) {
                continue;
            }
            if (key == "rules") {
                read_rules(entry.second);
            } else if (key == "predicates") {
                out_.settings.predicates = read_names(entry.second, "predicates", "retry_if names");
            } else if (key == "handlers") {
                out_.settings.handlers =
                    read_names(entry.second, "handlers", "handler names registered in code");
            } else if (is_threshold_section(key)) {
                read_thresholds(key, entry.second);
            } else {
                report("RB002", entry.first, "unknown key '" + key + "' in the lint configuration",
                       did_you_mean(key, kKeys));
            }
        }
    }

  private:
    static std::string kind(const YAML::Node& node) {
        switch (node.Type()) {
            case YAML::NodeType::Sequence:
                return "a list";
            case YAML::NodeType::Map:
                return "a mapping";
            case YAML::NodeType::Scalar:
                return "'" + node.Scalar() + "'";
            default:
                return "nothing";
        }
    }

    void report(std::string_view code, const YAML::Node& node, std::string message,
                std::string suggestion = {}) {
        out_.findings.push_back(make_finding(registry_, code, file_, position_of(node),
                                             std::move(message), std::move(suggestion)));
    }

    bool first_time(std::map<std::string, SourcePosition>& seen, const std::string& key,
                    const YAML::Node& node) {
        const auto [it, inserted] = seen.emplace(key, position_of(node));
        if (!inserted) {
            report("RB003", node,
                   "duplicate key '" + key + "' (first given at line " +
                       std::to_string(it->second.line) + ")");
        }
        return inserted;
    }

    void read_rules(const YAML::Node& rules) {
        if (rules.IsNull()) {
            return;
        }
        if (!rules.IsMap()) {
            report("RB004", rules,
                   "'rules' maps rule codes or names to off, error, warning or "
                   "note, got " +
                       kind(rules));
            return;
        }
        std::map<std::string, SourcePosition> seen;
        for (const auto& entry : rules) {
            const std::string name = entry.first.as<std::string>("");
            const Rule* rule = registry_.find(name);
            if (!rule) {
                report(rule_code::kUnknownRule, entry.first,
                       "unknown rule '" + name + "' in the lint configuration",
                       registry_.suggest(name));
                continue;
            }
            if (!first_time(seen, std::string(rule->info.code), entry.first)) {
                continue;
            }
            const std::string level = entry.second.IsScalar() ? entry.second.Scalar() : "";
            if (rule->info.origin == RuleOrigin::Compiler) {
                report("RB110", entry.first,
                       std::string(rule->info.code) + " " + std::string(rule->info.name) +
                           " is a compiler error and cannot be changed: a file with it does not "
                           "load");
                continue;
            }
            std::optional<Severity> severity;
            if (level == "error") {
                severity = Severity::Error;
            } else if (level == "warning") {
                severity = Severity::Warning;
            } else if (level == "note") {
                severity = Severity::Note;
            } else if (level != "off") {
                report("RB008", entry.second,
                       "unknown level '" + (level.empty() ? kind(entry.second) : level) +
                           "' for rule " + std::string(rule->info.code),
                       did_you_mean(level, kLevels));
                continue;
            }
            out_.settings.severities[std::string(rule->info.code)] = severity;
        }
    }

    // `predicates: [a, b]` and `handlers: [a, b]`: a list of names; nullopt when it is not one.
    std::optional<std::vector<std::string>> read_names(const YAML::Node& list, std::string_view key,
                                                       std::string_view what) {
        if (!list.IsNull() && !list.IsSequence()) {
            report("RB004", list,
                   "'" + std::string(key) + "' is a list of " + std::string(what) + ", got " +
                       kind(list));
            return std::nullopt;
        }
        std::vector<std::string> names;
        for (const auto& item : list) {
            if (!item.IsScalar()) {
                report("RB004", item,
                       "an entry of '" + std::string(key) + "' is a name, got " + kind(item));
                continue;
            }
            names.push_back(item.Scalar());
        }
        return names;
    }

    // `delay-too-short: { min_delay: 10ms }` and the like: the thresholds of one rule.
    void read_thresholds(const std::string& section, const YAML::Node& values) {
        if (values.IsNull()) {
            return;
        }
        std::vector<std::string_view> keys;
        for (const ThresholdField& field : kThresholdFields) {
            if (field.section == section) {
                keys.push_back(field.key);
            }
        }
        if (!values.IsMap()) {
            report("RB004", values,
                   "'" + section + "' maps threshold names to values, got " + kind(values),
                   "expected a mapping such as { " + std::string(keys.front()) + ": ... }");
            return;
        }
        std::map<std::string, SourcePosition> seen;
        for (const auto& entry : values) {
            const std::string key = entry.first.as<std::string>("");
            if (!first_time(seen, key, entry.first)) {
                continue;
            }
            const ThresholdField* field = nullptr;
            for (const ThresholdField& candidate : kThresholdFields) {
                if (candidate.section == section && candidate.key == key) {
                    field = &candidate;
                }
            }
            if (!field) {
                report("RB002", entry.first, "unknown key '" + key + "' in '" + section + "'",
                       did_you_mean(key, keys));
                continue;
            }
            read_threshold(*field, entry.second);
        }
    }

    void read_threshold(const ThresholdField& field, const YAML::Node& value) {
        const std::string name = std::string(field.section) + "." + std::string(field.key);
        if (!value.IsScalar()) {
            report("RB004", value, "'" + name + "' is a single value, got " + kind(value));
            return;
        }
        const std::string& text = value.Scalar();
        double number = 0;
        if (field.duration) {
            std::string error;
            const std::optional<Duration> duration = dsl::parse_duration(text, error);
            if (!duration) {
                report("RB007", value, "'" + name + "': " + error);
                return;
            }
            number = static_cast<double>(duration->count());
        } else {
            const char* end = text.data() + text.size();
            std::from_chars_result parsed{};
            if (field.count) {
                int count = 0;
                parsed = std::from_chars(text.data(), end, count);
                number = count;
            } else {
                parsed = std::from_chars(text.data(), end, number);
            }
            if (text.empty() || parsed.ec != std::errc() || parsed.ptr != end) {
                report("RB004", value,
                       "'" + name + "' is " + (field.count ? "a whole number" : "a number") +
                           ", got '" + text + "'");
                return;
            }
        }
        if (number < field.low || number > field.high) {
            const auto bound = [&](double v) {
                return field.duration ? duration_words(Duration{static_cast<std::int64_t>(v)})
                                      : number_words(v);
            };
            report("RB101", value,
                   "'" + name + "' is " + text + ", outside " + bound(field.low) + ".." +
                       bound(field.high));
            return;
        }
        RuleThresholds& thresholds = out_.settings.thresholds;
        if (field.duration) {
            thresholds.*field.duration = Duration{static_cast<std::int64_t>(number)};
        } else if (field.count) {
            thresholds.*field.count = static_cast<int>(number);
        } else {
            thresholds.*field.ratio = number;
        }
    }

    static std::string duration_words(Duration d) {
        if (d.count() % 3'600'000'000 == 0) {
            return std::to_string(d.count() / 3'600'000'000) + "h";
        }
        if (d.count() % 1000 == 0) {
            return std::to_string(d.count() / 1000) + "ms";
        }
        return std::to_string(d.count()) + "us";
    }

    static std::string number_words(double v) {
        std::string text = std::to_string(v);
        text.erase(text.find_last_not_of('0') + 1);
        if (text.back() == '.') {
            text.pop_back();
        }
        return text;
    }

    std::string file_;
    const RuleRegistry& registry_;
    ConfigResult& out_;
};

// What the configuration file is called in the messages of the input limits.
constexpr std::string_view kWhat = "the lint configuration";

// The findings of the limits every YAML file is read under (dsl::check_yaml_input).
void add_limit_findings(const dsl::Diagnostics& problems, const RuleRegistry& registry,
                        Findings& findings) {
    for (const dsl::Diagnostic& problem : problems) {
        findings.push_back(make_finding(registry, dsl::code_id(problem.code), problem.file,
                                        problem.position, problem.message, problem.suggestion));
    }
}

}  // namespace

std::optional<Severity> LintSettings::severity_of(const RuleInfo& rule) const {
    if (rule.origin != RuleOrigin::Compiler) {
        if (const auto it = severities.find(rule.code); it != severities.end()) {
            return it->second;
        }
    }
    return rule.default_severity;
}

ConfigResult load_config_text(std::string_view text, std::string_view file,
                              const RuleRegistry& registry) {
    ConfigResult result;
    // Too large, too many values (aliases counted each time they are used) or a tag: the file is
    // not read, as a policy file or a vendor map is not.
    if (const dsl::Diagnostics problems = dsl::check_yaml_input(text, file, kWhat);
        !problems.empty()) {
        add_limit_findings(problems, registry, result.findings);
        if (text.size() <= dsl::kMaxInputBytes) {
            result.source = std::string(text);
        }
        return result;
    }
    result.source = std::string(text);
    try {
        const YAML::Node root = YAML::Load(result.source);
        ConfigReader(std::string(file), registry, result).read(root);
    } catch (const YAML::Exception& error) {
        const SourcePosition position{static_cast<std::uint32_t>(error.mark.line + 1),
                                      static_cast<std::uint32_t>(error.mark.column + 1)};
        result.findings.push_back(make_finding(registry, "RB001", std::string(file), position,
                                               "not valid YAML: " + error.msg));
    }
    return result;
}

ConfigResult load_config_file(const std::filesystem::path& path, const RuleRegistry& registry) {
    const std::string file = path.generic_string();
    std::error_code size_error;
    const std::uintmax_t size = std::filesystem::file_size(path, size_error);
    if (const std::optional<dsl::Diagnostic> too_large =
            size_error ? std::nullopt : dsl::check_input_size(file, size, kWhat)) {
        ConfigResult result;
        add_limit_findings({*too_large}, registry, result.findings);
        return result;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        ConfigResult result;
        result.findings.push_back(
            make_finding(registry, "RB109", file, {}, "cannot read the lint configuration"));
        return result;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return load_config_text(text.str(), file, registry);
}

std::optional<std::filesystem::path> find_config(const std::filesystem::path& start) {
    std::error_code error;
    std::filesystem::path directory = std::filesystem::absolute(start, error);
    if (error) {
        return std::nullopt;
    }
    while (true) {
        const std::filesystem::path candidate = directory / kConfigFileName;
        if (std::filesystem::is_regular_file(candidate, error)) {
            return candidate;
        }
        if (!directory.has_parent_path() || directory.parent_path() == directory) {
            return std::nullopt;
        }
        directory = directory.parent_path();
    }
}

}  // namespace rebound::lint

#include "suppression.hpp"

#include <algorithm>
#include <array>

#include "make_finding.hpp"
#include "rebound/dsl/text_toolkit/suggestions.hpp"

namespace rebound::lint {
namespace {

constexpr std::string_view kMarker = "rebound:";
constexpr std::string_view kReasonSeparator = "--";
constexpr std::array<std::string_view, 2> kDirectives{"disable-next-line", "disable-file"};

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
        text.remove_suffix(1);
    }
    return text;
}

// Splits "RB301, no-jitter RB302" into its words.
std::vector<std::string_view> words(std::string_view text) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && (text[i] == ' ' || text[i] == ',' || text[i] == '\t')) {
            ++i;
        }
        const std::size_t start = i;
        while (i < text.size() && text[i] != ' ' && text[i] != ',' && text[i] != '\t') {
            ++i;
        }
        if (i > start) {
            out.push_back(text.substr(start, i - start));
        }
    }
    return out;
}

struct Line {
    std::uint32_t number = 0;
    std::string_view text;
    std::size_t comment = std::string_view::npos;  // offset of '#', if any
    bool comment_only = false;
    bool blank = false;
};

std::vector<Line> split_lines(std::string_view source) {
    std::vector<Line> lines;
    std::size_t start = 0;
    std::uint32_t number = 1;
    while (start <= source.size()) {
        const std::size_t end = source.find('\n', start);
        Line line;
        line.number = number++;
        line.text = source.substr(
            start, end == std::string_view::npos ? std::string_view::npos : end - start);
        const std::string_view trimmed = trim(line.text);
        line.blank = trimmed.empty();
        line.comment_only = !trimmed.empty() && trimmed.front() == '#';
        line.comment = line.text.find('#');
        lines.push_back(line);
        if (end == std::string_view::npos) {
            break;
        }
        start = end + 1;
    }
    return lines;
}

class Scanner {
  public:
    Scanner(const std::string& file, const RuleRegistry& registry, SuppressionScan& out)
        : file_(file), registry_(registry), out_(out) {}

    void scan(const std::vector<Line>& lines) {
        bool leading_block = true;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            const Line& line = lines[i];
            if (!line.blank && !line.comment_only) {
                leading_block = false;
            }
            if (line.comment == std::string_view::npos) {
                continue;
            }
            std::string_view body = trim(line.text.substr(line.comment + 1));
            if (!body.starts_with(kMarker)) {
                continue;
            }
            body = trim(body.substr(kMarker.size()));
            const SourcePosition position{line.number,
                                          static_cast<std::uint32_t>(line.comment + 1)};
            read(body, position, leading_block, next_content_line(lines, i));
        }
    }

  private:
    static std::uint32_t next_content_line(const std::vector<Line>& lines, std::size_t i) {
        for (std::size_t j = i + 1; j < lines.size(); ++j) {
            if (!lines[j].comment_only) {
                return lines[j].number;
            }
        }
        return 0;
    }

    void problem(std::string_view code, SourcePosition position, std::string message,
                 std::string suggestion = {}) {
        out_.problems.push_back(make_finding(registry_, code, file_, position, std::move(message),
                                             std::move(suggestion)));
    }

    void read(std::string_view body, SourcePosition position, bool leading_block,
              std::uint32_t next_line) {
        const std::size_t directive_end = body.find_first_of(" \t");
        const std::string_view directive = body.substr(0, directive_end);
        std::string_view rest = directive_end == std::string_view::npos
                                    ? std::string_view{}
                                    : body.substr(directive_end);
        Suppression suppression;
        if (directive == kDirectives[0]) {
            suppression.scope = Suppression::Scope::NextLine;
            suppression.target_line = next_line;
        } else if (directive == kDirectives[1]) {
            suppression.scope = Suppression::Scope::File;
            if (!leading_block) {
                problem(rule_code::kInvalidSuppression, position,
                        "disable-file must be in the comment block that opens the file; this one "
                        "silences nothing",
                        "move it above the first line of content");
                return;
            }
        } else {
            const std::vector<std::string_view> candidates(kDirectives.begin(), kDirectives.end());
            const std::string close = dsl::closest_match(directive, candidates);
            problem(rule_code::kInvalidSuppression, position,
                    "unknown suppression '" + std::string(directive) +
                        "': expected disable-next-line or disable-file",
                    close.empty() ? std::string{} : "did you mean '" + close + "'?");
            return;
        }
        suppression.position = position;
        std::string_view reason;
        if (const std::size_t separator = rest.find(kReasonSeparator);
            separator != std::string_view::npos) {
            reason = trim(rest.substr(separator + kReasonSeparator.size()));
            rest = rest.substr(0, separator);
        }
        for (const std::string_view word : words(rest)) {
            const Rule* rule = registry_.find(word);
            if (!rule) {
                problem(rule_code::kUnknownRule, position,
                        "suppression names unknown rule '" + std::string(word) + "'",
                        registry_.suggest(word));
                continue;
            }
            if (rule->info.origin == RuleOrigin::Compiler) {
                problem(rule_code::kInvalidSuppression, position,
                        std::string(rule->info.code) + " " + std::string(rule->info.name) +
                            " is a compiler error and cannot be suppressed: the file would not "
                            "load anyway");
                continue;
            }
            suppression.codes.emplace_back(rule->info.code);
        }
        if (words(rest).empty()) {
            problem(rule_code::kInvalidSuppression, position,
                    "suppression names no rule; it silences nothing",
                    "name the rules, as in '# rebound: " + std::string(directive) +
                        " RB301 -- reason'");
            return;
        }
        if (reason.empty()) {
            problem(rule_code::kInvalidSuppression, position,
                    "suppression gives no reason: say why after ' -- '",
                    "'# rebound: " + std::string(directive) + " " + std::string(trim(rest)) +
                        " -- why this is fine here'");
        }
        if (!suppression.codes.empty()) {
            suppression.used.assign(suppression.codes.size(), false);
            out_.suppressions.push_back(std::move(suppression));
        }
    }

    const std::string& file_;
    const RuleRegistry& registry_;
    SuppressionScan& out_;
};

bool covers(Suppression& suppression, const Finding& finding) {
    if (suppression.scope == Suppression::Scope::NextLine &&
        (suppression.target_line == 0 || finding.position.line != suppression.target_line)) {
        return false;
    }
    const auto it = std::find(suppression.codes.begin(), suppression.codes.end(), finding.code);
    if (it == suppression.codes.end()) {
        return false;
    }
    suppression.used[static_cast<std::size_t>(it - suppression.codes.begin())] = true;
    return true;
}

}  // namespace

SuppressionScan scan_suppressions(std::string_view source, const std::string& file,
                                  const RuleRegistry& registry) {
    SuppressionScan result;
    if (source.find(kMarker) == std::string_view::npos) {
        return result;  // the common case: no suppression anywhere
    }
    Scanner(file, registry, result).scan(split_lines(source));
    return result;
}

void apply_suppressions(std::vector<Suppression>& suppressions, Findings& findings,
                        const RuleRegistry& registry) {
    if (suppressions.empty()) {
        return;
    }
    std::erase_if(findings, [&](const Finding& finding) {
        const Rule* rule = registry.find(finding.code);
        if (rule && rule->info.origin == RuleOrigin::Compiler) {
            return false;
        }
        bool silenced = false;
        for (Suppression& suppression : suppressions) {
            // Every covering suppression counts as used, not only the first.
            silenced = covers(suppression, finding) || silenced;
        }
        return silenced;
    });
}

}  // namespace rebound::lint

// Inline suppressions in YAML and DSL comments:
//
//   # rebound: disable-next-line RB301, retry-all-errors -- reason
//   # rebound: disable-file RB301 -- reason
//
// `disable-next-line` applies to the next line that is not itself a comment line, so several
// suppressions can be stacked above one line. `disable-file` applies to the whole file and must
// be in the comment block that opens the file (before the first line of content).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/lint/finding.hpp"
#include "rebound/lint/rule.hpp"

namespace rebound::lint {

struct Suppression {
    enum class Scope { NextLine, File };
    Scope scope = Scope::NextLine;
    SourcePosition position;         // of the comment
    std::uint32_t target_line = 0;   // NextLine: the line it applies to (0: none, end of file)
    std::vector<std::string> codes;  // the rules it names, as codes
    std::vector<bool> used;          // per code: silenced at least one finding
};

struct SuppressionScan {
    std::vector<Suppression> suppressions;
    Findings problems;  // RB316 invalid-suppression and RB317 unknown-rule
};

SuppressionScan scan_suppressions(std::string_view source, const std::string& file,
                                  const RuleRegistry& registry);

// Removes the findings a suppression covers (compiler errors are never covered) and marks the
// suppressions used.
void apply_suppressions(std::vector<Suppression>& suppressions, Findings& findings,
                        const RuleRegistry& registry);

}  // namespace rebound::lint

#include "policy_file_invariants.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>

#include "explain_report.hpp"
#include "rebound/dsl/compile.hpp"
#include "rebound/dsl/emit.hpp"
#include "rebound/lint/linter.hpp"
#include "rebound/lint/output.hpp"

namespace rebound::fuzz {
namespace {

constexpr std::array kSyntaxes{dsl::Syntax::Yaml, dsl::Syntax::Json, dsl::Syntax::Text};

// A handler name no binding names: it resolves through the default or the builtin policy.
constexpr std::string_view kUnboundHandler = "rebound.fuzz.unbound-handler";

std::string describe(dsl::SourcePosition position) {
    return std::to_string(position.line) + ":" + std::to_string(position.column);
}

// The lines of `text` split at '\n' (a final line break leaves an empty last line).
std::vector<std::string_view> lines_of(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t begin = 0;
    for (std::size_t end = text.find('\n'); end != std::string_view::npos;
         end = text.find('\n', begin)) {
        lines.push_back(text.substr(begin, end - begin));
        begin = end + 1;
    }
    lines.push_back(text.substr(begin));
    return lines;
}

// Empty when `position` is unknown (0:0) or inside `lines`, else why not.
std::string position_problem(dsl::SourcePosition position,
                             const std::vector<std::string_view>& lines) {
    if (position.line == 0) {
        return position.column == 0 ? std::string{} : "a column without a line";
    }
    if (position.line > lines.size()) {
        return "line beyond the " + std::to_string(lines.size()) + " lines of the input";
    }
    const std::size_t line_length = lines[position.line - 1].size();
    if (position.column == 0 || position.column > line_length + 1) {
        return "column outside line " + std::to_string(position.line) + " (" +
               std::to_string(line_length) + " bytes)";
    }
    return {};
}

// A name `handler` resolves under: itself, or for a `prefix.*` key a name under the prefix.
std::string handler_named_by(std::string_view key) {
    if (key.ends_with(".*")) {
        return std::string(key.substr(0, key.size() - 1)) + "fuzz";
    }
    return std::string(key);
}

// `rebound explain --format json` of every policy, every binding's handler and an unbound
// handler of `set`, as one JSON text.
std::string explain_everything(const PolicySet& set, const std::vector<std::string>& handlers) {
    cli::Json all{{"service", set.service()}, {"policies", cli::Json::array()}};
    for (const auto& policy : set.policies()) {
        all["policies"].push_back(cli::explain_json(set.service(), *policy));
    }
    cli::Json by_handler = cli::Json::array();
    for (const std::string& handler : handlers) {
        const HandlerResolution resolution = set.resolve(handler);
        by_handler.push_back(
            cli::explain_json(set.service(), *resolution.policy, &resolution, handler));
    }
    all["handlers"] = std::move(by_handler);
    return all.dump(1);
}

std::vector<std::string> handlers_of(const PolicySet& set) {
    std::vector<std::string> handlers;
    for (const HandlerBinding& binding : set.bindings()) {
        handlers.push_back(handler_named_by(binding.key));
    }
    handlers.emplace_back(kUnboundHandler);
    return handlers;
}

void append(Violations& to, Violations more) {
    to.insert(to.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

}  // namespace

Violations diagnostic_position_violations(const dsl::Diagnostics& diagnostics,
                                          std::string_view text) {
    const std::vector<std::string_view> lines = lines_of(text);
    Violations violations;
    for (const dsl::Diagnostic& d : diagnostics) {
        if (const std::string problem = position_problem(d.position, lines); !problem.empty()) {
            violations.push_back(std::string(dsl::code_id(d.code)) + " at " + describe(d.position) +
                                 ": " + problem + " (" + d.message + ")");
        }
    }
    return violations;
}

Violations json_violations(std::string_view json_text, std::string_view what) {
    if (nlohmann::json::accept(json_text)) {
        return {};
    }
    return {std::string(what) + " is not JSON:\n" + std::string(json_text)};
}

Violations round_trip_violations(const dsl::LoadResult& loaded) {
    if (!loaded.policy_set) {
        return {};
    }
    const std::vector<std::string> handlers = handlers_of(*loaded.policy_set);
    const std::string as_loaded = explain_everything(*loaded.policy_set, handlers);
    Violations violations;
    for (const dsl::Syntax syntax : kSyntaxes) {
        const std::string printed = dsl::emit(loaded.document, syntax);
        const std::string label = "the document printed as " + std::string(to_string(syntax));
        const std::string& expected = as_loaded;
        if (syntax == dsl::Syntax::Json) {
            append(violations, json_violations(printed, label));
        }
        const dsl::LoadResult again = dsl::load_text(printed, "round-trip", syntax);
        if (!again.policy_set) {
            std::string messages;
            for (const dsl::Diagnostic& d : again.diagnostics) {
                messages += "\n  " + dsl::format_diagnostic(d);
            }
            violations.push_back(label + " does not load:" + messages + "\n" + printed);
            continue;
        }
        if (const std::string actual = explain_everything(*again.policy_set, handlers);
            actual != expected) {
            violations.push_back(label + " explains differently.\nbefore:\n" + expected +
                                 "\nafter:\n" + actual + "\nprinted:\n" + printed);
        }
    }
    return violations;
}

Violations lint_output_violations(std::string_view text, dsl::Syntax syntax) {
    const lint::Linter linter;
    lint::LintReport report;
    report.files.push_back(linter.lint_text(text, "fuzz", syntax));
    Violations violations =
        json_violations(lint::format_json(report), "rebound lint --format json");
    append(violations, json_violations(lint::format_sarif(report), "rebound lint --format sarif"));
    const std::vector<std::string_view> lines = lines_of(text);
    for (const lint::Finding& finding : report.all_findings()) {
        if (const std::string problem = position_problem(finding.position, lines);
            !problem.empty()) {
            violations.push_back("lint " + finding.code + " at " + describe(finding.position) +
                                 ": " + problem + " (" + finding.message + ")");
        }
    }
    return violations;
}

Violations policy_file_violations(std::string_view text, dsl::Syntax syntax) {
    Violations violations;
    // Loading and linting never throw for bad input, nor does printing what they report.
    try {
        const dsl::LoadResult loaded = dsl::load_text(text, "fuzz", syntax);
        append(violations, diagnostic_position_violations(loaded.diagnostics, text));
        for (const dsl::Diagnostic& d : loaded.diagnostics) {
            (void)dsl::format_diagnostic(d, loaded.source);  // the caret line, from any position
        }
        append(violations, round_trip_violations(loaded));
        append(violations, lint_output_violations(text, syntax));
    } catch (const std::exception& error) {
        violations.push_back(std::string("exception: ") + error.what());
    }
    return violations;
}

}  // namespace rebound::fuzz

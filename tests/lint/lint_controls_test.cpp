// The controls of `rebound lint`: inline suppressions, the configuration file, --disable,
// --fail-on and the exit codes of docs/cli.md, through the library and through the binary.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "rebound/lint/config.hpp"
#include "rebound/lint/linter.hpp"
#include "run_command.hpp"

namespace fs = std::filesystem;
using namespace rebound::lint;
using nlohmann::json;
using rebound::testing::CommandResult;

namespace {

const std::string kCli = REBOUND_CLI_PATH;

// Lockstep retries (RB301 at 6:13) and nothing else (4 attempts keep RB320 quiet).
constexpr std::string_view kNoJitter = R"(rebound: 1
service: payments
policies:
  interactive:
    max_attempts: 4
    jitter: none
    retry_on: [deadlock]
    deadline: 5s
)";

std::vector<std::string> codes(const Findings& findings) {
    std::vector<std::string> out;
    for (const Finding& f : findings) {
        out.push_back(f.code + "@" + std::to_string(f.position.line));
    }
    return out;
}

Findings lint_yaml(std::string_view text, const LintSettings& settings = {}) {
    return Linter(settings).lint_text(text, "p.yaml", rebound::dsl::Syntax::Yaml).findings;
}

std::string with_line_before(std::string_view text, std::string_view anchor,
                             std::string_view line) {
    std::string out(text);
    out.insert(out.find(anchor), std::string(line) + "\n");
    return out;
}

struct TemporaryDirectory {
    fs::path path = rebound::testing::make_temporary_directory("rebound-lint-test");
    ~TemporaryDirectory() {
        std::error_code ignored;
        fs::remove_all(path, ignored);
    }
    fs::path write(const std::string& name, std::string_view text) const {
        const fs::path file = path / name;
        fs::create_directories(file.parent_path());
        std::ofstream(file, std::ios::binary) << text;
        return file;
    }
};

CommandResult run_cli(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), kCli);
    return rebound::testing::run_command(arguments);
}

}  // namespace

TEST_CASE("lint controls: disable-next-line silences only the named rule on the next line",
          "[lint][suppression]") {
    CHECK(codes(lint_yaml(kNoJitter)) == std::vector<std::string>{"RB301@6"});
    const std::string silenced = with_line_before(
        kNoJitter, "    jitter", "    # rebound: disable-next-line RB301 -- one client per row");
    CHECK(lint_yaml(silenced).empty());
    // By name, with a second rule in the list, stacked above another comment line.
    const std::string by_name = with_line_before(
        kNoJitter, "    jitter",
        "    # rebound: disable-next-line no-jitter, RB302 -- one client\n    # a comment");
    CHECK(codes(lint_yaml(by_name)) == std::vector<std::string>{"RB315@6"});  // RB302 unused
    // Another rule does not silence RB301; the suppression is then unused.
    const std::string other = with_line_before(
        kNoJitter, "    jitter", "    # rebound: disable-next-line RB303 -- wrong rule");
    CHECK(codes(lint_yaml(other)) == std::vector<std::string>{"RB315@6", "RB301@7"});
}

TEST_CASE("lint controls: disable-file works only at the top of the file", "[lint][suppression]") {
    const std::string top =
        "# policies of payments\n# rebound: disable-file RB301 -- batch only\n" +
        std::string(kNoJitter);
    CHECK(lint_yaml(top).empty());
    const std::string late =
        with_line_before(kNoJitter, "policies:", "# rebound: disable-file RB301 -- batch only");
    CHECK(codes(lint_yaml(late)) == std::vector<std::string>{"RB316@3", "RB301@7"});
}

TEST_CASE("lint controls: suppressions need a reason and known rules", "[lint][suppression]") {
    const std::string no_reason =
        with_line_before(kNoJitter, "    jitter", "    # rebound: disable-next-line RB301");
    CHECK(codes(lint_yaml(no_reason)) == std::vector<std::string>{"RB316@6"});  // still applies
    const std::string unknown =
        with_line_before(kNoJitter, "    jitter", "    # rebound: disable-next-line RB3O1 -- typo");
    const Findings findings = lint_yaml(unknown);
    REQUIRE(codes(findings) == std::vector<std::string>{"RB317@6", "RB301@7"});
    CHECK(findings[0].suggestion == "did you mean 'RB301 no-jitter'?");
}

TEST_CASE("lint controls: configuration sets severities, turns rules off, declares predicates",
          "[lint][config]") {
    const ConfigResult config = load_config_text(
        "rules:\n  no-jitter: error\n  RB302: off\npredicates: [is_http_retryable]\n",
        ".rebound-lint.yaml");
    REQUIRE(config.findings.empty());
    const Findings findings = lint_yaml(kNoJitter, config.settings);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].severity == Severity::Error);
    REQUIRE(config.settings.predicates);
    CHECK(*config.settings.predicates == std::vector<std::string>{"is_http_retryable"});

    const ConfigResult off = load_config_text("rules: {RB301: off}\n", "c.yaml");
    CHECK(lint_yaml(kNoJitter, off.settings).empty());
}

TEST_CASE("lint controls: configuration problems are findings with positions", "[lint][config]") {
    const ConfigResult config = load_config_text(
        "rules:\n  RB301: warn\n  RB002: off\n  no-jiter: off\nrulez: {}\nrules: {}\n",
        ".rebound-lint.yaml");
    REQUIRE(codes(config.findings) ==
            std::vector<std::string>{"RB008@2", "RB110@3", "RB317@4", "RB002@5", "RB003@6"});
    CHECK(config.findings[0].suggestion == "expected one of off error warning note");
    CHECK(config.findings[2].suggestion == "did you mean 'RB301 no-jitter'?");
    CHECK(config.findings[3].suggestion == "did you mean 'rules'?");
    CHECK(codes(load_config_text("rules: [\n", "c").findings) ==
          std::vector<std::string>{"RB001@2"});
}

TEST_CASE("lint controls: the configuration is read under the limits of policy files",
          "[lint][config][limits]") {
    // Larger than 1 MiB: refused before it is parsed.
    const std::string padding(1024 * 1024, '#');
    const ConfigResult large = load_config_text(padding + "\nrules: {RB301: off}\n", "c.yaml");
    REQUIRE(codes(large.findings) == std::vector<std::string>{"RB112@0"});
    CHECK(large.findings[0].message.find("(1 MiB) for the lint configuration") !=
          std::string::npos);
    CHECK(large.findings[0].file == "c.yaml");
    // Aliases that multiply six levels of ten values: a million values from a few lines.
    const ConfigResult aliases = load_config_text(
        "rules: {RB301: off}\n"
        "predicates: &a [x, x, x, x, x, x, x, x, x, x]\n"
        "handlers: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        "delay-too-short: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
        "unthrottled-retries: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
        "loose-retry-budget: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
        "retry-amplification: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n",
        "c.yaml");
    REQUIRE(aliases.findings.size() == 1);
    CHECK(aliases.findings[0].code == "RB112");
    CHECK(aliases.findings[0].message.find("more than 100000 values") != std::string::npos);
    CHECK(aliases.findings[0].position.line >= 2);
    CHECK(aliases.findings[0].position.column > 0);
    // More than 100,000 values without an alias.
    std::string many = "predicates:\n";
    for (int i = 0; i <= 100'000; ++i) {
        many += "- p\n";
    }
    REQUIRE(codes(load_config_text(many, "c.yaml").findings) ==
            std::vector<std::string>{"RB112@2"});
    // A tag, at its position, and the settings it would have changed are not applied.
    const ConfigResult tagged =
        load_config_text("rules: {RB301: off}\nretry-amplification: { max: !!int 20 }\n", "c.yaml");
    REQUIRE(codes(tagged.findings) == std::vector<std::string>{"RB004@2"});
    CHECK(tagged.findings[0].message == "YAML tags are not supported, got '!!int'");
    CHECK(tagged.findings[0].position.column == 29);
    CHECK(tagged.settings.thresholds.max_amplification == RuleThresholds{}.max_amplification);
}

TEST_CASE("lint controls: configuration sets the thresholds of the rules that have them",
          "[lint][config]") {
    // Seven quick attempts, no budget, no deadline: RB320 with the default max_attempts 5, and an
    // average wait of 5.5ms after equal jitter: RB319 with the default min_delay 10ms.
    constexpr std::string_view kQuick = R"(rebound: 1
service: payments
policies:
  interactive:
    max_attempts: 7
    backoff: { type: exponential, initial: 2ms, multiplier: 2, max: 10ms }
    jitter: equal
    retry_on: [deadlock]
    budget: { max_tokens: 10, token_ratio: 0.8 }
)";
    const std::string unbudgeted = std::string(kQuick).substr(0, kQuick.find("    budget"));
    CHECK(codes(lint_yaml(unbudgeted)) == std::vector<std::string>{"RB320@5", "RB319@6"});
    CHECK(codes(lint_yaml(kQuick)) == std::vector<std::string>{"RB319@6", "RB326@9"});

    const ConfigResult config = load_config_text(
        "delay-too-short: { min_delay: 5ms }\n"
        "unthrottled-retries:\n  max_attempts: 7\n  window: 500ms\n"
        "loose-retry-budget: { max_token_ratio: 1 }\n",
        ".rebound-lint.yaml");
    REQUIRE(config.findings.empty());
    CHECK(config.settings.thresholds.min_delay == std::chrono::milliseconds(5));
    CHECK(config.settings.thresholds.max_attempts == 7);
    CHECK(config.settings.thresholds.window == std::chrono::milliseconds(500));
    CHECK(config.settings.thresholds.max_token_ratio == 1.0);
    CHECK(lint_yaml(unbudgeted, config.settings).empty());
    CHECK(lint_yaml(kQuick, config.settings).empty());
}

TEST_CASE("lint controls: bad thresholds are findings with positions", "[lint][config]") {
    const ConfigResult config = load_config_text(
        "delay-too-short: { min_delay: 10 ms }\n"
        "unthrottled-retries:\n"
        "  max_attempts: 0\n"
        "  windows: 1s\n"
        "  window: [1s]\n"
        "loose-retry-budget: { max_token_ratio: lots }\n"
        "delay-to-short: {}\n"
        "unthrottled-retries: {}\n",
        ".rebound-lint.yaml");
    REQUIRE(codes(config.findings) == std::vector<std::string>{"RB007@1", "RB101@3", "RB002@4",
                                                               "RB004@5", "RB004@6", "RB002@7",
                                                               "RB003@8"});
    CHECK(config.findings[1].message == "'unthrottled-retries.max_attempts' is 0, outside 1..1000");
    CHECK(config.findings[2].suggestion == "did you mean 'window'?");
    CHECK(config.findings[5].suggestion == "did you mean 'delay-too-short'?");
    CHECK(config.settings.thresholds == RuleThresholds{});  // nothing bad is taken
}

TEST_CASE("lint controls: the configuration is found in the directory or a parent",
          "[lint][config]") {
    const TemporaryDirectory dir;
    dir.write("project/.rebound-lint.yaml", "rules: {RB301: off}\n");
    fs::create_directories(dir.path / "project/policies/deep");
    const auto found = find_config(dir.path / "project/policies/deep");
    REQUIRE(found);
    CHECK(fs::equivalent(*found, dir.path / "project/.rebound-lint.yaml"));
    CHECK_FALSE(find_config(dir.path));
}

// `deadline: 2` meant as 2 s is a 2 ms deadline: a default CI gate (`rebound lint`, failing on
// errors) stops it, and the message gives both readings (issue 43).
TEST_CASE("lint controls: a bare number for a duration fails lint by default", "[lint][cli]") {
    const TemporaryDirectory dir;
    const fs::path bare = dir.write("bare/p.yaml", R"(rebound: 1
service: payments
policies:
  interactive:
    max_attempts: 3
    jitter: equal
    deadline: 2
    retry_on: [deadlock]
)");
    const CommandResult result = run_cli({"lint", "--no-source", bare.string()});
    CHECK(result.exit_code == 1);
    CHECK(result.out.find("p.yaml:7:15: error: deadline: 2 is 2 ms; if you meant 2 s write 2s, "
                          "else write 2ms [RB329 unitless-duration]") != std::string::npos);
    CHECK(run_cli({"lint", "--disable", "RB329", bare.string()}).exit_code == 0);
}

TEST_CASE("lint controls: exit codes 0, 1 and 2 of the binary", "[lint][cli]") {
    const TemporaryDirectory dir;
    const fs::path clean = dir.write("clean/p.yaml", R"(rebound: 1
service: payments
policies:
  interactive:
    jitter: equal
    retry_on: [deadlock]
)");
    const fs::path warned = dir.write("warned/p.yaml", kNoJitter);
    const fs::path broken = dir.write("broken/p.yaml", "rebound: 1\nservice: x\npolicies: [\n");

    CHECK(run_cli({"lint", clean.string()}).exit_code == 0);
    CHECK(run_cli({"lint", warned.string()}).exit_code == 0);  // warnings pass by default
    CHECK(run_cli({"lint", "--fail-on", "warning", warned.string()}).exit_code == 1);
    CHECK(run_cli({"lint", "--fail-on", "warning", "--disable", "RB301", warned.string()})
              .exit_code == 0);
    CHECK(run_cli({"lint", broken.string()}).exit_code == 1);
    CHECK(run_cli({"lint", "--fail-on", "never", broken.string()}).exit_code == 0);
    CHECK(run_cli({"lint", (dir.path / "missing.yaml").string()}).exit_code == 2);
    CHECK(run_cli({"lint", "--format", "xml", clean.string()}).exit_code == 2);

    const CommandResult unknown = run_cli({"lint", "--disable", "no-jiter", clean.string()});
    CHECK(unknown.exit_code == 2);
    CHECK(unknown.err.find("did you mean 'RB301 no-jitter'?") != std::string::npos);
    CHECK(run_cli({"lint", "--disable", "RB001", clean.string()}).exit_code == 2);

    const fs::path config = dir.write("strict.yaml", "rules: {no-jitter: error}\n");
    CHECK(run_cli({"lint", "--config", config.string(), warned.string()}).exit_code == 1);
    const fs::path bad_config = dir.write("bad.yaml", "rules: {RB001: off}\n");
    const CommandResult broken_config =
        run_cli({"lint", "--format", "json", "--config", bad_config.string(), clean.string()});
    CHECK(broken_config.exit_code == 2);
    const json report = json::parse(broken_config.out);
    REQUIRE(report["diagnostics"].size() == 1);
    CHECK(report["diagnostics"][0]["code"] == "RB110");
}

TEST_CASE("lint controls: a directory is searched recursively, files sorted", "[lint][cli]") {
    const TemporaryDirectory dir;
    dir.write("policies/b.yaml", kNoJitter);
    dir.write("policies/nested/a.rebound",
              "rebound 1\nservice s\npolicy p {\n  jitter none\n  "
              "attempts 4\n  retry on deadlock\n  deadline 5s\n}\n");
    dir.write("policies/notes.txt", "not a policy file");
    const CommandResult result =
        run_cli({"lint", "--format", "json", (dir.path / "policies").string()});
    CHECK(result.exit_code == 0);
    const json report = json::parse(result.out);
    CHECK(report["files"] == 2);
    REQUIRE(report["diagnostics"].size() == 2);
    CHECK(report["diagnostics"][0]["file"].get<std::string>().ends_with("policies/b.yaml"));
    CHECK(
        report["diagnostics"][1]["file"].get<std::string>().ends_with("policies/nested/a.rebound"));
}

TEST_CASE("the shipped policies and vendor maps lint clean, and schemas are not policy files",
          "[lint]") {
    const std::vector<std::string> files = collect_policy_files({REBOUND_POLICIES_DIR});
    CHECK(std::none_of(files.begin(), files.end(),
                       [](const std::string& f) { return f.ends_with(".schema.json"); }));
    CHECK(std::any_of(files.begin(), files.end(),
                      [](const std::string& f) { return f.ends_with("vendors/mysql.yaml"); }));
    const CommandResult result =
        rebound::testing::run_command({kCli, "lint", "--format", "json", REBOUND_POLICIES_DIR});
    INFO(result.err);
    CHECK(result.exit_code == 0);
    const json report = json::parse(result.out);
    CHECK(report.at("errors") == 0);
    CHECK(report.at("warnings") == 0);
    CHECK(report.at("files").get<std::size_t>() == files.size());
}

TEST_CASE("lint: a service named by two files of one directory is reported at the second",
          "[lint][directory]") {
    const TemporaryDirectory dir;
    const std::string text =
        "rebound: 1\nservice: payments\npolicies:\n  p:\n    jitter: equal\n"
        "    retry_on: [deadlock]\n";
    dir.write("svc/a.yaml", text);
    dir.write("svc/b.yaml", text);
    dir.write("other/c.yaml", text);  // another directory: another deployment
    const LintReport report = Linter().lint_paths({dir.path.string()});
    const Findings all = report.all_findings();
    REQUIRE(all.size() == 1);
    CHECK(all[0].code == "RB003");
    CHECK(all[0].file.ends_with("svc/b.yaml"));
    CHECK(all[0].position.line == 2);
    CHECK(all[0].position.column == 10);
    CHECK(all[0].message.find("service 'payments' is already defined in ") != std::string::npos);
    CHECK(all[0].message.find("svc/a.yaml") != std::string::npos);
}

TEST_CASE("lint --handlers FILE checks exact bindings against registered handler names",
          "[lint][cli]") {
    const TemporaryDirectory dir;
    const fs::path policy = dir.write("p.yaml", R"(rebound: 1
service: payments
policies:
  interactive:
    jitter: equal
    retry_on: [deadlock]
handlers:
  payments.captur: interactive
  "payments.*": interactive
)");
    const fs::path names = dir.write("handlers.txt", "# registered in code\npayments.capture\n\n");
    const CommandResult checked = run_cli({"lint", "--handlers", names.string(), policy.string()});
    INFO(checked.out << checked.err);
    CHECK(checked.exit_code == 0);  // a warning
    CHECK(checked.out.find(":8:3: warning: handler 'payments.captur' is bound") !=
          std::string::npos);
    CHECK(checked.out.find("[RB111 unknown-handler]") != std::string::npos);
    CHECK(checked.out.find("did you mean 'payments.capture'?") != std::string::npos);
    // Without a list of handlers, nothing can be checked.
    CHECK(run_cli({"lint", "--no-source", policy.string()}).out.find("RB111") == std::string::npos);
    CHECK(run_cli({"lint", "--handlers", (dir.path / "missing.txt").string(), policy.string()})
              .exit_code == 2);
}

TEST_CASE(
    "lint controls: semantic rules still check the policies that compiled in a file with "
    "errors",
    "[lint]") {
    const Findings findings = lint_yaml(R"(rebound: 1
service: payments
policies:
  broken:
    max_attempts: 0
  nojitter:
    max_attempts: 3
    backoff: { type: exponential, initial: 100ms, multiplier: 2, max: 1s }
    jitter: none
    retry_on: [deadlock]
handlers:
  a: broken
  b: nojitter
default: nojitter
)");
    const std::vector<std::string> found = codes(findings);
    CHECK(std::find(found.begin(), found.end(), "RB101@5") != found.end());  // the error
    CHECK(std::find(found.begin(), found.end(), "RB301@9") != found.end());  // nojitter, checked
    // The broken policy is not judged on the defaults that stood in for its bad value.
    CHECK(std::none_of(found.begin(), found.end(),
                       [](const std::string& code) { return code.ends_with("@4"); }));
}

namespace {

// Three services' files: 3 attempts at the edge, 3 in payments, 5 at the ledger.
struct ThreeServices {
    TemporaryDirectory dir;
    ThreeServices(const std::string& edge_prefix = "") {
        dir.write("edge.yaml",
                  "rebound: 1\nservice: edge\npolicies:\n"
                  "  p: { max_attempts: 3 }\nhandlers:\n" +
                      edge_prefix + "  orders.place: { policy: p, calls: [payments.authorize] }\n");
        dir.write("payments.rebound",
                  "rebound 1\nservice payments\npolicy p {\n  attempts 3\n}\n"
                  "handler payments.* uses p calls ledger.post, fx.rate\n");
        dir.write("ledger.yaml",
                  "rebound: 1\nservice: ledger\npolicies:\n"
                  "  p: { max_attempts: 5 }\nhandlers:\n  ledger.post: p\n");
    }
};

Findings call_graph_findings(const LintReport& report) {
    Findings found = report.all_findings();
    std::erase_if(found, [](const Finding& f) { return f.code < "RB338" || f.code > "RB340"; });
    return found;
}

}  // namespace

TEST_CASE("lint: retry-amplification follows calls across the files linted together",
          "[lint][call_graph]") {
    const ThreeServices services;
    const Findings found = call_graph_findings(Linter().lint_paths({services.dir.path.string()}));
    REQUIRE(found.size() == 2);
    const Finding& amplified = found[0];
    CHECK(amplified.code == "RB338");
    CHECK(amplified.severity == Severity::Warning);
    CHECK(amplified.file.ends_with("edge.yaml"));  // on the first binding of the path
    CHECK(amplified.position.line == 6);
    CHECK(amplified.position.column == 3);
    CHECK(amplified.message ==
          "up to 45 calls reach 'ledger.post' for one request to 'orders.place', more than 10: "
          "orders.place x3 -> payments.authorize x3 -> ledger.post x5 = 45");
    const Finding& unbound = found[1];
    CHECK(unbound.code == "RB340");
    CHECK(unbound.severity == Severity::Note);
    CHECK(unbound.file.ends_with("payments.rebound"));
    CHECK(unbound.position.line == 6);
    CHECK(unbound.message.find("'fx.rate', which no linted file binds") != std::string::npos);

    // Each file alone sees no path longer than its own bindings.
    for (const char* file : {"edge.yaml", "payments.rebound", "ledger.yaml"}) {
        const Findings alone = Linter().lint_file(services.dir.path / file).findings;
        CHECK_FALSE(std::any_of(alone.begin(), alone.end(),
                                [](const Finding& f) { return f.code == "RB338"; }));
    }
}

TEST_CASE("lint: retry-amplification honours its threshold and suppressions",
          "[lint][call_graph]") {
    const ThreeServices services;
    LintSettings settings;
    settings.thresholds.max_amplification = 45;
    CHECK(call_graph_findings(Linter(settings).lint_paths({services.dir.path.string()})).size() ==
          1);  // the note only
    settings.thresholds.max_amplification = 44;
    CHECK(call_graph_findings(Linter(settings).lint_paths({services.dir.path.string()})).size() ==
          2);

    const ThreeServices suppressed("  # rebound: disable-next-line RB338 -- the edge is batch\n");
    const LintReport report = Linter().lint_paths({suppressed.dir.path.string()});
    const Findings all = report.all_findings();
    CHECK_FALSE(std::any_of(all.begin(), all.end(), [](const Finding& f) {
        return f.code == "RB338" || f.code == "RB315";
    }));

    const ConfigResult config =
        load_config_text("retry-amplification: { max: 100 }\n", ".rebound-lint.yaml");
    CHECK(config.findings.empty());
    CHECK(config.settings.thresholds.max_amplification == 100);
}

TEST_CASE("lint: a cycle in calls is an error naming the cycle", "[lint][call_graph]") {
    const TemporaryDirectory dir;
    dir.write("a.yaml",
              "rebound: 1\nservice: a\npolicies:\n  p: { max_attempts: 2 }\nhandlers:\n"
              "  a.run: { policy: p, calls: [b.run] }\n");
    dir.write("b.yaml",
              "rebound: 1\nservice: b\npolicies:\n  p: { max_attempts: 2 }\nhandlers:\n"
              "  b.run: { policy: p, calls: [c.run] }\n"
              "  c.run: { policy: p, calls: [a.run] }\n");
    const Findings found = call_graph_findings(Linter().lint_paths({dir.path.string()}));
    REQUIRE(found.size() == 1);
    CHECK(found[0].code == "RB339");
    CHECK(found[0].severity == Severity::Error);
    CHECK(found[0].file.ends_with("b.yaml"));
    CHECK(found[0].position.line == 7);
    CHECK(found[0].message.find("a.run -> b.run -> c.run -> a.run") != std::string::npos);
}

// The validator and compiler, driven through YAML text (the front ends have their own tests).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <tuple>

#include "rebound/dsl/load.hpp"
#include "rebound/dsl/text_toolkit/suggestions.hpp"

using namespace std::chrono_literals;
using rebound::dsl::Diagnostic;
using rebound::dsl::DiagnosticCode;
using rebound::dsl::load_text;
using rebound::dsl::LoadResult;
using rebound::dsl::Syntax;

namespace {

LoadResult load_yaml(const std::string& text) {
    return load_text(text, "svc.yaml", Syntax::Yaml);
}

// The errors of `text` as "line:column code" strings, for compact assertions.
std::vector<std::string> errors_of(const std::string& text) {
    const LoadResult result = load_yaml(text);
    CHECK(result.policy_set == nullptr);
    std::vector<std::string> errors;
    auto diagnostics = result.diagnostics;
    std::sort(diagnostics.begin(), diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
        return std::tie(a.position.line, a.position.column) <
               std::tie(b.position.line, b.position.column);
    });
    for (const Diagnostic& d : diagnostics) {
        errors.push_back(std::to_string(d.position.line) + ":" + std::to_string(d.position.column) +
                         " " + std::string(rebound::dsl::code_id(d.code)));
    }
    return errors;
}

const Diagnostic& only_error(const LoadResult& result) {
    REQUIRE(result.diagnostics.size() == 1);
    return result.diagnostics.front();
}

const std::string kTiers = R"(rebound: 1
service: casework
defaults:
  jitter: full
  max_attempts: 4
policies:
  interactive:
    max_attempts: 3
    backoff: { type: exponential, initial: 50ms, multiplier: 3, max: 200ms }
    jitter: equal
    deadline: 3s
    retry_on: [deadlock]
  background:
    extends: interactive
    max_retries: 6
    backoff: { type: exponential, initial: 100ms }
  plain: {}
handlers:
  ApproveCase: interactive
  RemoveReviewer: { policy: interactive, idempotent: true }
  "jobs.*": background
  "jobs.outbox.*": plain
default: interactive
)";

}  // namespace

TEST_CASE("a valid file compiles into a policy set in file order", "[compile]") {
    const LoadResult result = load_yaml(kTiers);
    REQUIRE(result.diagnostics.empty());
    REQUIRE(result.policy_set != nullptr);
    const rebound::PolicySet& set = *result.policy_set;
    CHECK(set.service() == "casework");
    REQUIRE(set.policies().size() == 3);
    CHECK(set.policies()[0]->name() == "interactive");
    CHECK(set.policies()[1]->name() == "background");
    CHECK(set.policies()[2]->name() == "plain");
}

TEST_CASE(
    "inheritance: own, then extends, then defaults, then built-in, with objects replaced whole",
    "[compile]") {
    const LoadResult result = load_yaml(kTiers);
    REQUIRE(result.policy_set);
    const auto& background = result.policy_set->find("background")->spec();
    CHECK(background.max_attempts == 7);  // own max_retries 6
    CHECK(background.backoff == rebound::Backoff::exponential(100ms, 2.0, 30s));  // not x3, 200ms
    CHECK(background.jitter == rebound::Jitter::equal());  // from interactive
    CHECK(background.deadline == rebound::Duration(3s));   // from interactive
    CHECK(background.retry_on.size() == 1);
    const auto& plain = result.policy_set->find("plain")->spec();
    CHECK(plain.max_attempts == 4);  // from defaults
    CHECK(plain.jitter == rebound::Jitter::full());
    CHECK(plain.backoff == rebound::Backoff{});  // built-in
    CHECK_FALSE(plain.deadline.has_value());
}

TEST_CASE("handlers resolve exact, then longest prefix, then default, then builtin", "[compile]") {
    const LoadResult result = load_yaml(kTiers);
    REQUIRE(result.policy_set);
    const rebound::PolicySet& set = *result.policy_set;
    const auto check = [&](std::string_view handler, std::string_view policy,
                           rebound::ResolvedVia via, bool idempotent = false) {
        const auto resolution = set.resolve(handler);
        INFO(handler);
        CHECK(resolution.policy->name() == policy);
        CHECK(resolution.via == via);
        CHECK(resolution.idempotent == idempotent);
    };
    check("ApproveCase", "interactive", rebound::ResolvedVia::Binding);
    check("RemoveReviewer", "interactive", rebound::ResolvedVia::Binding, true);
    check("jobs.nightly", "background", rebound::ResolvedVia::Binding);
    check("jobs.outbox.email", "plain", rebound::ResolvedVia::Binding);
    check("jobs.outbox", "background", rebound::ResolvedVia::Binding);
    check("jobs", "interactive", rebound::ResolvedVia::Default);
    check("Other", "interactive", rebound::ResolvedVia::Default);

    const LoadResult no_default = load_yaml("rebound: 1\nservice: s\npolicies:\n  p: {}\n");
    REQUIRE(no_default.policy_set);
    const auto builtin = no_default.policy_set->resolve("Anything");
    CHECK(builtin.via == rebound::ResolvedVia::Builtin);
    CHECK(builtin.policy->name() == "builtin");
    CHECK(builtin.policy->spec().retry_on.front() == rebound::Matcher::transient());
}

TEST_CASE("header problems: missing version, service or policies, and a wrong version",
          "[compile]") {
    CHECK(errors_of("service: s\npolicies:\n  p: {}\n") == std::vector<std::string>{"1:1 RB005"});
    CHECK(errors_of("rebound: 1\npolicies:\n  p: {}\n") == std::vector<std::string>{"1:1 RB005"});
    CHECK(errors_of("rebound: 1\nservice: s\n") == std::vector<std::string>{"1:1 RB005"});
    CHECK(errors_of("rebound: 2\nservice: s\npolicies:\n  p: {}\n") ==
          std::vector<std::string>{"1:10 RB006"});
    CHECK(errors_of("rebound: 1\nservice: s\npolicies: {}\n") ==
          std::vector<std::string>{"3:1 RB005"});
}

TEST_CASE("extends cycles and unknown references are reported with suggestions", "[compile]") {
    const LoadResult cycle = load_yaml(
        "rebound: 1\nservice: s\npolicies:\n  a:\n    extends: b\n  b:\n    extends: c\n  c:\n    "
        "extends: a\n");
    const Diagnostic& d = only_error(cycle);
    CHECK(d.code == DiagnosticCode::ExtendsCycle);
    CHECK(d.position.line == 5);
    CHECK(d.message == "policy 'a' extends itself: a -> b -> c -> a");

    const LoadResult self = load_yaml("rebound: 1\nservice: s\npolicies:\n  a:\n    extends: a\n");
    CHECK(only_error(self).code == DiagnosticCode::ExtendsCycle);

    const LoadResult unknown = load_yaml(
        "rebound: 1\nservice: s\npolicies:\n  interactive: {}\n  b:\n    extends: interactiv\n"
        "handlers:\n  H: interactve\ndefault: nothing_like_it\n");
    REQUIRE(unknown.diagnostics.size() == 3);
    CHECK(unknown.diagnostics[0].code == DiagnosticCode::UnknownPolicy);
    CHECK(unknown.diagnostics[0].suggestion == "did you mean 'interactive'?");
    CHECK(unknown.diagnostics[1].position.line == 8);
    CHECK(unknown.diagnostics[1].suggestion == "did you mean 'interactive'?");
    CHECK(unknown.diagnostics[2].position.line == 9);
    CHECK(unknown.diagnostics[2].suggestion.empty());
}

TEST_CASE("max_attempts and max_retries together are refused at the later one", "[compile]") {
    const LoadResult both = load_yaml(
        "rebound: 1\nservice: s\npolicies:\n  p:\n    max_attempts: 3\n    max_retries: 2\n");
    const Diagnostic& d = only_error(both);
    CHECK(d.code == DiagnosticCode::ConflictingFields);
    CHECK(d.position.line == 6);
    CHECK(d.field == "policies.p.max_retries");
}

TEST_CASE("values are checked after inheritance, at the text they came from", "[compile]") {
    const LoadResult result = load_yaml(R"(rebound: 1
service: s
defaults:
  backoff: { type: exponential, initial: 2s, max: 1s }
policies:
  a: {}
  b: {}
  c:
    backoff: { type: exponential, initial: 1s, multiplier: 1.0, max: 10s }
)");
    REQUIRE(result.diagnostics.size() == 2);
    CHECK(result.diagnostics[0].code == DiagnosticCode::InconsistentValues);
    CHECK(result.diagnostics[0].position.line == 4);
    CHECK(result.diagnostics[0].message == "max (1s) is below initial (2s)");
    CHECK(result.diagnostics[1].code == DiagnosticCode::OutOfRange);
    CHECK(result.diagnostics[1].position.line == 9);
    CHECK(result.diagnostics[1].field == "policies.c.backoff.multiplier");
}

TEST_CASE("fields must fit their backoff and jitter types", "[compile]") {
    CHECK(errors_of("rebound: 1\nservice: s\npolicies:\n  p:\n    backoff: { type: fixed, delay: "
                    "1s, multiplier: 2 }\n") == std::vector<std::string>{"5:52 RB002"});
    CHECK(errors_of("rebound: 1\nservice: s\npolicies:\n  p:\n    backoff: { type: fixed }\n") ==
          std::vector<std::string>{"5:14 RB005"});
    CHECK(errors_of("rebound: 1\nservice: s\npolicies:\n  p:\n    backoff: { type: linear, "
                    "initial: 1s }\n") == std::vector<std::string>{"5:14 RB005"});
    CHECK(errors_of(
              "rebound: 1\nservice: s\npolicies:\n  p:\n    backoff: { type: fixed, delay: 1s }\n"
              "    jitter: decorrelated\n") == std::vector<std::string>{"6:13 RB105"});
}

TEST_CASE("every problem of a file is reported at once", "[compile]") {
    const auto errors = errors_of(R"(rebound: 1
service: s
policies:
  p:
    max_attempts: 0
    deadline: 0ms
    budget: { max_tokens: 0, token_ratio: 5000 }
    routes:
      - { up_to: 1m, target: a }
      - { up_to: 10s, target: b }
    retry_on: [{ sqlstate: "4000" }, { http: 700 }]
  builtin: {}
handlers:
  "bad key!": p
)");
    CHECK(errors == std::vector<std::string>{"5:19 RB101", "6:15 RB101", "7:27 RB101", "7:43 RB101",
                                             "10:18 RB106", "11:16 RB110", "11:38 RB110",
                                             "12:3 RB108", "14:3 RB108"});
}

TEST_CASE("unknown predicates are errors when a registry is given", "[compile]") {
    const std::string text =
        "rebound: 1\nservice: s\npolicies:\n  p:\n    retry_if: [is_busy, is_read]\n";
    CHECK(load_yaml(text).policy_set != nullptr);
    rebound::PredicateRegistry registry;
    registry.add("is_busy", [](const rebound::ErrorDescription&) { return true; });
    rebound::PolicyCompileOptions options;
    options.predicates = &registry;
    const LoadResult result = load_text(text, "svc.yaml", Syntax::Yaml, options);
    const Diagnostic& d = only_error(result);
    CHECK(d.code == DiagnosticCode::UnknownPredicate);
    CHECK(d.position.line == 5);
    CHECK(d.position.column == 25);
}

TEST_CASE("files: unknown extension, missing file, and the throwing wrapper", "[compile]") {
    const auto missing = rebound::dsl::load_file("/nonexistent/dir/svc.yaml");
    CHECK(only_error(missing).code == DiagnosticCode::UnreadableFile);
    const auto wrong = rebound::dsl::load_file("svc.toml");
    CHECK(only_error(wrong).code == DiagnosticCode::UnreadableFile);

    const auto directory = std::filesystem::temp_directory_path() / "rebound-compile-test";
    std::filesystem::create_directories(directory);
    const auto bad = directory / "bad.yaml";
    std::ofstream(bad) << "rebound: 1\nservice: s\npolicies:\n  p:\n    max_attempts: 0\n";
    try {
        (void)rebound::dsl::load_file_or_throw(bad);
        FAIL("no exception");
    } catch (const rebound::dsl::LoadError& e) {
        const std::string what = e.what();
        CHECK(what.find("bad.yaml:5:19: error: max_attempts must be between 1 and 1000, got 0") !=
              std::string::npos);
        CHECK(what.find("        max_attempts: 0\n                      ^") != std::string::npos);
        CHECK(e.diagnostics().size() == 1);
    }
    const auto good = directory / "good.yaml";
    std::ofstream(good) << "rebound: 1\nservice: s\npolicies:\n  p: {}\n";
    CHECK(rebound::dsl::load_file_or_throw(good)->policies().size() == 1);
    std::filesystem::remove_all(directory);
}

TEST_CASE("a short form of a key gets the full key suggested", "[compile]") {
    CHECK(rebound::dsl::closest_match("attempts", {"max_attempts", "max_retries", "deadline"}) ==
          "max_attempts");
    CHECK(rebound::dsl::closest_match("retries", {"max_attempts", "max_retries"}) == "max_retries");
    // Ambiguous or too short: no guess.
    CHECK(rebound::dsl::closest_match("retry", {"retry_on", "retry_if"}).empty());
    CHECK(rebound::dsl::closest_match("max", {"max_attempts"}).empty());
}

TEST_CASE("after a parse error, findings that only echo it are not reported", "[compile]") {
    const std::string bad_duration =
        "rebound: 1\nservice: x\npolicies:\n  p:\n    backoff: { type: fixed, delay: 5parsecs }\n";
    const rebound::dsl::LoadResult with_bad_value =
        rebound::dsl::load_text(bad_duration, "x.yaml", rebound::dsl::Syntax::Yaml);
    REQUIRE(with_bad_value.diagnostics.size() == 1);
    CHECK(with_bad_value.diagnostics[0].code == rebound::dsl::DiagnosticCode::InvalidDuration);
    CHECK(with_bad_value.policy_set == nullptr);

    // Broken syntax: the document is unreliable, so no "missing 'service'" and the like.
    const rebound::dsl::LoadResult broken =
        rebound::dsl::load_text("rebound: 1\nservice: [x\n", "x.yaml", rebound::dsl::Syntax::Yaml);
    REQUIRE(broken.diagnostics.size() == 1);
    CHECK(broken.diagnostics[0].code == rebound::dsl::DiagnosticCode::SyntaxError);

    // Findings elsewhere in the file are still reported.
    const std::string two_problems =
        "rebound: 1\nservice: x\npolicies:\n  p:\n    deadline: 5parsecs\n  q:\n"
        "    max_attempts: 0\n";
    const rebound::dsl::LoadResult both =
        rebound::dsl::load_text(two_problems, "x.yaml", rebound::dsl::Syntax::Yaml);
    CHECK(both.diagnostics.size() == 2);
}

TEST_CASE("a policy whose ancestor extends an unknown policy is reported once, not resolved",
          "[compile]") {
    // Found by the fuzzer: resolving `child` walked into the unknown parent and threw.
    const std::string text =
        "rebound: 1\nservice: s\npolicies:\n  a:\n    extends: missing\n  child:\n"
        "    extends: a\n";
    const LoadResult result = load_yaml(text);
    REQUIRE(result.diagnostics.size() == 1);
    CHECK(result.diagnostics[0].code == rebound::dsl::DiagnosticCode::UnknownPolicy);
    CHECK(result.diagnostics[0].position.line == 5);
    CHECK(result.policy_set == nullptr);
}

TEST_CASE("a binding keeps whether it stated idempotent, false included", "[compile]") {
    const LoadResult r = load_yaml(R"(rebound: 1
service: payments
policies:
  interactive: {}
handlers:
  payments.capture: interactive
  payments.refund: { policy: interactive, idempotent: false }
  payments.settle: { policy: interactive, idempotent: true }
)");
    REQUIRE(r.policy_set);
    const auto& bindings = r.policy_set->bindings();
    REQUIRE(bindings.size() == 3);
    CHECK_FALSE(bindings[0].idempotent.has_value());
    CHECK(bindings[1].idempotent == std::optional<bool>(false));
    CHECK(bindings[2].idempotent == std::optional<bool>(true));
}

TEST_CASE("load reports diagnostics in file order, as lint does", "[compile]") {
    // The range error (line 5) is found by the validator, after the reader found the unknown
    // key (line 7); the result lists them by position.
    const LoadResult r = load_yaml(R"(rebound: 1
service: payments
policies:
  interactive:
    max_attempts: 0
  background:
    max_atempts: 3
)");
    REQUIRE(r.diagnostics.size() == 2);
    CHECK(r.diagnostics[0].position.line == 5);
    CHECK(r.diagnostics[0].code == DiagnosticCode::OutOfRange);
    CHECK(r.diagnostics[1].position.line == 7);
    CHECK(r.diagnostics[1].code == DiagnosticCode::UnknownKey);
}

TEST_CASE("one broken line of a DSL policy does not hide the policy's other problems",
          "[compile]") {
    const LoadResult r = load_text(
        "rebound 1\nservice s\npolicy p {\n  attempts 3\n  retries 2\n"
        "  deadline 5 s\n}\n",
        "svc.rebound", Syntax::Text);
    std::vector<std::pair<std::uint32_t, DiagnosticCode>> found;
    for (const Diagnostic& d : r.diagnostics) {
        found.emplace_back(d.position.line, d.code);
    }
    // As in YAML: the attempts/retries conflict, and the broken deadline line.
    CHECK(found == std::vector<std::pair<std::uint32_t, DiagnosticCode>>{
                       {5, DiagnosticCode::ConflictingFields}, {6, DiagnosticCode::SyntaxError}});
}

TEST_CASE("a binding carries its calls and redeliveries, which are checked", "[compile]") {
    const LoadResult r = load_yaml(R"(rebound: 1
service: orders
policies:
  interactive: {}
handlers:
  orders.place: { policy: interactive, calls: [payments.authorize, ledger.post] }
  orders.events: { policy: interactive, redeliveries: 1000 }
  orders.audit: interactive
)");
    REQUIRE(r.policy_set);
    const auto& bindings = r.policy_set->bindings();
    REQUIRE(bindings.size() == 3);
    CHECK(bindings[0].calls == std::vector<std::string>{"payments.authorize", "ledger.post"});
    CHECK(bindings[0].redeliveries == 0);
    CHECK(bindings[1].redeliveries == 1000);
    CHECK(bindings[2].calls.empty());

    CHECK(errors_of(R"(rebound: 1
service: orders
policies:
  p: {}
handlers:
  a: { policy: p, redeliveries: 1001 }
  b: { policy: p, redeliveries: -1 }
  c: { policy: p, calls: [ok, "orders.*"] }
)") == std::vector<std::string>{"6:33 RB101", "7:33 RB101", "8:31 RB108"});
}

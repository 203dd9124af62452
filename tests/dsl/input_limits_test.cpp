// The limits of docs/policy-format.md ("Limits"): every one is reported as RB112 with a position,
// the work of loading stays bounded, and nothing on the load path lets an exception out.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "allocation_counter.hpp"
#include "rebound/dsl/input_limits.hpp"
#include "rebound/dsl/load.hpp"

using rebound::dsl::Diagnostic;
using rebound::dsl::DiagnosticCode;
using rebound::dsl::load_text;
using rebound::dsl::LoadResult;
using rebound::dsl::Syntax;

namespace {

LoadResult load_yaml(const std::string& text) {
    return load_text(text, "svc.yaml", Syntax::Yaml);
}

LoadResult load_dsl(const std::string& text) {
    return load_text(text, "svc.rebound", Syntax::Text);
}

std::size_t count_code(const LoadResult& result, DiagnosticCode code) {
    return static_cast<std::size_t>(
        std::count_if(result.diagnostics.begin(), result.diagnostics.end(),
                      [code](const Diagnostic& d) { return d.code == code; }));
}

const Diagnostic& first_limit(const LoadResult& result) {
    const auto it =
        std::find_if(result.diagnostics.begin(), result.diagnostics.end(),
                     [](const Diagnostic& d) { return d.code == DiagnosticCode::LimitExceeded; });
    REQUIRE(it != result.diagnostics.end());
    return *it;
}

std::string repeated(std::string_view item, std::size_t count, std::string_view separator) {
    std::string text;
    for (std::size_t i = 0; i < count; ++i) {
        text += (i == 0 ? "" : std::string(separator)) + std::string(item);
    }
    return text;
}

// `count` policies p0..p{count-1}, each on its own line from line 4.
std::string policies_yaml(std::size_t count) {
    std::string text = "rebound: 1\nservice: s\npolicies:\n";
    for (std::size_t i = 0; i < count; ++i) {
        text += "  p" + std::to_string(i) + ": {max_attempts: 3}\n";
    }
    return text;
}

// A chain p0 <- p1 <- ... <- p{count-1}: p{i} extends p{i-1}, on line 4 + 2i.
std::string chain_yaml(std::size_t count) {
    std::string text = "rebound: 1\nservice: s\npolicies:\n  p0:\n    max_attempts: 3\n";
    for (std::size_t i = 1; i < count; ++i) {
        text += "  p" + std::to_string(i) + ":\n    extends: p" + std::to_string(i - 1) + "\n";
    }
    return text;
}

std::size_t matchers_read(const LoadResult& result) {
    std::size_t total = 0;
    for (const auto& policy : result.document.policies) {
        if (policy.fields.retry_on) {
            total += policy.fields.retry_on->items.size();
        }
    }
    return total;
}

}  // namespace

TEST_CASE("an aliased list reused by many policies stops at the value limit", "[limits]") {
    // 900 items anchored once and aliased into 999 more policies: 900,000 values once expanded.
    std::string text = "rebound: 1\nservice: s\npolicies:\n  p0:\n    retry_on: &l [" +
                       repeated("deadlock", 900, ", ") + "]\n";
    for (int i = 1; i < 1000; ++i) {
        text += "  p" + std::to_string(i) + ":\n    retry_on: *l\n";
    }
    const LoadResult result = load_yaml(text);
    CHECK(result.policy_set == nullptr);
    const Diagnostic& limit = first_limit(result);
    CHECK(limit.message.find("more than 100000 values") != std::string::npos);
    CHECK(limit.position.line > 4);
    CHECK(matchers_read(result) <= rebound::dsl::kMaxNodes);
}

TEST_CASE("a list longer than the limit is reported at the list in YAML and in the DSL",
          "[limits]") {
    const LoadResult yaml = load_yaml("rebound: 1\nservice: s\npolicies:\n  p:\n    retry_on: [" +
                                      repeated("deadlock", 1001, ", ") + "]\n");
    CHECK(yaml.policy_set == nullptr);
    CHECK(first_limit(yaml).position.line == 5);
    CHECK(first_limit(yaml).field == "policies.p.retry_on");
    CHECK(first_limit(yaml).message.find("1001 items, more than the limit of 1000") !=
          std::string::npos);

    const LoadResult dsl = load_dsl("rebound 1\nservice s\npolicy p {\n  retry on " +
                                    repeated("deadlock", 1001, ", ") + "\n}\n");
    CHECK(dsl.policy_set == nullptr);
    CHECK(first_limit(dsl).position.line == 4);
    CHECK(first_limit(dsl).message.find("1001 items") != std::string::npos);

    const LoadResult at_limit =
        load_yaml("rebound: 1\nservice: s\npolicies:\n  p:\n    retry_on: [" +
                  repeated("deadlock", 1000, ", ") + "]\n");
    CHECK(count_code(at_limit, DiagnosticCode::LimitExceeded) == 0);
}

TEST_CASE("names longer than the limit are reported where they are written", "[limits]") {
    const std::string long_name(rebound::dsl::kMaxNameBytes + 1, 'n');
    const LoadResult policy =
        load_yaml("rebound: 1\nservice: s\npolicies:\n  " + long_name + ": {}\n");
    CHECK(first_limit(policy).position.line == 4);
    CHECK(first_limit(policy).message.find("257 bytes is longer than the limit of 256") !=
          std::string::npos);

    const LoadResult service =
        load_dsl("rebound 1\nservice " + long_name + "\npolicy p {\n  attempts 3\n}\n");
    CHECK(first_limit(service).position.line == 2);

    const std::string at_limit(rebound::dsl::kMaxNameBytes, 'n');
    CHECK(load_yaml("rebound: 1\nservice: s\npolicies:\n  " + at_limit + ": {}\n").policy_set !=
          nullptr);
}

TEST_CASE("policies beyond the limit are reported at the first one and not read", "[limits]") {
    const LoadResult result = load_yaml(policies_yaml(rebound::dsl::kMaxPolicies + 5));
    CHECK(result.policy_set == nullptr);
    CHECK(first_limit(result).position.line == 4 + rebound::dsl::kMaxPolicies);
    CHECK(first_limit(result).field == "policies.p1000");
    CHECK(result.document.policies.size() == rebound::dsl::kMaxPolicies);
    CHECK(load_yaml(policies_yaml(rebound::dsl::kMaxPolicies)).policy_set != nullptr);
}

TEST_CASE("a text over the size limit is refused before it is parsed", "[limits]") {
    const std::string text = "rebound: 1\nservice: s\npolicies:\n  p: {}\n#" +
                             std::string(rebound::dsl::kMaxInputBytes, 'x');
    const LoadResult result = load_yaml(text);
    CHECK(result.policy_set == nullptr);
    REQUIRE(result.diagnostics.size() == 1);
    CHECK(result.diagnostics[0].code == DiagnosticCode::LimitExceeded);
    CHECK(result.diagnostics[0].message.find("more than the limit of 1048576") !=
          std::string::npos);
}

TEST_CASE("diagnostics stop at the limit with one more saying how many were left out", "[limits]") {
    std::string text = "rebound: 1\nservice: s\npolicies:\n  p:\n";
    for (int i = 0; i < 5000; ++i) {
        text += "    unknown_" + std::to_string(i) + ": 1\n";
    }
    const LoadResult result = load_yaml(text);
    REQUIRE(result.diagnostics.size() == rebound::dsl::kMaxDiagnostics + 1);
    CHECK(result.diagnostics.front().code == DiagnosticCode::UnknownKey);
    CHECK(result.diagnostics.back().code == DiagnosticCode::LimitExceeded);
    CHECK(result.diagnostics.back().message.find("4800 more diagnostics were left out") !=
          std::string::npos);
}

TEST_CASE("extends chains deeper than the limit are reported once at the first too deep",
          "[limits]") {
    CHECK(load_yaml(chain_yaml(rebound::dsl::kMaxExtendsDepth + 1)).policy_set != nullptr);

    // p33 is 33 levels below p0; p34..p999 extend it and are not checked further.
    const LoadResult deep = load_yaml(chain_yaml(1000));
    CHECK(deep.policy_set == nullptr);
    REQUIRE(count_code(deep, DiagnosticCode::LimitExceeded) == 1);
    CHECK(first_limit(deep).field == "policies.p33.extends");
    CHECK(first_limit(deep).position.line == 4 + 2 * 33 + 1);
}

TEST_CASE("a long circle of extends is reported once, from its first policy in the file",
          "[limits]") {
    // q0 is entered from r (before it in the file) but q0 comes first among the circle.
    std::string text = "rebound: 1\nservice: s\npolicies:\n  r:\n    extends: q5\n";
    for (int i = 0; i < 10; ++i) {
        text +=
            "  q" + std::to_string(i) + ":\n    extends: q" + std::to_string((i + 1) % 10) + "\n";
    }
    const LoadResult result = load_yaml(text);
    REQUIRE(result.diagnostics.size() == 1);
    CHECK(result.diagnostics[0].code == DiagnosticCode::ExtendsCycle);
    CHECK(result.diagnostics[0].message ==
          "policy 'q0' extends itself: q0 -> q1 -> q2 -> q3 -> q4 -> q5 -> q6 -> q7 -> q8 -> q9 "
          "-> q0");
    CHECK(result.diagnostics[0].position.line == 7);
}

TEST_CASE("running out of memory anywhere in loading is a diagnostic, never an exception",
          "[limits]") {
    const std::string text =
        "rebound: 1\nservice: s\npolicies:\n  base:\n    max_attempts: 3\n    retry_on: "
        "[deadlock, transient]\n  p:\n    extends: base\n    deadline: 2s\n";
    const std::string dsl =
        "rebound 1\nservice s\npolicy p {\n  attempts 3\n  retry on deadlock, transient\n}\n";
    std::size_t failures = 0;
    for (std::size_t nth = 1; nth < 4000; nth += 7) {
        for (const auto& [source, syntax] :
             {std::pair{&text, Syntax::Yaml}, std::pair{&dsl, Syntax::Text}}) {
            LoadResult result;
            bool failed = false;
            {
                const rebound::testing::FailOneAllocation fail(nth);
                REQUIRE_NOTHROW(result = load_text(*source, "svc", syntax));
                failed = fail.failed();
            }
            if (failed && result.policy_set == nullptr) {
                ++failures;
                INFO("allocation " << nth << " failed");
                CHECK(count_code(result, DiagnosticCode::LimitExceeded) == 1);
            }
        }
    }
    CHECK(failures > 10);
}

// Compiling policy files: YAML and DSL front ends plus validation and compilation, side by side
// with yaml-cpp's bare YAML::Load of the same YAML bytes (the floor any YAML front end stands on).
//
// The service file is generated: `policies` policies with a realistic spread of fields and
// `handlers` handler bindings, built as a Document and printed by the project's own emitters, so
// the YAML and the DSL texts describe exactly the same service.
#include <benchmark/benchmark.h>
#include <yaml-cpp/yaml.h>

#include <string>

#include "rebound/dsl/emit.hpp"
#include "rebound/dsl/load.hpp"

namespace {

using namespace std::chrono_literals;
using rebound::dsl::Document;
using rebound::dsl::Located;

template <typename T>
Located<T> at(T value) {
    return Located<T>{std::move(value), {}};
}

rebound::dsl::PolicyFields policy_fields(int i, int policies) {
    rebound::dsl::PolicyFields f;
    if (i % 4 == 3 && i > 0) {
        f.set(rebound::PolicyField::Extends, at(std::string("policy_") + std::to_string(i - 1)));
    }
    f.set(rebound::PolicyField::MaxAttempts, at<std::int64_t>(2 + i % 8));
    rebound::dsl::BackoffNode backoff;
    backoff.type = at(rebound::BackoffType::Exponential);
    backoff.initial = at(rebound::Duration(std::chrono::milliseconds(10 + i % 90)));
    backoff.multiplier = at(2.0 + (i % 3));
    backoff.max = at(rebound::Duration(std::chrono::seconds(5 + i % 50)));
    f.backoff = backoff;
    rebound::dsl::JitterNode jitter;
    jitter.type = at(i % 2 == 0 ? rebound::JitterType::Full : rebound::JitterType::Equal);
    f.jitter = jitter;
    f.set(rebound::PolicyField::Deadline, at(rebound::Duration(std::chrono::seconds(30 + i % 60))));
    f.set(rebound::PolicyField::MinAttemptBudget, at(rebound::Duration(100ms)));
    f.set(rebound::PolicyField::AttemptTimeout, at(rebound::Duration(5s)));
    rebound::dsl::ListNode<Located<rebound::Matcher>> retry_on;
    retry_on.items = {at(rebound::Matcher::transient()),
                      at(rebound::Matcher::sqlstate("40001")),
                      at(rebound::Matcher::sqlstate_class("08")),
                      at(rebound::Matcher::native(rebound::Vendor::MySql, 1205 + i % 10)),
                      at(rebound::Matcher::native(rebound::Vendor::SqlServer, 1205)),
                      at(rebound::Matcher::error_type("io.timeout")),
                      at(rebound::Matcher::http_status(503)),
                      at(rebound::Matcher::http_class(5)),
                      at(rebound::Matcher::message("try again"))};
    for (int code = 0; code < 30; ++code) {
        retry_on.items.push_back(
            at(rebound::Matcher::native(rebound::Vendor::Oracle, 60 + code * 7 + i % 5)));
    }
    for (int text = 0; text < 4; ++text) {
        retry_on.items.push_back(
            at(rebound::Matcher::message("temporarily unavailable " + std::to_string(text))));
    }
    f.retry_on = retry_on;
    rebound::dsl::ListNode<Located<std::string>> predicates;
    predicates.items = {at(std::string("is_idempotent_read")), at(std::string("is_replica_lag"))};
    f.retry_if = predicates;
    rebound::dsl::ListNode<Located<rebound::Matcher>> never;
    never.items = {at(rebound::Matcher::sqlstate_class("23")),
                   at(rebound::Matcher::of_category(rebound::ErrorCategory::SyntaxError)),
                   at(rebound::Matcher::of_category(rebound::ErrorCategory::PermissionDenied))};
    f.never_retry_on = never;
    if (i % 2 == 0) {
        f.set(rebound::PolicyField::OnExhausted, at(std::string("dead_letter")));
        rebound::dsl::BudgetNode budget;
        budget.max_tokens = at<std::int64_t>(100);
        budget.token_ratio = at(0.1);
        f.budget = budget;
        rebound::dsl::ListNode<rebound::dsl::RouteNode> routes;
        routes.items = {rebound::dsl::RouteNode{
                            at(rebound::Duration(10s)), at(std::string("svc.retry.10s")), {}},
                        rebound::dsl::RouteNode{
                            at(rebound::Duration(1min)), at(std::string("svc.retry.1m")), {}}};
        f.routes = routes;
    }
    (void)policies;
    return f;
}

Document service_document(int policies, int handlers) {
    Document d;
    d.version = at<std::int64_t>(1);
    d.service = at(std::string("generated"));
    d.has_policies_section = true;
    for (int i = 0; i < policies; ++i) {
        rebound::dsl::PolicyNode node;
        node.name = at("policy_" + std::to_string(i));
        node.fields = policy_fields(i, policies);
        d.policies.push_back(std::move(node));
    }
    for (int h = 0; h < handlers; ++h) {
        rebound::dsl::HandlerNode handler;
        handler.key = at(h % 10 == 0 ? "jobs.group" + std::to_string(h) + ".*"
                                     : "Handler" + std::to_string(h) + "Command");
        handler.policy = at("policy_" + std::to_string(h % policies));
        if (h % 3 == 0) {
            handler.idempotent = at(true);
        }
        d.handlers.push_back(std::move(handler));
    }
    d.default_policy = at(std::string("policy_0"));
    return d;
}

const Document& large_document() {
    static const Document document = service_document(500, 2000);
    return document;
}

// About 5 KB of YAML: the size of a typical service's policy file.
const Document& small_document() {
    static const Document document = service_document(2, 30);
    return document;
}

void compile_text(benchmark::State& state, const std::string& text, rebound::dsl::Syntax syntax) {
    for (auto _ : state) {
        auto result = rebound::dsl::load_text(text, "bench", syntax);
        if (!result.policy_set) {
            state.SkipWithError("generated file did not compile");
            break;
        }
        benchmark::DoNotOptimize(result.policy_set);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(text.size()));
    state.counters["file_bytes"] = static_cast<double>(text.size());
}

void BM_YamlLoadBare_1MB(benchmark::State& state) {
    const std::string text = rebound::dsl::emit_yaml(large_document());
    for (auto _ : state) {
        YAML::Node node = YAML::Load(text);
        benchmark::DoNotOptimize(node);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(text.size()));
    state.counters["file_bytes"] = static_cast<double>(text.size());
}

void BM_CompileYaml_1MB(benchmark::State& state) {
    compile_text(state, rebound::dsl::emit_yaml(large_document()), rebound::dsl::Syntax::Yaml);
}

void BM_CompileDsl_1MB(benchmark::State& state) {
    compile_text(state, rebound::dsl::emit_text(large_document()), rebound::dsl::Syntax::Text);
}

void BM_YamlLoadBare_Small(benchmark::State& state) {
    const std::string text = rebound::dsl::emit_yaml(small_document());
    for (auto _ : state) {
        YAML::Node node = YAML::Load(text);
        benchmark::DoNotOptimize(node);
    }
    state.counters["file_bytes"] = static_cast<double>(text.size());
}

void BM_CompileYaml_Small(benchmark::State& state) {
    compile_text(state, rebound::dsl::emit_yaml(small_document()), rebound::dsl::Syntax::Yaml);
}

void BM_CompileDsl_Small(benchmark::State& state) {
    compile_text(state, rebound::dsl::emit_text(small_document()), rebound::dsl::Syntax::Text);
}

}  // namespace

BENCHMARK(BM_YamlLoadBare_1MB)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CompileYaml_1MB)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CompileDsl_1MB)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_YamlLoadBare_Small)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CompileYaml_Small)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CompileDsl_Small)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();

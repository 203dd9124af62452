// `rebound lint` time against file size for the shapes that used to blow up (issue 17):
// `extends` chains, one list aliased into many policies, wide lists, many policies. Sizes go
// from about 1 KB to the limits of docs/policy-format.md (Limits) and past them, where loading
// stops early with RB112. The goal (docs/performance.md): time grows linearly with size, and
// nothing takes more than 2 s or 512 MB. Counters: the file's bytes, the process's peak
// resident memory so far (ru_maxrss, a high-water mark over the whole run).
//
//   build/bench/rebound_hostile_lint_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <string>

#include "rebound/lint/linter.hpp"

namespace {

std::string header() {
    return "rebound: 1\nservice: s\npolicies:\n";
}

// p0 <- p1 <- ... : every policy extends the one before it.
std::string chain(std::int64_t policies) {
    std::string text = header() + "  p0:\n    max_attempts: 3\n    retry_on: [deadlock]\n";
    for (std::int64_t i = 1; i < policies; ++i) {
        text += "  p" + std::to_string(i) + ": {extends: p" + std::to_string(i - 1) + "}\n";
    }
    return text;
}

// One list of 900 items anchored in p0 and aliased into every other policy.
std::string aliases(std::int64_t policies) {
    std::string text = header() + "  p0:\n    max_attempts: 3\n    retry_on: &codes [";
    for (int i = 0; i < 900; ++i) {
        text += i == 0 ? "deadlock" : ", deadlock";
    }
    text += "]\n";
    for (std::int64_t i = 1; i < policies; ++i) {
        text += "  p" + std::to_string(i) + ": {max_attempts: 3, retry_on: *codes}\n";
    }
    return text;
}

// One policy whose retry_on has `items` SQLSTATEs.
std::string wide_list(std::int64_t items) {
    std::string text = header() + "  p:\n    max_attempts: 3\n    retry_on: [";
    for (std::int64_t i = 0; i < items; ++i) {
        text += (i == 0 ? "" : ", ") + std::string("{sqlstate: \"40") +
                std::to_string(100 + i % 900) + "\"}";
    }
    return text + "]\n";
}

std::string many_policies(std::int64_t policies) {
    std::string text = header();
    for (std::int64_t i = 0; i < policies; ++i) {
        text += "  p" + std::to_string(i) +
                ": {max_attempts: 3, deadline: 2s, jitter: full, retry_on: [deadlock]}\n";
    }
    return text;
}

double peak_resident_megabytes() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

template <std::string (*Make)(std::int64_t)>
void lint_time(benchmark::State& state) {
    const std::string text = Make(state.range(0));
    const rebound::lint::Linter linter;
    for (auto _ : state) {
        benchmark::DoNotOptimize(linter.lint_text(text, "bench.yaml", rebound::dsl::Syntax::Yaml));
    }
    state.counters["bytes"] = static_cast<double>(text.size());
    state.counters["peak_MB"] = peak_resident_megabytes();
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(text.size()));
}

}  // namespace

// An extends chain deeper than 32 parents is RB112 at the first policy too deep, and the policies
// extending it are not checked: 8 to 32 grow with the resolved chain, 64 to 1,000 policies with
// the reading alone, and 4,000 and 10,000 are beyond the 1,000-policy limit (the rest not read).
BENCHMARK(lint_time<chain>)
    ->Name("chain")
    ->Arg(8)
    ->Arg(16)
    ->Arg(32)
    ->Arg(64)
    ->Arg(256)
    ->Arg(1000)
    ->Arg(4000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond);
// 100,000 values is the limit: 111 policies reusing 900 items; 1,000 is the file.
BENCHMARK(lint_time<aliases>)
    ->Name("aliases")
    ->Arg(2)
    ->Arg(16)
    ->Arg(64)
    ->Arg(111)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond);
// 1,000 items is the limit; 40,000 (840 KB) is beyond it, 100,000 (2 MB) beyond the size limit.
BENCHMARK(lint_time<wide_list>)
    ->Name("wide_list")
    ->Arg(16)
    ->Arg(128)
    ->Arg(1000)
    ->Arg(40000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(lint_time<many_policies>)
    ->Name("many_policies")
    ->Arg(16)
    ->Arg(64)
    ->Arg(256)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();

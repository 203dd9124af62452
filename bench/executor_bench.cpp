// Benchmarks of the executor, handler lookup and shared-policy decisions (docs/performance.md,
// section "Executor and handler lookup").
//
// Cases (the names are stable: bench/run.sh and the goals refer to them):
//   executor_overhead/direct_call       the work called directly: the floor
//   executor_overhead/run_resolved      RetryExecutor::run(resolution, handler, work), success on
//                                       the first attempt, no listeners, a policy without a
//                                       deadline (so the run reads no clock)
//                                       goal: run_resolved - direct_call <= 30 ns
//   executor_overhead/run_resolved_measured
//                                       run_resolved with ExecutorOptions::measure_elapsed: two
//                                       steady_clock reads (start and end) for RunResult::elapsed,
//                                       what every run under a policy with a deadline pays
//   executor_overhead/run_resolved_coarse_clock
//                                       run_resolved_measured with a CLOCK_MONOTONIC_COARSE clock
//   executor_overhead/steady_clock_now  one std::chrono::steady_clock::now(), for reference
//   executor_overhead/run_metrics_counters
//                                       run_resolved with a RetryMetrics listener without its
//                                       duration histograms (durations = false: no clock read)
//   executor_overhead/run_metrics_histograms_frozen_clock
//                                       the same with the histograms, and a clock that always
//                                       answers one instant: what recording the two histograms
//                                       costs, without the clock
//                                       goal: - run_metrics_counters <= 5 ns
//   executor_overhead/run_metrics_histograms
//                                       the same with the steady clock: two reads per run
//   executor_overhead/run_by_handler    RetryExecutor::run(handler, work) through
//                                       dsl::make_resolver (store snapshot, registry, file)
//   handler_lookup/unordered_map_string a baseline: std::unordered_map<std::string, ...> looked
//                                       up with a std::string built from the string_view (a heap
//                                       allocation per lookup)
//   handler_lookup/unordered_map_transparent
//                                       a baseline without allocation: the same map with a
//                                       transparent hash, looked up with the string_view (C++20
//                                       heterogeneous lookup)
//   handler_lookup/absl_flat_hash_map   a baseline without allocation: absl::flat_hash_map
//                                       (Debian's libabsl-dev), looked up with the string_view
//   handler_lookup/policy_set_resolve   PolicySet::resolve (exact binding)
//   handler_lookup/registry_resolve     HandlerRegistry::resolve against the PolicySet (returns
//                                       a HandlerResolution: one reference count on the policy)
//   handler_lookup/registry_choose      HandlerRegistry::choose, what the resolver calls per
//                                       run: the same choice as views, no reference counting
//   handler_lookup/registry_resolve_by_tier
//                                       registry_resolve against a file without bindings, so
//                                       every handler resolves by its registered tier (both the
//                                       file and the registry are probed)
//   handler_lookup/directory_resolver   the whole resolver of dsl::make_resolver (takes the
//                                       store's snapshot, finds the service, then as above)
//                                       goal: registry_resolve <= 20 ns,
//                                             <= 0.5 x unordered_map_string,
//                                             <= 1.0 x unordered_map_transparent and
//                                             <= 1.2 x absl_flat_hash_map
//   decide_shared_policy/no_budget/threads:N    decide() on one policy shared by N threads
//   decide_shared_policy/with_budget/threads:N  the same policy with a retry budget (every
//                                       iteration takes a token and gives one back)
//                                       goal: items_per_second at threads:2 >= 1.8 x threads:1
//
// `rebound_executor_bench --runs CASE COUNT` runs COUNT iterations of the overhead case CASE
// (direct_call, run_resolved, run_metrics_counters, run_metrics_histograms_frozen_clock) without
// timing them, for bench/executor_instructions.sh to count instructions per run with cachegrind.
//
// Handler lookup uses 1,000 registered handlers with names of 24 to 48 characters, each bound
// exactly in the service file, and looks them up in a scattered order. Before anything is timed,
// every baseline map must answer every handler with the policy (and idempotence) the registry
// resolves it to; the program exits 1 otherwise.

#include <absl/container/flat_hash_map.h>
#include <benchmark/benchmark.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rebound/decision.hpp"
#include "rebound/dsl/policy_directory.hpp"
#include "rebound/handler_registry.hpp"
#include "rebound/policy.hpp"
#include "rebound/policy_set.hpp"
#include "rebound/random_source.hpp"
#include "rebound/retry_executor.hpp"
#include "rebound/retry_metrics.hpp"

namespace {

using namespace std::chrono_literals;

constexpr std::size_t kHandlerCount = 1000;
// Co-prime with kHandlerCount: consecutive lookups land far apart.
constexpr std::size_t kLookupStride = 617;

std::shared_ptr<const rebound::Policy> make_policy(const std::string& name, bool with_budget) {
    rebound::PolicyBuilder builder(name);
    builder.max_attempts(5)
        .backoff(rebound::Backoff::exponential(50ms, 2.0, 2s))
        .jitter(rebound::Jitter::full())
        .retry_on(rebound::Matcher::transient());
    if (with_budget) {
        builder.budget({.max_tokens = 100, .token_ratio = 1.0});
    }
    return builder.build();
}

// Names of 24 to 48 characters, dotted like real handler names.
std::vector<std::string> make_handler_names() {
    static constexpr std::string_view areas[] = {"orders", "billing", "shipping", "catalog",
                                                 "accounts"};
    std::vector<std::string> names;
    names.reserve(kHandlerCount);
    for (std::size_t i = 0; i < kHandlerCount; ++i) {
        std::string name = std::string(areas[i % 5]) + ".commands.Handle";
        const std::size_t length = 24 + (i * 7) % 25;  // 24..48
        std::string suffix = std::to_string(i);
        while (name.size() + suffix.size() < length) {
            name.push_back(static_cast<char>('A' + (name.size() + i) % 26));
        }
        name += suffix;
        names.push_back(std::move(name));
    }
    return names;
}

struct LookupFixture {
    std::vector<std::string> names = make_handler_names();
    std::vector<std::shared_ptr<const rebound::Policy>> policies;
    std::shared_ptr<const rebound::PolicySet> set;
    std::shared_ptr<const rebound::PolicySet> set_without_bindings;
    rebound::HandlerRegistry registry;
    rebound::dsl::PolicyDirectoryStore store;
    rebound::PolicyResolver resolver;

    LookupFixture() {
        for (const char* name : {"interactive", "background", "batch", "critical"}) {
            policies.push_back(make_policy(name, false));
        }
        std::vector<rebound::HandlerBinding> bindings;
        for (std::size_t i = 0; i < names.size(); ++i) {
            bindings.push_back({names[i], policies[i % policies.size()]->name(), i % 3 == 0});
            registry.add({.name = names[i], .tier = "interactive"});
        }
        bindings.push_back({"orders.*", "background", false});
        bindings.push_back({"billing.commands.*", "batch", false});
        set = std::make_shared<const rebound::PolicySet>("payments", policies, std::move(bindings),
                                                         "interactive");
        set_without_bindings = std::make_shared<const rebound::PolicySet>(
            "payments", policies, std::vector<rebound::HandlerBinding>{}, "background");
        store.replace(std::make_shared<const rebound::dsl::PolicyDirectory>(
            "/etc/rebound", rebound::dsl::PolicyDirectory::Services{{"payments", set}},
            std::vector<std::filesystem::path>{}));
        resolver = rebound::dsl::make_resolver(store, registry, "payments");
    }

    static const LookupFixture& instance() {
        static const LookupFixture fixture;
        return fixture;
    }
};

// The names to look up, in a scattered order, as views (how a service holds its handler names).
std::vector<std::string_view> lookup_order(const LookupFixture& fixture) {
    std::vector<std::string_view> order;
    order.reserve(kHandlerCount);
    for (std::size_t i = 0; i < kHandlerCount; ++i) {
        order.emplace_back(fixture.names[(i * kLookupStride) % kHandlerCount]);
    }
    return order;
}

template <typename Lookup>
void run_lookups(benchmark::State& state, Lookup&& lookup) {
    const std::vector<std::string_view> order = lookup_order(LookupFixture::instance());
    std::size_t next = 0;
    for (auto _ : state) {
        lookup(order[next]);
        next = next + 1 == order.size() ? 0 : next + 1;
    }
    state.SetItemsProcessed(state.iterations());
}

// What the baseline maps hold per handler: the policy a binding names, as the registry answers.
struct BaselineEntry {
    const rebound::Policy* policy;
    bool idempotent;
};

struct TransparentStringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const noexcept {
        return std::hash<std::string_view>{}(text);
    }
};

using StringMap = std::unordered_map<std::string, BaselineEntry>;
using TransparentMap =
    std::unordered_map<std::string, BaselineEntry, TransparentStringHash, std::equal_to<>>;
// absl's default hash and equality for std::string keys accept absl::string_view (no allocation).
using AbslMap = absl::flat_hash_map<std::string, BaselineEntry>;

template <typename Map>
const Map& baseline_map() {
    static const Map map = [] {
        const LookupFixture& fixture = LookupFixture::instance();
        Map filled;
        for (std::size_t i = 0; i < fixture.names.size(); ++i) {
            filled.emplace(
                fixture.names[i],
                BaselineEntry{fixture.policies[i % fixture.policies.size()].get(), i % 3 == 0});
        }
        return filled;
    }();
    return map;
}

BaselineEntry find_string(std::string_view name) {
    return baseline_map<StringMap>().find(std::string(name))->second;
}
BaselineEntry find_transparent(std::string_view name) {
    return baseline_map<TransparentMap>().find(name)->second;
}
// Debian's Abseil has its own string_view (ABSL_OPTION_USE_STD_STRING_VIEW 0): a view of the same
// characters, no copy.
absl::string_view absl_view(std::string_view name) {
    return {name.data(), name.size()};
}

BaselineEntry find_absl(std::string_view name) {
    return baseline_map<AbslMap>().find(absl_view(name))->second;
}

// Every baseline answers every handler as the registry does. Prints the first difference.
bool baselines_match_registry() {
    const LookupFixture& fixture = LookupFixture::instance();
    for (const std::string& name : fixture.names) {
        const rebound::HandlerResolution expected =
            fixture.registry.resolve(name, fixture.set.get());
        if (expected.via != rebound::ResolvedVia::Binding) {
            std::fprintf(stderr, "executor_bench: %s is not resolved by its binding\n",
                         name.c_str());
            return false;
        }
        for (const auto& [baseline, find] :
             {std::pair{"unordered_map_string", &find_string},
              std::pair{"unordered_map_transparent", &find_transparent},
              std::pair{"absl_flat_hash_map", &find_absl}}) {
            const BaselineEntry entry = find(name);
            if (entry.policy != expected.policy.get() || entry.idempotent != expected.idempotent) {
                std::fprintf(stderr,
                             "executor_bench: %s answers %s differently from the registry\n",
                             baseline, name.c_str());
                return false;
            }
        }
    }
    return true;
}

void lookup_unordered_map_string(benchmark::State& state) {
    const StringMap& map = baseline_map<StringMap>();
    run_lookups(state, [&map](std::string_view name) {
        const auto it = map.find(std::string(name));
        benchmark::DoNotOptimize(it->second.policy);
    });
}

void lookup_unordered_map_transparent(benchmark::State& state) {
    const TransparentMap& map = baseline_map<TransparentMap>();
    run_lookups(state, [&map](std::string_view name) {
        const auto it = map.find(name);
        benchmark::DoNotOptimize(it->second.policy);
    });
}

void lookup_absl_flat_hash_map(benchmark::State& state) {
    const AbslMap& map = baseline_map<AbslMap>();
    run_lookups(state, [&map](std::string_view name) {
        const auto it = map.find(absl_view(name));
        benchmark::DoNotOptimize(it->second.policy);
    });
}

void lookup_policy_set_resolve(benchmark::State& state) {
    const rebound::PolicySet& set = *LookupFixture::instance().set;
    run_lookups(state, [&set](std::string_view name) {
        const rebound::HandlerResolution resolution = set.resolve(name);
        benchmark::DoNotOptimize(resolution.policy.get());
    });
}

void lookup_registry_resolve(benchmark::State& state) {
    const LookupFixture& fixture = LookupFixture::instance();
    run_lookups(state, [&fixture](std::string_view name) {
        const rebound::HandlerResolution resolution =
            fixture.registry.resolve(name, fixture.set.get());
        benchmark::DoNotOptimize(resolution.policy.get());
    });
}

void lookup_registry_resolve_by_tier(benchmark::State& state) {
    const LookupFixture& fixture = LookupFixture::instance();
    run_lookups(state, [&fixture](std::string_view name) {
        const rebound::HandlerResolution resolution =
            fixture.registry.resolve(name, fixture.set_without_bindings.get());
        benchmark::DoNotOptimize(resolution.policy.get());
    });
}

void lookup_registry_choose(benchmark::State& state) {
    const LookupFixture& fixture = LookupFixture::instance();
    run_lookups(state, [&fixture](std::string_view name) {
        const rebound::HandlerRegistry::Choice choice =
            fixture.registry.choose(name, fixture.set.get());
        benchmark::DoNotOptimize(choice.policy);
    });
}

void lookup_directory_resolver(benchmark::State& state) {
    const LookupFixture& fixture = LookupFixture::instance();
    run_lookups(state, [&fixture](std::string_view name) {
        const rebound::HandlerResolution resolution = fixture.resolver(name);
        benchmark::DoNotOptimize(resolution.policy.get());
    });
}

// The work of the overhead cases: as small as a call can be, but not optimised away.
struct CountingWork {
    std::uint64_t* count;
    void operator()(const rebound::AttemptInfo&) const { benchmark::DoNotOptimize(++*count); }
};

[[gnu::noinline]] void call_directly(const CountingWork& work, const rebound::AttemptInfo& info) {
    work(info);
}

void overhead_direct_call(benchmark::State& state) {
    std::uint64_t count = 0;
    const CountingWork work{&count};
    const rebound::AttemptInfo info;
    for (auto _ : state) {
        call_directly(work, info);
    }
    state.SetItemsProcessed(state.iterations());
}

// Runs work that succeeds at once through `executor` under the policy bound to the first handler,
// once per iteration of `loop` (a benchmark::State, or a Times).
template <typename Loop>
void run_resolved_loop(Loop& loop, const rebound::RetryExecutor& executor) {
    const LookupFixture& fixture = LookupFixture::instance();
    const rebound::HandlerResolution resolution = fixture.set->resolve(fixture.names[0]);
    std::uint64_t count = 0;
    const CountingWork work{&count};
    for (auto _ : loop) {
        const rebound::RunResult result = executor.run(resolution, fixture.names[0], work);
        benchmark::DoNotOptimize(result.attempts);
    }
}

void run_resolved_with(benchmark::State& state, const rebound::RetryExecutor& executor) {
    run_resolved_loop(state, executor);
    state.SetItemsProcessed(state.iterations());
}

// A loop of a fixed number of iterations, for --runs.
struct Times {
    long count;
    struct [[gnu::unused]] Tick {};  // what `for (auto _ : ...)` names, unused as State's
    struct Iterator {
        long left;
        Tick operator*() const { return {}; }
        Iterator& operator++() {
            --left;
            return *this;
        }
        bool operator!=(const Iterator& other) const { return left != other.left; }
    };
    Iterator begin() const { return {count}; }
    Iterator end() const { return {0}; }
};

void overhead_run_resolved(benchmark::State& state) {
    run_resolved_with(state, rebound::RetryExecutor{});
}

void overhead_run_resolved_measured(benchmark::State& state) {
    run_resolved_with(state, rebound::RetryExecutor({.measure_elapsed = true}));
}

// CLOCK_MONOTONIC_COARSE: the same epoch as steady_clock, a few milliseconds of resolution.
class CoarseClock final : public rebound::Clock {
  public:
    TimePoint now() const noexcept override {
        timespec now{};
        clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
        return TimePoint(std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec));
    }
};

void overhead_run_resolved_coarse_clock(benchmark::State& state) {
    CoarseClock clock;
    run_resolved_with(state, rebound::RetryExecutor({.clock = &clock, .measure_elapsed = true}));
}

// A clock that always answers the same instant: a virtual call and nothing more.
class FrozenClock final : public rebound::Clock {
  public:
    TimePoint now() const noexcept override { return TimePoint{}; }
};

void overhead_run_metrics_counters(benchmark::State& state) {
    rebound::RetryMetrics metrics({.durations = false});
    run_resolved_with(state, rebound::RetryExecutor({.listeners = {&metrics}}));
}

void overhead_run_metrics_histograms_frozen_clock(benchmark::State& state) {
    FrozenClock clock;
    rebound::RetryMetrics metrics;
    run_resolved_with(state, rebound::RetryExecutor({.clock = &clock, .listeners = {&metrics}}));
}

void overhead_run_metrics_histograms(benchmark::State& state) {
    rebound::RetryMetrics metrics;
    run_resolved_with(state, rebound::RetryExecutor({.listeners = {&metrics}}));
}

// --runs CASE COUNT: COUNT iterations of an overhead case, untimed. False for an unknown case.
bool run_untimed(std::string_view name, long count) {
    Times times{count};
    if (name == "direct_call") {
        std::uint64_t calls = 0;
        const CountingWork work{&calls};
        const rebound::AttemptInfo info;
        for (auto _ : times) {
            call_directly(work, info);
        }
        return true;
    }
    FrozenClock frozen;
    rebound::RetryMetrics counters({.durations = false});
    rebound::RetryMetrics histograms;
    if (name == "run_resolved") {
        run_resolved_loop(times, rebound::RetryExecutor{});
    } else if (name == "run_metrics_counters") {
        run_resolved_loop(times, rebound::RetryExecutor({.listeners = {&counters}}));
    } else if (name == "run_metrics_histograms_frozen_clock") {
        run_resolved_loop(times,
                          rebound::RetryExecutor({.clock = &frozen, .listeners = {&histograms}}));
    } else {
        return false;
    }
    return true;
}

void overhead_steady_clock_now(benchmark::State& state) {
    for (auto _ : state) {
        benchmark::DoNotOptimize(std::chrono::steady_clock::now());
    }
    state.SetItemsProcessed(state.iterations());
}

void overhead_run_by_handler(benchmark::State& state) {
    const LookupFixture& fixture = LookupFixture::instance();
    const rebound::RetryExecutor executor({.resolver = fixture.resolver});
    std::uint64_t count = 0;
    const CountingWork work{&count};
    const std::vector<std::string_view> order = lookup_order(fixture);
    std::size_t next = 0;
    for (auto _ : state) {
        const rebound::RunResult result = executor.run(order[next], work);
        benchmark::DoNotOptimize(result.attempts);
        next = next + 1 == order.size() ? 0 : next + 1;
    }
    state.SetItemsProcessed(state.iterations());
}

// One decision per iteration on a policy shared by every benchmark thread. With a budget, each
// iteration also gives a token back (record_success), so the budget never empties and every
// iteration touches its shared atomic twice.
void decide_shared(benchmark::State& state, bool with_budget) {
    static const std::shared_ptr<const rebound::Policy> plain = make_policy("plain", false);
    static const std::shared_ptr<const rebound::Policy> budgeted = make_policy("budgeted", true);
    const rebound::Policy& policy = with_budget ? *budgeted : *plain;
    const auto thread = static_cast<std::uint64_t>(state.thread_index());
    rebound::SeededRandomSource random(std::uint64_t{0x5eed} + thread);
    rebound::ErrorDescription error;
    error.category = rebound::ErrorCategory::Deadlock;
    rebound::AttemptContext context;
    int attempt = 1;
    for (auto _ : state) {
        context.attempt = attempt;
        const rebound::Decision decision = rebound::decide(policy, error, context, random);
        benchmark::DoNotOptimize(decision.delay);
        if (with_budget) {
            policy.record_success();
        }
        attempt = attempt == 4 ? 1 : attempt + 1;
    }
    state.SetItemsProcessed(state.iterations());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 4 && std::string_view(argv[1]) == "--runs") {
        if (!run_untimed(argv[2], std::stol(argv[3]))) {
            std::fprintf(stderr, "rebound_executor_bench: no case %s\n", argv[2]);
            return 1;
        }
        return 0;
    }
    // The overhead cases report their fastest repetition (statistic "min") too: their goals are
    // judged on it (noise from the machine only ever slows a repetition).
    const std::pair<const char*, void (*)(benchmark::State&)> overhead_cases[] = {
        {"executor_overhead/direct_call", overhead_direct_call},
        {"executor_overhead/run_resolved", overhead_run_resolved},
        {"executor_overhead/run_resolved_measured", overhead_run_resolved_measured},
        {"executor_overhead/run_resolved_coarse_clock", overhead_run_resolved_coarse_clock},
        {"executor_overhead/steady_clock_now", overhead_steady_clock_now},
        {"executor_overhead/run_metrics_counters", overhead_run_metrics_counters},
        {"executor_overhead/run_metrics_histograms_frozen_clock",
         overhead_run_metrics_histograms_frozen_clock},
        {"executor_overhead/run_metrics_histograms", overhead_run_metrics_histograms},
        {"executor_overhead/run_by_handler", overhead_run_by_handler},
    };
    for (const auto& [name, body] : overhead_cases) {
        benchmark::RegisterBenchmark(name, body)
            ->ComputeStatistics("min", [](const std::vector<double>& times) {
                return *std::min_element(times.begin(), times.end());  // never empty
            });
    }
    if (!baselines_match_registry()) {
        return 1;
    }
    benchmark::RegisterBenchmark("handler_lookup/unordered_map_string",
                                 lookup_unordered_map_string);
    benchmark::RegisterBenchmark("handler_lookup/unordered_map_transparent",
                                 lookup_unordered_map_transparent);
    benchmark::RegisterBenchmark("handler_lookup/absl_flat_hash_map", lookup_absl_flat_hash_map);
    benchmark::RegisterBenchmark("handler_lookup/policy_set_resolve", lookup_policy_set_resolve);
    benchmark::RegisterBenchmark("handler_lookup/registry_resolve", lookup_registry_resolve);
    benchmark::RegisterBenchmark("handler_lookup/registry_choose", lookup_registry_choose);
    benchmark::RegisterBenchmark("handler_lookup/registry_resolve_by_tier",
                                 lookup_registry_resolve_by_tier);
    benchmark::RegisterBenchmark("handler_lookup/directory_resolver", lookup_directory_resolver);
    for (const bool with_budget : {false, true}) {
        benchmark::RegisterBenchmark(
            with_budget ? "decide_shared_policy/with_budget" : "decide_shared_policy/no_budget",
            [with_budget](benchmark::State& state) { decide_shared(state, with_budget); })
            ->Threads(1)
            ->Threads(2)
            ->UseRealTime();
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
        return 1;
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

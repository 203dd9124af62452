// The timed loop, the checks that run before anything is timed, and benchmark registration.
#pragma once

#include "allocation_counter.hpp"
#include "common.hpp"
#include "hand_written_baseline.hpp"

namespace decision_bench {
namespace {

// ---------------------------------------------------------------------------------------------
// The loop

// The contexts of a retry loop: attempts 1..4 over and over, elapsed growing with the attempt,
// the previous decision's delay fed back.
class ContextSequence {
  public:
    AttemptContext next() noexcept {
        AttemptContext context;
        context.attempt = 1 + static_cast<int>(i_ % kAttemptCycle);
        context.elapsed = Duration{std::int64_t{250'000} * context.attempt};
        context.previous_delay = context.attempt == 1 ? Duration{0} : previous_;
        ++i_;
        return context;
    }
    void record(const Decision& d) noexcept { previous_ = d.delay; }

  private:
    std::uint32_t i_ = 0;
    Duration previous_{0};
};

// One iteration of a case's loop: the next attempt's context, a decision, the success hook.
template <typename Decide, typename OnSuccess>
void decide_next(ContextSequence& contexts, SeededRandomSource& random, Decide& decide,
                 OnSuccess& on_success) {
    const AttemptContext context = contexts.next();
    Decision decision = decide(context, random);
    benchmark::DoNotOptimize(decision);
    contexts.record(decision);
    on_success();
}

template <typename Decide, typename OnSuccess>
void run(benchmark::State& state, Decide decide, OnSuccess on_success) {
    SeededRandomSource random(kSeed);
    ContextSequence contexts;
    const std::size_t allocations_before = rebound::testing::allocations_on_this_thread();
    for (auto _ : state) {
        decide_next(contexts, random, decide, on_success);
    }
    const std::size_t allocations =
        rebound::testing::allocations_on_this_thread() - allocations_before;
    state.counters["allocs_per_op"] =
        benchmark::Counter(static_cast<double>(allocations), benchmark::Counter::kAvgIterations);
}

// What every decision of a case must be.
enum class Expect : std::uint8_t { Retry, NonRetryable };

using BaselineFunction = Decision(const ErrorDescription&, const AttemptContext&,
                                  SeededRandomSource&) noexcept;

struct Case {
    std::string name;
    std::shared_ptr<const rebound::Policy> policy;
    ErrorDescription error;
    BaselineFunction* baseline;
    bool with_budget;
    Expect expect;
    void (*register_benchmarks)(const Case&);
};

bool same(const Decision& a, const Decision& b) noexcept {
    return a.retry == b.retry && a.reason == b.reason && a.delay == b.delay &&
           a.next_attempt == b.next_attempt && a.category == b.category && a.matched == b.matched &&
           a.route == b.route;
}

void print(const char* side, const Decision& d) {
    std::fprintf(stderr, "  %-8s retry=%d reason=%s delay=%lldus next=%d matched='%.*s'\n", side,
                 d.retry ? 1 : 0, std::string(rebound::to_string(d.reason)).c_str(),
                 static_cast<long long>(d.delay.count()), d.next_attempt,
                 static_cast<int>(d.matched.size()), d.matched.data());
}

// Both sides of `c` must agree decision for decision, and every decision must be as expected.
bool verify(const Case& c) {
    SeededRandomSource engine_random(kSeed);
    SeededRandomSource hand_random(kSeed);
    ContextSequence engine_contexts;
    ContextSequence hand_contexts;
    for (int i = 0; i < kVerifyIterations; ++i) {
        const AttemptContext engine_context = engine_contexts.next();
        const AttemptContext hand_context = hand_contexts.next();
        const Decision engine = rebound::decide(*c.policy, c.error, engine_context, engine_random);
        const Decision hand = c.baseline(c.error, hand_context, hand_random);
        engine_contexts.record(engine);
        hand_contexts.record(hand);
        if (c.with_budget) {
            c.policy->record_success();
            hand::g_budget.give();
        }
        const bool expected =
            c.expect == Expect::Retry
                ? engine.retry
                : engine.reason == DecisionReason::NonRetryable && engine.matched.empty();
        if (!same(engine, hand) || !expected) {
            std::fprintf(stderr, "%s: iteration %d (attempt %d): %s\n", c.name.c_str(), i,
                         engine_context.attempt,
                         expected ? "the two sides disagree" : "unexpected decision");
            print("rebound", engine);
            print("baseline", hand);
            return false;
        }
    }
    return true;
}

// The hand-written side numbers the rules as the policy does.
bool verify_rule_texts(const rebound::Policy& policy) {
    bool ok = policy.spec().retry_on.size() == hand::kRetryOnText.size() &&
              policy.spec().never_retry_on.size() == hand::kNeverRetryOnText.size();
    for (std::size_t i = 0; ok && i < hand::kRetryOnText.size(); ++i) {
        ok = policy.retry_on_text(i) == hand::kRetryOnText[i];
    }
    for (std::size_t i = 0; ok && i < hand::kNeverRetryOnText.size(); ++i) {
        ok = policy.never_retry_on_text(i) == hand::kNeverRetryOnText[i];
    }
    if (!ok) {
        std::fprintf(stderr, "the hand-written rules are not numbered as the policy's\n");
    }
    return ok;
}

// Registers the benchmark `name` running `body(state)`, with the fastest repetition (statistic
// "min") beside the mean, median and spread Google Benchmark reports: noise from the machine only
// ever slows a repetition, so a median well above the fastest shows repetitions that the host
// slowed, not a slower decision (bench/report.py says so per case; the goals stay on the median).
template <typename Body>
void register_timed(const std::string& name, Body body) {
    benchmark::RegisterBenchmark(name.c_str(), std::move(body))
        ->ComputeStatistics("min", [](const std::vector<double>& times) {
            return *std::min_element(times.begin(), times.end());  // never empty
        });
}

// Registers `<name>/rebound` and `<name>/baseline`. The baseline is a template argument so that
// both sides make a direct call.
template <BaselineFunction* kBaseline, bool kWithBudget>
void register_benchmarks(const Case& c) {
    register_timed(c.name + "/rebound", [c](benchmark::State& state) {
        run(
            state,
            [&c](const AttemptContext& context, SeededRandomSource& random) {
                return rebound::decide(*c.policy, c.error, context, random);
            },
            [&c] {
                if constexpr (kWithBudget) {
                    c.policy->record_success();
                }
            });
    });
    register_timed(c.name + "/baseline", [c](benchmark::State& state) {
        run(
            state,
            [&c](const AttemptContext& context, SeededRandomSource& random) {
                return kBaseline(c.error, context, random);
            },
            [] {
                if constexpr (kWithBudget) {
                    hand::g_budget.give();
                }
            });
    });
}

// A model must take the engine's retry/stop decisions (retry flag, reason, next attempt,
// category) on every one of the verification iterations; `delay_ok(context, model, engine)`
// judges its delay.
template <typename Model, typename OnSuccess, typename DelayOk>
bool verify_model(const Case& c, const std::string& name, Model model, OnSuccess on_success,
                  DelayOk delay_ok) {
    SeededRandomSource engine_random(kSeed);
    SeededRandomSource model_random(kSeed);
    ContextSequence engine_contexts;
    ContextSequence model_contexts;
    for (int i = 0; i < kVerifyIterations; ++i) {
        const AttemptContext engine_context = engine_contexts.next();
        const AttemptContext model_context = model_contexts.next();
        const Decision engine = rebound::decide(*c.policy, c.error, engine_context, engine_random);
        const Decision modelled = model(model_context, model_random);
        engine_contexts.record(engine);
        model_contexts.record(modelled);
        if (c.with_budget) {
            c.policy->record_success();
            on_success();
        }
        if (engine.retry != modelled.retry || engine.reason != modelled.reason ||
            engine.next_attempt != modelled.next_attempt || engine.category != modelled.category ||
            !delay_ok(model_context, modelled, engine)) {
            std::fprintf(stderr, "%s: iteration %d (attempt %d): the model disagrees\n",
                         name.c_str(), i, engine_context.attempt);
            print("rebound", engine);
            print("model", modelled);
            return false;
        }
    }
    return true;
}

// Full jitter of the simple policy: a delay in [0, base(attempt)] when retrying, 0 otherwise.
bool in_full_jitter_range(const AttemptContext& context, const Decision& d, const Decision&) {
    if (!d.retry) {
        return d.delay == Duration{0};
    }
    const std::int64_t base = hand::kSimpleBase[static_cast<std::size_t>(context.attempt - 1)];
    return d.delay.count() >= 0 && d.delay.count() <= base;
}

// Registers `name`; `make_model()` builds the model's state in the benchmark's thread.
template <typename MakeModel, typename OnSuccess>
void register_model(const std::string& name, MakeModel make_model, OnSuccess on_success) {
    register_timed(name, [make_model, on_success](benchmark::State& state) {
        auto model = make_model();
        run(state, std::move(model), on_success);
    });
}

// `count` decisions of one side of a case, untimed, for counting instructions under a simulator
// (bench/decision_instructions.sh): the loop of run() without Google Benchmark around it.
void run_decisions(const Case& c, bool baseline, long count) {
    SeededRandomSource random(kSeed);
    ContextSequence contexts;
    auto decide = [&c, baseline](const AttemptContext& context, SeededRandomSource& source) {
        return baseline ? c.baseline(c.error, context, source)
                        : rebound::decide(*c.policy, c.error, context, source);
    };
    // As register_benchmarks(): each side gives its own budget its token back.
    auto on_success = [&c, baseline] {
        if (!c.with_budget) {
            return;
        }
        if (baseline) {
            hand::g_budget.give();
        } else {
            c.policy->record_success();
        }
    };
    for (long i = 0; i < count; ++i) {
        decide_next(contexts, random, decide, on_success);
    }
}

// The case called `name`; the program stops when there is none (a renamed case).
template <std::size_t kCount>
const Case& case_named(const Case (&cases)[kCount], std::string_view name) {
    for (const Case& c : cases) {
        if (c.name == name) {
            return c;
        }
    }
    std::fprintf(stderr, "decision_bench: no case named %.*s\n", static_cast<int>(name.size()),
                 name.data());
    std::exit(1);
}

template <BaselineFunction* kBaseline, bool kWithBudget = false>
Case make_case(std::string name, std::shared_ptr<const rebound::Policy> policy,
               const ErrorDescription& error, Expect expect) {
    return Case{std::move(name),
                std::move(policy),
                error,
                kBaseline,
                kWithBudget,
                expect,
                &register_benchmarks<kBaseline, kWithBudget>};
}

}  // namespace
}  // namespace decision_bench

// Benchmarks of rebound::decide() (results and command lines: docs/performance.md).
//
// Every case runs twice in this binary:
//   <case>/rebound   rebound::decide() on a compiled Policy;
//   <case>/baseline  a hand-written function that implements the same policy inline: switch
//                    statements and if-chains for the rules, a constant table of base delays, the
//                    one jitter kind of the policy written out, the same RandomSource type
//                    (rebound::SeededRandomSource) seeded the same way.
// Both sides are fed the same errors and the same sequence of attempt contexts, so their ratio is
// the cost of the engine's generality. main() first checks that both sides return identical
// decisions (delays included) for every case and refuses to run if they differ.
//
// Cases:
//   rules64_*      a 64-rule policy (56 retry_on + 8 never_retry_on: categories, SQLSTATEs,
//                  SQLSTATE classes, vendor native codes, HTTP statuses, error types, messages),
//                  exponential backoff, full jitter and a deadline (so step 6 runs):
//                    hit             a MySQL lock wait timeout: matched by a retry_on rule, retried
//                    hit_error_type  an unclassified `io.timeout.read`: matched through a dotted
//                                    prefix of its error type, retried
//                    hit_server_delay  `hit` with a server delay hint of 150ms (decision step 6)
//                    miss            a PostgreSQL division by zero: matches no rule, non_retryable
//                    with_budget     `hit` with a retry budget; record_success() runs every
//                                    iteration so the budget never empties
//                    hit_deep_error_type  `io.timeout.read.socket.tls.handshake`: six levels
//                                    below the rule error:io.timeout
//   types50_*      50 error-type rules (error_type_cases.hpp), the 64-rule policy's schedule:
//                    hit_shared_head_tail  one of twenty names of one length that share their
//                                    first and last eight bytes
//                    hit_deep        a name five levels below its rule
//                    miss_every_prefix  no rule; every dotted prefix has the length of a rule
//   jitter_*       a one-rule policy with each jitter kind.
// Models of well-known designs run as further baselines, each checked first to take the engine's
// retry/stop decisions (their delays: within the policy's range, or identical where they share
// the engine's generator):
//   jitter_full/model_clone_per_operation  google-cloud-cpp style: retry and backoff policy
//                  objects cloned on the heap per operation, std::mt19937_64 seeded from
//                  std::random_device on the operation's first failure;
//   jitter_full/model_clone_getentropy     the same, std::random_device("getentropy"): the
//                  cost of cloning without the default source's RDSEED;
//   jitter_full/model_std_rand             full jitter drawn with std::rand();
//   rules64_with_budget/model_mutex_quota  the hand-written rules with the retry budget behind a
//                  std::mutex instead of compare-and-swap.
// The attempt cycles through 1..4 (max_attempts 5) so every entry of the backoff table is used;
// the previous delay is fed back as AttemptContext::previous_delay, as a retry loop would.
//
// The global allocation functions are the counting ones of tests/support/allocation_counter.cpp:
// each case reports the allocations made by its thread inside the timed loop as the counter
// `allocs_per_op`. Besides the mean, median and spread of the repetitions, every case reports its
// fastest repetition as the statistic `min` (harness.hpp, register_timed).
//
// The parts: engine_cases.hpp and error_type_cases.hpp (the policies and errors, through the
// engine; the latter also its hand-written side),
// hand_written_baseline.hpp, design_models.hpp, harness.hpp (the loop, the checks, registration).

#include "design_models.hpp"
#include "engine_cases.hpp"
#include "error_type_cases.hpp"
#include "hand_written_baseline.hpp"
#include "harness.hpp"

using namespace decision_bench;

int main(int argc, char** argv) {
    // rebound_decision_bench --decisions CASE rebound|baseline COUNT: COUNT decisions of one side,
    // untimed and unchecked (bench/decision_instructions.sh counts their instructions).
    const bool decisions_only = argc == 5 && std::string_view(argv[1]) == "--decisions";
    if (!decisions_only) {
        benchmark::Initialize(&argc, argv);
        if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
            return 1;
        }
    }

    const auto rules64 = make_rules64_policy(false);
    const auto rules64_budget = make_rules64_policy(true);
    const auto types50 = make_types50_policy();
    const ErrorDescription deadlock = ErrorDescription::of(ErrorCategory::Deadlock);
    using rebound::Jitter;
    const Case cases[] = {
        make_case<&hand::decide_rules64<false>>("rules64_hit", rules64, mysql_lock_timeout(),
                                                Expect::Retry),
        make_case<&hand::decide_rules64<false>>("rules64_hit_error_type", rules64,
                                                io_read_timeout(), Expect::Retry),
        make_case<&hand::decide_rules64<false>>("rules64_hit_deep_error_type", rules64,
                                                deep_io_timeout(), Expect::Retry),
        make_case<&hand::decide_types50>("types50_hit_shared_head_tail", types50,
                                         error_of_type("payments.tango.timeout"), Expect::Retry),
        make_case<&hand::decide_types50>("types50_hit_deep", types50,
                                         error_of_type("storage.s3.slow_down.eu.west.bucket7"),
                                         Expect::Retry),
        make_case<&hand::decide_types50>("types50_miss_every_prefix", types50,
                                         error_of_type("svc.orders.v2.eu-west.shard7.replica.lag"),
                                         Expect::NonRetryable),
        make_case<&hand::decide_rules64<false, &hand::g_budget, true>>(
            "rules64_hit_server_delay", rules64, mysql_lock_timeout_with_hint(), Expect::Retry),
        make_case<&hand::decide_rules64<false>>("rules64_miss", rules64,
                                                postgres_division_by_zero(), Expect::NonRetryable),
        make_case<&hand::decide_rules64<true>, true>("rules64_with_budget", rules64_budget,
                                                     mysql_lock_timeout(), Expect::Retry),
        make_case<&hand::decide_simple<JitterType::None>>(
            "jitter_none", make_simple_policy(Jitter::none()), deadlock, Expect::Retry),
        make_case<&hand::decide_simple<JitterType::Full>>(
            "jitter_full", make_simple_policy(Jitter::full()), deadlock, Expect::Retry),
        make_case<&hand::decide_simple<JitterType::Equal>>(
            "jitter_equal", make_simple_policy(Jitter::equal()), deadlock, Expect::Retry),
        make_case<&hand::decide_simple<JitterType::Decorrelated>>(
            "jitter_decorrelated", make_simple_policy(Jitter::decorrelated()), deadlock,
            Expect::Retry),
        make_case<&hand::decide_simple<JitterType::Bounded>>(
            "jitter_bounded", make_simple_policy(Jitter::bounded(Duration{hand::kBoundedAmount})),
            deadlock, Expect::Retry),
        make_case<&hand::decide_simple<JitterType::Proportional>>(
            "jitter_proportional",
            make_simple_policy(Jitter::proportional(hand::kProportionalFactor)), deadlock,
            Expect::Retry),
    };

    if (decisions_only) {
        run_decisions(case_named(cases, argv[2]), std::string_view(argv[3]) == "baseline",
                      std::atol(argv[4]));
        return 0;
    }

    bool ok = verify_rule_texts(*rules64) && verify_rule_texts(*rules64_budget);
    for (const Case& c : cases) {
        ok = ok && verify(c);
    }
    if (!ok) {
        std::fprintf(stderr, "rebound::decide() and the hand-written baseline differ; not run\n");
        return 1;
    }

    // The models of well-known designs, next to the case whose policy they implement.
    const Case& full = case_named(cases, "jitter_full");
    const Case& budgeted = case_named(cases, "rules64_with_budget");
    // libstdc++'s default std::random_device source (RDSEED where the CPU has it), and the
    // getentropy(3) source, to separate the cost of seeding from the cost of cloning.
    const auto clone_model = [&full] { return model::ClonePerOperation(full.error, "default"); };
    const auto clone_getentropy_model = [&full] {
        return model::ClonePerOperation(full.error, "getentropy");
    };
    const auto rand_model = [&full] {
        return [error = full.error](const AttemptContext& context, SeededRandomSource&) {
            return model::decide_std_rand(error, context);
        };
    };
    const auto mutex_model = [&budgeted] {
        return [error = budgeted.error](const AttemptContext& context, SeededRandomSource& random) {
            return hand::decide_rules64<true, &hand::g_mutex_budget>(error, context, random);
        };
    };
    const auto give_mutex = [] { hand::g_mutex_budget.give(); };
    const auto nothing = [] {};
    const auto same_delay = [](const AttemptContext&, const Decision& d, const Decision& engine) {
        return d.delay == engine.delay;
    };
    ok = verify_model(full, "jitter_full/model_clone_per_operation", clone_model(), nothing,
                      in_full_jitter_range) &&
         verify_model(full, "jitter_full/model_clone_getentropy", clone_getentropy_model(), nothing,
                      in_full_jitter_range) &&
         verify_model(full, "jitter_full/model_std_rand", rand_model(), nothing,
                      in_full_jitter_range) &&
         verify_model(budgeted, "rules64_with_budget/model_mutex_quota", mutex_model(), give_mutex,
                      same_delay);
    if (!ok) {
        std::fprintf(stderr, "a model of a well-known design differs from decide(); not run\n");
        return 1;
    }

    for (const Case& c : cases) {
        c.register_benchmarks(c);
        if (&c == &full) {
            register_model(c.name + "/model_clone_per_operation", clone_model, nothing);
            register_model(c.name + "/model_clone_getentropy", clone_getentropy_model, nothing);
            register_model(c.name + "/model_std_rand", rand_model, nothing);
        } else if (&c == &budgeted) {
            register_model(c.name + "/model_mutex_quota", mutex_model, give_mutex);
        }
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

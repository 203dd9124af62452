// Run under ThreadSanitizer in CI (ctest label `concurrency`): executors deciding on many threads
// while another thread reloads the policy store hundreds of times.
#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "rebound/handler_registry.hpp"
#include "rebound/policy_store.hpp"
#include "rebound/retry_executor.hpp"
#include "rebound/retry_metrics.hpp"

namespace {

using Store = rebound::PolicyStore<rebound::PolicySet, std::vector<std::string>>;

constexpr int kPolicies = 4;

// Generation g: policies "g<g>.p<i>" (i < kPolicies), each with 2 + g % 4 attempts; handler
// "job" bound to p0, default p1. A set is complete when every policy carries the same g.
std::shared_ptr<const rebound::PolicySet> generation(int g) {
    std::vector<std::shared_ptr<const rebound::Policy>> policies;
    for (int i = 0; i < kPolicies; ++i) {
        policies.push_back(
            rebound::PolicyBuilder("g" + std::to_string(g) + ".p" + std::to_string(i))
                .max_attempts(2 + g % 4)
                .backoff(rebound::Backoff::none())
                .jitter(rebound::Jitter::none())
                .retry_on(rebound::Matcher::transient())
                .build());
    }
    return std::make_shared<const rebound::PolicySet>(
        "svc", std::move(policies),
        std::vector<rebound::HandlerBinding>{{"job", "g" + std::to_string(g) + ".p0", false}},
        "g" + std::to_string(g) + ".p1");
}

int generation_of(std::string_view policy_name) {
    return std::stoi(std::string(policy_name.substr(1, policy_name.find('.') - 1)));
}

class InstantSleeper final : public rebound::Sleeper {
  public:
    bool sleep_for(rebound::Duration, std::stop_token stop) override {
        return !stop.stop_requested();
    }
};

// Checks, per thread, that every event of a run names the policy of its first event.
class SamePolicyListener final : public rebound::RetryListener {
  public:
    void on_attempt_started(const rebound::RetryEvent& e) noexcept override {
        if (e.attempt == 1) {
            current_policy() = std::string(e.policy);
        } else {
            check(e);
        }
    }
    void on_retry_scheduled(const rebound::RetryEvent& e) noexcept override { check(e); }
    void on_stopped(const rebound::RetryEvent& e) noexcept override { check(e); }
    std::atomic<int> mismatches{0};

  private:
    static std::string& current_policy() {
        thread_local std::string name;
        return name;
    }
    void check(const rebound::RetryEvent& e) noexcept {
        if (e.policy != current_policy()) {
            mismatches.fetch_add(1, std::memory_order_relaxed);
        }
    }
};

}  // namespace

TEST_CASE("runs keep one complete policy set while the store reloads", "[concurrency][store]") {
    constexpr int kReloads = 300;
    constexpr int kWorkers = 4;
    Store store(generation(0));
    rebound::HandlerRegistry registry;
    registry.add({.name = "tiered", .tier = "p2"});  // unknown in every generation: default
    InstantSleeper sleeper;
    SamePolicyListener same_policy;
    rebound::RetryMetrics metrics;
    const rebound::RetryExecutor executor({.sleeper = &sleeper,
                                           .listeners = {&same_policy, &metrics},
                                           .resolver = [&](std::string_view handler) {
                                               const auto snapshot = store.current();
                                               return registry.resolve(handler, snapshot.get());
                                           }});

    std::atomic<bool> reloading{true};
    std::atomic<int> torn_sets{0};
    std::atomic<int> wrong_attempts{0};
    std::atomic<long> runs{0};
    std::vector<std::thread> workers;
    for (int w = 0; w < kWorkers; ++w) {
        workers.emplace_back([&, w] {
            const std::string handler = w % 2 == 0 ? "job" : "tiered";
            while (reloading.load(std::memory_order_acquire)) {
                // A reader sees a whole set: every policy from one generation.
                const auto snapshot = store.current();
                const int g = generation_of(snapshot->policies().front()->name());
                for (const auto& p : snapshot->policies()) {
                    if (generation_of(p->name()) != g) {
                        torn_sets.fetch_add(1);
                    }
                }
                const auto result = executor.run(handler, [] {
                    throw rebound::Error(rebound::ErrorCategory::Deadlock, "victim");
                });
                // The run used one policy from start to end: as many attempts as it allows.
                if (result.attempts != result.policy->max_attempts() ||
                    result.outcome != rebound::RetryOutcome::Exhausted) {
                    wrong_attempts.fetch_add(1);
                }
                runs.fetch_add(1, std::memory_order_relaxed);
            }
        });
    }
    std::thread reloader([&] {
        for (int g = 1; g <= kReloads; ++g) {
            const bool swapped = store.reload([g] { return Store::Compiled{generation(g), {}}; });
            CHECK(swapped);
            if (g % 7 == 0) {  // failing reloads in between change nothing
                store.reload([] { return Store::Compiled{nullptr, {"broken"}}; });
            }
        }
        reloading.store(false, std::memory_order_release);
    });
    reloader.join();
    for (auto& worker : workers) {
        worker.join();
    }
    CHECK(store.generation() == kReloads + 1);
    CHECK(generation_of(store.current()->policies().front()->name()) == kReloads);
    CHECK(torn_sets == 0);
    CHECK(wrong_attempts == 0);
    CHECK(same_policy.mismatches == 0);
    CHECK(runs > 0);
    CHECK(metrics.attempts("job") + metrics.attempts("tiered") > 0);
}

TEST_CASE("threads that throw one unclassified type at once report it once",
          "[executor][unclassified]") {
    class Unregistered : public std::runtime_error {
      public:
        Unregistered() : std::runtime_error("nobody registered me") {}
    };
    // A listener is called from many threads: this one only counts, atomically.
    struct Counter final : rebound::RetryListener {
        std::atomic<int> count{0};
        void on_unclassified_exception(
            const rebound::UnclassifiedExceptionEvent& /*event*/) noexcept override {
            ++count;
        }
    } counter;
    const rebound::RetryExecutor executor({.listeners = {&counter}});
    rebound::HandlerResolution resolution;
    resolution.policy = rebound::PolicyBuilder("single").max_attempts(1).build();
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < 50; ++i) {
                (void)executor.run(resolution, "h", [] { throw Unregistered(); });
            }
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    CHECK(counter.count == 1);
}

TEST_CASE("duration histograms count every run of more threads than stripes",
          "[concurrency][metrics]") {
    // 12 threads: the first 8 hold stripes of their own (plain loads and stores), the others
    // share counts (atomic additions); render() adds them up while they record.
    constexpr int kThreads = 12;
    constexpr int kRuns = 500;
    InstantSleeper sleeper;
    rebound::RetryMetrics metrics;
    const rebound::RetryExecutor executor({.sleeper = &sleeper, .listeners = {&metrics}});
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < kRuns; ++i) {
                executor.run(
                    "h", [] { throw rebound::Error(rebound::ErrorCategory::Deadlock, "victim"); });
            }
        });
    }
    const std::string during = metrics.render();  // concurrently with recording
    for (auto& thread : threads) {
        thread.join();
    }
    CHECK(during.find("# TYPE rebound_run_duration_seconds histogram\n") != std::string::npos);
    const std::string text = metrics.render();
    const std::uint64_t attempts = metrics.attempts("h");
    CHECK(attempts == std::uint64_t{kThreads} * kRuns * 3);  // the built-in policy: 3 attempts
    CHECK(text.find("rebound_attempt_duration_seconds_count{handler=\"h\",outcome=\"deadlock\"} " +
                    std::to_string(attempts) + "\n") != std::string::npos);
    CHECK(text.find("rebound_run_duration_seconds_count{handler=\"h\",outcome=\"exhausted\"} " +
                    std::to_string(kThreads * kRuns) + "\n") != std::string::npos);
    CHECK(text.find("rebound_run_duration_seconds_bucket{handler=\"h\",outcome=\"exhausted\","
                    "le=\"+Inf\"} " +
                    std::to_string(kThreads * kRuns) + "\n") != std::string::npos);
}

// The executors that cannot hedge refuse a hedging policy at the start of a run
// (docs/hedging.md, "Which executors hedge"): RetryRun's first start_attempt() throws
// HedgingUnsupported before any work, event or permit.
#include <catch2/catch.hpp>

#include <string>

#include "event_log.hpp"
#include "hedging_policy.hpp"
#include "rebound/hedging_unsupported.hpp"
#include "rebound/retry_executor.hpp"
#include "rebound/retry_run.hpp"
#include "rebound/testing.hpp"

using namespace std::chrono_literals;

namespace {

std::shared_ptr<const rebound::Policy> hedging_policy() {
    rebound::PolicySpec spec = rebound::test::hedging_spec(20ms, 3);
    spec.name = "reads";
    spec.deadline = rebound::Duration(1s);
    return rebound::test::compile_hedging(spec);
}

}  // namespace

TEST_CASE("the blocking executor refuses a hedging policy before the work runs",
          "[executor][hedge]") {
    rebound::testing::ManualClock clock;
    rebound::testing::RecordingSleeper sleeper{&clock};
    rebound::test_support::EventLog log;
    rebound::ExecutorOptions options;
    options.clock = &clock;
    options.sleeper = &sleeper;
    options.listeners.push_back(&log);
    const rebound::RetryExecutor executor(std::move(options));
    rebound::HandlerResolution resolution;
    resolution.policy = hedging_policy();
    resolution.via = rebound::ResolvedVia::Code;
    resolution.idempotent = true;
    int calls = 0;
    try {
        (void)executor.run(resolution, "catalog.get", [&] { ++calls; });
        FAIL("the run was not refused");
    } catch (const rebound::HedgingUnsupported& refused) {
        CHECK(refused.policy() == "reads");
        CHECK(std::string(refused.what()) ==
              "policy 'reads' hedges: hedging needs an asynchronous executor (rebound::asio)");
    }
    CHECK(calls == 0);
    CHECK(log.lines.empty());
    CHECK(sleeper.delays().empty());
}

TEST_CASE("a hedging policy is never run ahead of its RetryRun", "[executor][hedge]") {
    // may_defer() lets a driver run the first attempt before the run begins; for a hedging
    // policy that would skip the refusal, so it is not allowed.
    const rebound::RetryExecutor executor;
    CHECK_FALSE(rebound::RetryRun::may_defer(executor, *hedging_policy()));
    const auto plain =
        rebound::PolicyBuilder("plain").retry_on(rebound::Matcher::transient()).build();
    CHECK(rebound::RetryRun::may_defer(executor, *plain));
}

// A small discrete-event driver of HedgedRun for the engine's tests of the hedged run
// (tests/engine): attempts end as scripted, at exact instants of a manual clock.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "rebound/hedged_run.hpp"
#include "rebound/testing.hpp"

namespace rebound::test {

using Ms = std::chrono::milliseconds;

// How attempt n ends: after `latency`, with success (no error) or `error`; never when absent.
struct Script {
    std::optional<Duration> latency;
    std::optional<ErrorDescription> error{};
};

inline Script succeeds_after(Duration latency) {
    return {latency};
}
inline Script fails_after(Duration latency, ErrorCategory category,
                          std::optional<Duration> hint = std::nullopt) {
    ErrorDescription error = ErrorDescription::of(category);
    error.server_delay = hint;
    return {latency, error};
}
inline Script never() {
    return {};
}

// Records attempt kinds as listeners hear them.
class KindListener final : public RetryListener {
  public:
    void on_attempt_started(const RetryEvent& event) noexcept override {
        started.emplace_back(event.attempt, event.attempt_kind);
    }
    void on_succeeded(const RetryEvent& event) noexcept override {
        winner_kind = event.attempt_kind;
        reported = event.hedge != nullptr ? std::optional(*event.hedge) : std::nullopt;
    }
    std::vector<std::pair<int, AttemptKind>> started;
    std::optional<AttemptKind> winner_kind;
    std::optional<HedgeReport> reported;
};

// Steps a HedgedRun as a driver would: attempts end as scripted, cancelled ones never report.
struct Driver {
    testing::ManualClock clock;
    KindListener listener;
    RetryExecutor engine;

    // `more`: listeners of the executor after `listener`.
    explicit Driver(std::vector<RetryListener*> more = {})
        : engine(executor_options(std::move(more))) {}
    Driver(const Driver&) = delete;
    Driver& operator=(const Driver&) = delete;

    ExecutorOptions executor_options(std::vector<RetryListener*> more) {
        more.insert(more.begin(), &listener);
        return {.clock = &clock, .listeners = std::move(more)};
    }

    std::vector<Script> scripts;  // attempt n: scripts[n - 1]
    // Called when the clock reaches a time (ms since t0), before the attempts ending then.
    std::map<Duration, std::function<void()>> at;

    std::vector<std::pair<int, Ms>> starts;
    std::vector<std::pair<int, Ms>> cancels;
    HedgeReport report;
    int most_in_flight = 0;
    Ms ended{0};
    HedgeLatencies* latencies = nullptr;  // for learned delays

    Ms now() const { return std::chrono::duration_cast<Ms>(clock.now().time_since_epoch()); }

    RunResult run(HandlerResolution resolution, const RunOptions& options = {}) {
        HedgedRun run(engine, std::move(resolution), "catalog.read", options, latencies);
        std::map<int, Clock::TimePoint> ends;
        for (int guard = 0; guard < 1000; ++guard) {
            const HedgeStep step = run.poll();
            if (step.action == HedgeAction::Done) {
                ended = now();
                report = run.report();
                return run.take_result();
            }
            if (step.action == HedgeAction::Start) {
                starts.emplace_back(step.attempt, now());
                const Script& script = scripts.at(static_cast<std::size_t>(step.attempt) - 1);
                if (script.latency) {
                    ends[step.attempt] = clock.now() + *script.latency;
                }
                most_in_flight = std::max(most_in_flight, static_cast<int>(ends.size()));
                continue;
            }
            if (step.action == HedgeAction::Cancel) {
                cancels.emplace_back(step.attempt, now());
                ends.erase(step.attempt);
                continue;
            }
            // Wait: until the step's time, the next scripted end or the next hook.
            Clock::TimePoint next = step.until;
            for (const auto& [number, end] : ends) {
                next = std::min(next, end);
            }
            if (!at.empty()) {
                next = std::min(next, Clock::TimePoint{} + at.begin()->first);
            }
            REQUIRE(next != Clock::TimePoint::max());
            REQUIRE(next >= clock.now());
            clock.advance(std::chrono::duration_cast<Duration>(next - clock.now()));
            if (!at.empty() && Clock::TimePoint{} + at.begin()->first <= clock.now()) {
                at.begin()->second();
                at.erase(at.begin());
            }
            // One attempt's end per step, the lowest number first.
            for (auto it = ends.begin(); it != ends.end(); ++it) {
                if (it->second <= clock.now()) {
                    const int number = it->first;
                    const Script& script = scripts.at(static_cast<std::size_t>(number) - 1);
                    ends.erase(it);
                    if (script.error) {
                        run.failed(number, Failure::returned(Error(*script.error)));
                    } else {
                        run.succeeded(number);
                    }
                    break;
                }
            }
        }
        FAIL("the run did not end");
        return {};
    }
};

}  // namespace rebound::test

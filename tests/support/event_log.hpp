// EventLog: a RetryListener for tests that records every event of the executors as one line of
// text ("start 1", "retry 1 deadlock 100000us", "succeeded after 2", "stopped exhausted after 3"),
// and the breaker that trips on one failure which the executor tests share. Not thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "rebound/circuit_breaker.hpp"
#include "rebound/clock.hpp"
#include "rebound/retry_listener.hpp"

namespace rebound::test_support {

class EventLog final : public RetryListener {
  public:
    void on_attempt_started(const RetryEvent& e) noexcept override {
        add("start " + std::to_string(e.attempt));
    }
    void on_retry_scheduled(const RetryEvent& e) noexcept override {
        add("retry " + std::to_string(e.attempt) + " " + std::string(e.reason()) + " " +
            std::to_string(e.delay.count()) + "us");
    }
    void on_succeeded(const RetryEvent& e) noexcept override {
        add("succeeded after " + std::to_string(e.attempt));
    }
    void on_stopped(const RetryEvent& e) noexcept override {
        add("stopped " + std::string(e.reason()) + " after " + std::to_string(e.attempt));
    }
    std::vector<std::string> lines;

  private:
    void add(std::string line) { lines.push_back(std::move(line)); }
};

// A consecutive-failures breaker named `name` that opens for 5s after a single failure.
inline std::shared_ptr<CircuitBreaker> one_failure_breaker(const Clock& clock,
                                                           std::string name = "ledger-db") {
    BreakerSettings settings;
    settings.name = std::move(name);
    settings.trip = BreakerTrip::Consecutive;
    settings.consecutive_failures = 1;
    settings.open_for = std::chrono::seconds(5);
    return std::make_shared<CircuitBreaker>(settings, clock.now());
}

}  // namespace rebound::test_support

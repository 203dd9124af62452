#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#include "rebound/observability/json_log_listener.hpp"
#include "rebound/resilience_registry.hpp"
#include "rebound/retry_executor.hpp"
#include "rebound/testing.hpp"

using namespace std::chrono_literals;

TEST_CASE("every event is one JSON line with the documented fields", "[observability]") {
    rebound::testing::ManualClock clock;
    rebound::testing::RecordingSleeper sleeper(&clock);
    std::ostringstream out;
    rebound::observability::JsonLogListener log(out);
    const rebound::RetryExecutor executor(
        {.clock = &clock, .sleeper = &sleeper, .listeners = {&log}});
    rebound::HandlerResolution resolution;
    resolution.policy = rebound::PolicyBuilder("p")
                            .max_attempts(2)
                            .backoff(rebound::Backoff::fixed(1500us))
                            .jitter(rebound::Jitter::none())
                            .retry_on(rebound::Matcher::transient())
                            .build();
    executor.run(resolution, "ApproveCase",
                 [] { throw rebound::Error(rebound::ErrorCategory::Deadlock, "d"); },
                 {.command_id = "c-81"});
    executor.run(resolution, "Quiet", [] {});

    std::istringstream lines(out.str());
    std::vector<nlohmann::json> events;
    for (std::string line; std::getline(lines, line);) {
        events.push_back(nlohmann::json::parse(line));  // throws if a line is not JSON
    }
    REQUIRE(events.size() == 6);
    for (const auto& e : events) {
        for (const char* field :
             {"event", "handler", "attempt", "reason", "delay_ms", "command_id"}) {
            CHECK(e.contains(field));
        }
    }
    CHECK(events[0] == nlohmann::json::parse(R"({"event":"attempt_started","handler":"ApproveCase",
        "attempt":1,"reason":null,"delay_ms":0.0,"command_id":"c-81"})"));
    CHECK(events[1] == nlohmann::json::parse(R"({"event":"retry_scheduled","handler":"ApproveCase",
        "attempt":1,"reason":"deadlock","delay_ms":1.5,"command_id":"c-81"})"));
    CHECK(events[2]["delay_ms"] == 0.0);
    CHECK(events[3] == nlohmann::json::parse(R"({"event":"stopped","handler":"ApproveCase",
        "attempt":2,"reason":"exhausted","delay_ms":0.0,"command_id":"c-81"})"));
    CHECK(events[5] == nlohmann::json::parse(R"({"event":"succeeded","handler":"Quiet",
        "attempt":1,"reason":"succeeded","delay_ms":0.0,"command_id":null})"));
    // Field order is the documented one.
    CHECK(out.str().starts_with(
        R"({"event":"attempt_started","handler":"ApproveCase","attempt":1,"reason":null,)"));
}

TEST_CASE("a hedged attempt that failed while the run goes on is an attempt_failed line",
          "[observability]") {
    std::ostringstream out;
    rebound::observability::JsonLogListener log(out);
    rebound::RetryEvent event;
    event.kind = rebound::RetryEventKind::AttemptFailed;
    event.handler = "catalog.read";
    event.attempt = 1;
    event.category = rebound::ErrorCategory::ConnectionLost;
    event.command_id = "c-7";
    log.on_attempt_failed(event);
    CHECK(nlohmann::json::parse(out.str()) ==
          nlohmann::json::parse(R"({"event":"attempt_failed","handler":"catalog.read",
        "attempt":1,"reason":"connection_lost","delay_ms":0.0,"command_id":"c-7"})"));
}

TEST_CASE("an exception nothing classified is one JSON line, once per type", "[observability]") {
    std::ostringstream out;
    rebound::observability::JsonLogListener log(out);
    const rebound::RetryExecutor executor({.listeners = {&log}});
    rebound::HandlerResolution resolution;
    resolution.policy = rebound::PolicyBuilder("p").max_attempts(1).build();
    for (int run = 0; run < 2; ++run) {
        executor.run(resolution, "ApproveCase", [] { throw std::length_error("too long"); },
                     {.command_id = "c-9"});
    }
    std::istringstream lines(out.str());
    std::vector<nlohmann::json> unclassified;
    for (std::string line; std::getline(lines, line);) {
        const nlohmann::json event = nlohmann::json::parse(line);
        if (event["event"] == "unclassified_exception") {
            unclassified.push_back(event);
        }
    }
    REQUIRE(unclassified.size() == 1);
    CHECK(unclassified[0] == nlohmann::json{{"event", "unclassified_exception"},
                                            {"handler", "ApproveCase"},
                                            {"attempt", 1},
                                            {"type", typeid(std::length_error).name()},
                                            {"message", "too long"},
                                            {"command_id", "c-9"}});
}

TEST_CASE("a breaker's changes of state are JSON lines, through the registry",
          "[observability][breaker]") {
    std::vector<std::string> lines;
    rebound::observability::JsonLogListener log(
        [&lines](std::string_view line) { lines.emplace_back(line); });
    rebound::ResilienceRegistry registry;
    registry.set_transition_listener(
        [&log](std::string_view service, const rebound::BreakerTransition& transition) {
            log.on_breaker_transition(service, transition);
        });
    rebound::BreakerSettings settings;
    settings.name = "ledger-db";
    settings.trip = rebound::BreakerTrip::Consecutive;
    settings.consecutive_failures = 1;
    settings.open_for = std::chrono::seconds(5);
    const rebound::Clock::TimePoint t0{};
    const auto breaker = registry.breaker("payments", settings, t0);
    breaker->record_error(breaker->acquire(t0),
                          rebound::ErrorDescription::of(rebound::ErrorCategory::Deadlock), t0);
    breaker->isolate();
    REQUIRE(lines.size() == 2);
    const auto opened = nlohmann::json::parse(lines[0]);
    CHECK(opened["event"] == "breaker_state");
    CHECK(opened["service"] == "payments");
    CHECK(opened["breaker"] == "ledger-db");
    CHECK(opened["from"] == "closed");
    CHECK(opened["to"] == "open");
    CHECK(opened["open_for_ms"] == 5000.0);
    CHECK(opened["isolated"] == false);
    const auto isolated = nlohmann::json::parse(lines[1]);
    CHECK(isolated["from"] == "open");
    CHECK(isolated["open_for_ms"].is_null());
    CHECK(isolated["isolated"] == true);
}

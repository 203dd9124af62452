// Breaker replay: the trace reader's errors, and the conformance traces replayed through the
// breakers of 06-resilience.yaml (settings written out here, as the file states them).
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "rebound/simulation/breaker_replay.hpp"
#include "run_command.hpp"

using namespace std::chrono_literals;
using rebound::BreakerSettings;
using rebound::BreakerTrip;
using rebound::ErrorCategory;
using rebound::Matcher;
using rebound::simulation::read_replay_events;
using rebound::simulation::replay_breaker;
using rebound::simulation::ReplayEvent;
using rebound::simulation::ReplayInputError;
using rebound::simulation::ReplayStep;

namespace {

const std::filesystem::path kReplayDir =
    std::filesystem::path(REBOUND_SPEC_DIR) / "conformance/replay";

// 06-resilience.yaml: ledger-db and rates-api.
BreakerSettings ledger_db() {
    BreakerSettings s;
    s.name = "ledger-db";
    s.failure_ratio = 0.5;
    s.minimum_calls = 4;
    s.window = 10s;
    s.open_for = 2s;
    s.max_open_for = 16s;
    s.half_open_calls = 2;
    s.slow_call = 1500ms;
    s.failures = {Matcher::transient(), Matcher::sqlstate_class("08")};
    return s;
}

BreakerSettings rates_api() {
    BreakerSettings s;
    s.name = "rates-api";
    s.trip = BreakerTrip::Consecutive;
    s.consecutive_failures = 3;
    s.open_for = 500ms;
    return s;
}

std::vector<ReplayEvent> events_of(std::string_view text) {
    auto events = read_replay_events(text);
    if (auto* error = std::get_if<ReplayInputError>(&events)) {
        FAIL("line " << error->line << ":" << error->column << ": " << error->message);
    }
    return std::get<std::vector<ReplayEvent>>(events);
}

void check_trace(const std::string& stem, const BreakerSettings& settings) {
    const auto events = events_of(rebound::testing::read_file(kReplayDir / (stem + ".events")));
    const auto result = replay_breaker(settings, events);
    REQUIRE(std::holds_alternative<std::vector<ReplayStep>>(result));
    const auto& steps = std::get<std::vector<ReplayStep>>(result);
    std::ifstream expected(kReplayDir / (stem + ".expect.jsonl"));
    std::string line;
    std::size_t index = 0;
    while (std::getline(expected, line)) {
        if (line.empty()) {
            continue;
        }
        REQUIRE(index < steps.size());
        INFO(stem << " event " << index + 1);
        const auto want = nlohmann::json::parse(line);
        const auto got = nlohmann::json::parse(rebound::simulation::replay_step_json(steps[index]));
        CHECK(got.size() == want.size());
        for (const auto& [key, value] : want.items()) {
            INFO("key " << key);
            REQUIRE(got.contains(key));
            if (value.is_number()) {
                CHECK(std::abs(got[key].get<double>() - value.get<double>()) <= 0.001);
            } else {
                CHECK(got[key] == value);
            }
        }
        ++index;
    }
    CHECK(index == steps.size());
    CHECK(index > 10);
}

std::string error_of(std::string_view text) {
    auto events = read_replay_events(text);
    REQUIRE(std::holds_alternative<ReplayInputError>(events));
    const auto& error = std::get<ReplayInputError>(events);
    return std::to_string(error.line) + ":" + std::to_string(error.column) + ": " + error.message;
}

}  // namespace

TEST_CASE("the ratio breaker trace of the conformance vectors replays exactly", "[replay]") {
    check_trace("ledger-db-trip-and-recover", ledger_db());
}

TEST_CASE("the consecutive breaker trace of the conformance vectors replays exactly", "[replay]") {
    check_trace("rates-api-consecutive", rates_api());
}

TEST_CASE("trace lines are read with comments, decimals and durations", "[replay]") {
    const auto events = events_of(
        "# header\n\n0 acquire a\n1.5 success a 2.25  # slow?\n"
        "2 acquire b\r\n3 error b deadlock\n4 acquire c\n5 cancel c\n");
    REQUIRE(events.size() == 6);
    CHECK(events[1].at == 1500us);
    CHECK(events[1].took == 2250us);
    CHECK(events[1].line == 4);
    CHECK(events[3].category == ErrorCategory::Deadlock);
    CHECK(events[5].kind == rebound::simulation::ReplayEventKind::Cancel);
}

TEST_CASE("bad trace lines are refused with their line, column and what is expected", "[replay]") {
    CHECK(error_of("0 acquire a\nsoon acquire b\n") ==
          "2:1: expected a time in milliseconds (such as 1200 or 0.5), got 'soon'");
    CHECK(error_of("5 acquire a\n4 success a\n").starts_with("2:1: times must never decrease"));
    CHECK(error_of("0 aquire a\n") ==
          "1:3: unknown event 'aquire'; events are acquire, success, error and cancel");
    CHECK(error_of("0 error a deadlok\n").starts_with("1:11: unknown category 'deadlok'"));
    CHECK(error_of("0 error a\n").starts_with("1:10: an error event needs a category"));
    CHECK(error_of("0 success a 1.2345\n").starts_with("1:13: expected the call's duration"));
    CHECK(error_of("0 cancel a extra\n") == "1:12: unexpected 'extra' after the event");
    CHECK(error_of("0\n").starts_with("1:2: expected 'T_MS acquire"));
    CHECK(error_of("99999999999999999999 acquire a\n").starts_with("1:1: expected a time"));
}

TEST_CASE("an outcome for an id without a permit is refused, naming its line", "[replay]") {
    const auto events = events_of("0 acquire a\n1 success a\n2 success a\n");
    const auto result = replay_breaker(ledger_db(), events);
    REQUIRE(std::holds_alternative<ReplayInputError>(result));
    CHECK(std::get<ReplayInputError>(result).line == 3);
    CHECK(std::get<ReplayInputError>(result).message.find("holds no permit") != std::string::npos);
}

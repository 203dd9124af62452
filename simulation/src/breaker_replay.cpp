#include "rebound/simulation/breaker_replay.hpp"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "rebound/output_text.hpp"

namespace rebound::simulation {
namespace {

constexpr std::int64_t kMaxTraceMilliseconds = std::int64_t{1} << 40;  // about 35 years

struct Word {
    std::string_view text;
    int column = 0;  // 1-based
};

std::vector<Word> words_of(std::string_view line) {
    std::vector<Word> words;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
            ++i;
        }
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') {
            ++i;
        }
        if (i > start) {
            words.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
        }
    }
    return words;
}

// Milliseconds with at most three decimals ("1200", "0.5"), as microseconds.
std::optional<Duration> milliseconds_of(std::string_view text) {
    const std::size_t dot = text.find('.');
    const std::string_view whole = text.substr(0, dot);
    const std::string_view fraction =
        dot == std::string_view::npos ? std::string_view{} : text.substr(dot + 1);
    if (whole.empty() || fraction.size() > 3 ||
        (dot != std::string_view::npos && fraction.empty())) {
        return std::nullopt;
    }
    std::int64_t ms = 0;
    if (auto [end, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), ms);
        ec != std::errc{} || end != whole.data() + whole.size() || ms < 0 ||
        ms > kMaxTraceMilliseconds) {
        return std::nullopt;
    }
    std::int64_t micros = 0;
    for (std::size_t i = 0; i < 3; ++i) {
        const char c = i < fraction.size() ? fraction[i] : '0';
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
        micros = micros * 10 + (c - '0');
    }
    return Duration{ms * 1000 + micros};
}

std::optional<ReplayEventKind> kind_of(std::string_view word) {
    for (const ReplayEventKind kind : {ReplayEventKind::Acquire, ReplayEventKind::Success,
                                       ReplayEventKind::Error, ReplayEventKind::Cancel}) {
        if (to_string(kind) == word) {
            return kind;
        }
    }
    return std::nullopt;
}

ReplayInputError error_at(int line, int column, std::string message) {
    return ReplayInputError{line, column, std::move(message)};
}

// One non-empty event line, or its problem.
std::variant<ReplayEvent, ReplayInputError> read_event(const std::vector<Word>& words, int line,
                                                       Duration previous) {
    ReplayEvent event;
    event.line = line;
    const auto at = milliseconds_of(words[0].text);
    if (!at) {
        return error_at(line, words[0].column,
                        "expected a time in milliseconds (such as 1200 or 0.5), got '" +
                            std::string(words[0].text) + "'");
    }
    if (*at < previous) {
        return error_at(line, words[0].column,
                        "times must never decrease: " + std::string(words[0].text) +
                            " comes after " + std::to_string(to_milliseconds(previous)) + " ms");
    }
    event.at = *at;
    const int end_column = words[0].column + static_cast<int>(words[0].text.size());
    if (words.size() < 3) {
        return error_at(line, words.size() < 2 ? end_column : words[1].column,
                        "expected 'T_MS acquire|success|error|cancel ID ...'");
    }
    const auto kind = kind_of(words[1].text);
    if (!kind) {
        return error_at(line, words[1].column,
                        "unknown event '" + std::string(words[1].text) +
                            "'; events are acquire, success, error and cancel");
    }
    event.kind = *kind;
    event.id = std::string(words[2].text);
    std::size_t expected = 3;
    if (event.kind == ReplayEventKind::Success && words.size() > 3) {
        const auto took = milliseconds_of(words[3].text);
        if (!took) {
            return error_at(line, words[3].column,
                            "expected the call's duration in milliseconds, got '" +
                                std::string(words[3].text) + "'");
        }
        event.took = *took;
        expected = 4;
    } else if (event.kind == ReplayEventKind::Error) {
        if (words.size() < 4) {
            return error_at(line, words[2].column + static_cast<int>(words[2].text.size()),
                            "an error event needs a category: 'T_MS error ID CATEGORY'");
        }
        const auto category = parse_category(words[3].text);
        if (!category) {
            return error_at(line, words[3].column,
                            "unknown category '" + std::string(words[3].text) +
                                "' (docs/categories.md lists them)");
        }
        event.category = *category;
        expected = 4;
    }
    if (words.size() > expected) {
        return error_at(line, words[expected].column,
                        "unexpected '" + std::string(words[expected].text) + "' after the event");
    }
    return event;
}

}  // namespace

std::string_view to_string(ReplayEventKind kind) noexcept {
    switch (kind) {
        case ReplayEventKind::Success:
            return "success";
        case ReplayEventKind::Error:
            return "error";
        case ReplayEventKind::Cancel:
            return "cancel";
        case ReplayEventKind::Acquire:
            break;
    }
    return "acquire";
}

std::variant<std::optional<ReplayEvent>, ReplayInputError> ReplayEventReader::read_line(
    std::string_view line) {
    ++line_number_;
    line = line.substr(0, line.find('#'));
    if (!line.empty() && line.back() == '\r') {
        line.remove_suffix(1);
    }
    const std::vector<Word> words = words_of(line);
    if (words.empty()) {
        return std::optional<ReplayEvent>{};
    }
    auto event = read_event(words, line_number_, previous_);
    if (auto* error = std::get_if<ReplayInputError>(&event)) {
        return std::move(*error);
    }
    previous_ = std::get<ReplayEvent>(event).at;
    return std::optional<ReplayEvent>(std::move(std::get<ReplayEvent>(event)));
}

std::variant<std::vector<ReplayEvent>, ReplayInputError> read_replay_events(std::string_view text) {
    std::vector<ReplayEvent> events;
    ReplayEventReader reader;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        auto event = reader.read_line(text.substr(0, end));
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        if (auto* error = std::get_if<ReplayInputError>(&event)) {
            return std::move(*error);
        }
        if (auto& read = std::get<std::optional<ReplayEvent>>(event)) {
            events.push_back(std::move(*read));
        }
    }
    return events;
}

BreakerReplay::BreakerReplay(const BreakerSettings& settings)
    : breaker_(settings, CircuitBreaker::TimePoint{}) {}

std::variant<ReplayStep, ReplayInputError> BreakerReplay::step(const ReplayEvent& event) {
    const CircuitBreaker::TimePoint now = CircuitBreaker::TimePoint{} + event.at;
    ReplayStep step;
    step.event = event;
    if (event.kind == ReplayEventKind::Acquire) {
        if (permits_.contains(event.id)) {
            return ReplayInputError{event.line, 1, "'" + event.id + "' already holds a permit"};
        }
        const BreakerPermit permit = breaker_.acquire(now);
        step.admitted = permit.admitted;
        step.retry_after = permit.retry_after;
        if (permit.admitted) {
            permits_.emplace(event.id, permit);
        }
    } else {
        const auto held = permits_.find(event.id);
        if (held == permits_.end()) {
            return ReplayInputError{event.line, 1,
                                    "'" + event.id +
                                        "' holds no permit (no admitted acquire without an "
                                        "outcome before this line)"};
        }
        if (event.kind == ReplayEventKind::Success) {
            breaker_.record_success(held->second, event.took, now);
        } else if (event.kind == ReplayEventKind::Error) {
            breaker_.record_error(held->second, ErrorDescription::of(event.category), now);
        } else {
            breaker_.release(held->second, now);
        }
        permits_.erase(held);
    }
    step.state = breaker_.snapshot(now).state;
    return step;
}

std::variant<std::vector<ReplayStep>, ReplayInputError> replay_breaker(
    const BreakerSettings& settings, const std::vector<ReplayEvent>& events) {
    BreakerReplay replay(settings);
    std::vector<ReplayStep> steps;
    steps.reserve(events.size());
    for (const ReplayEvent& event : events) {
        auto step = replay.step(event);
        if (auto* error = std::get_if<ReplayInputError>(&step)) {
            return std::move(*error);
        }
        steps.push_back(std::move(std::get<ReplayStep>(step)));
    }
    return steps;
}

std::string replay_step_json(const ReplayStep& step) {
    nlohmann::ordered_json object;
    object["t_ms"] = to_milliseconds(step.event.at);
    object["id"] = step.event.id;
    object["event"] = std::string(to_string(step.event.kind));
    if (step.admitted) {
        object["admitted"] = *step.admitted;
        object["retry_after_ms"] = step.retry_after
                                       ? nlohmann::ordered_json(to_milliseconds(*step.retry_after))
                                       : nlohmann::ordered_json(nullptr);
    }
    object["state"] = std::string(to_string(step.state));
    return json_output(object);
}

std::string replay_step_text(const ReplayStep& step) {
    char time[32];
    std::snprintf(time, sizeof time, "%10.3f ms", to_milliseconds(step.event.at));
    std::string line =
        std::string(time) + "  " + std::string(to_string(step.event.kind)) + " " + step.event.id;
    if (step.admitted) {
        line += *step.admitted ? "  admitted" : "  refused";
        if (step.retry_after) {
            char wait[48];
            std::snprintf(wait, sizeof wait, " (half-open in %.3f ms)",
                          to_milliseconds(*step.retry_after));
            line += wait;
        }
    }
    return line + "  -> " + std::string(to_string(step.state));
}

}  // namespace rebound::simulation

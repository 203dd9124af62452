#include "rebound/observability/json_log_listener.hpp"

#include <nlohmann/json.hpp>
#include <ostream>

#include "rebound/output_text.hpp"

namespace rebound::observability {

JsonLogListener::JsonLogListener(LineSink sink) : sink_(std::move(sink)) {}

JsonLogListener::JsonLogListener(std::ostream& out)
    : sink_([&out](std::string_view line) { out << line << '\n'
                                                << std::flush; }) {}

std::string JsonLogListener::format(const RetryEvent& event) {
    // nlohmann::ordered_json keeps the documented field order.
    nlohmann::ordered_json line;
    line["event"] = to_string(event.kind);
    line["handler"] = event.handler;
    line["attempt"] = event.attempt;
    const std::string_view reason = event.reason();
    line["reason"] =
        reason.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(reason);
    line["delay_ms"] = to_milliseconds(event.delay);
    line["command_id"] = event.command_id.empty() ? nlohmann::ordered_json(nullptr)
                                                  : nlohmann::ordered_json(event.command_id);
    // Invalid UTF-8 in a handler or command id is replaced rather than thrown about.
    return json_output(line);
}

std::string JsonLogListener::format(std::string_view service, const BreakerTransition& transition) {
    nlohmann::ordered_json line;
    line["event"] = "breaker_state";
    line["service"] = service;
    line["breaker"] = transition.breaker;
    line["from"] = to_string(transition.from);
    line["to"] = to_string(transition.to);
    line["open_for_ms"] = transition.to == BreakerState::Open && !transition.isolated
                              ? nlohmann::ordered_json(to_milliseconds(transition.open_for))
                              : nlohmann::ordered_json(nullptr);
    line["isolated"] = transition.isolated;
    return json_output(line);
}

std::string JsonLogListener::format(const UnclassifiedExceptionEvent& event) {
    nlohmann::ordered_json line;
    line["event"] = "unclassified_exception";
    line["handler"] = event.handler;
    line["attempt"] = event.attempt;
    line["type"] = event.type_name;
    line["message"] = event.message;
    line["command_id"] = event.command_id.empty() ? nlohmann::ordered_json(nullptr)
                                                  : nlohmann::ordered_json(event.command_id);
    return line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

template <typename... Event>
void JsonLogListener::write(const Event&... event) noexcept {
    try {
        const std::string line = format(event...);
        std::lock_guard lock(mutex_);
        sink_(line);
    } catch (...) {
        // Logging must never fail the work or the breaker: a line that cannot be built or
        // written is dropped.
    }
}

void JsonLogListener::on_breaker_transition(std::string_view service,
                                            const BreakerTransition& transition) noexcept {
    write(service, transition);
}

void JsonLogListener::on_unclassified_exception(const UnclassifiedExceptionEvent& event) noexcept {
    write(event);
}

void JsonLogListener::on_attempt_started(const RetryEvent& event) noexcept {
    write(event);
}
void JsonLogListener::on_retry_scheduled(const RetryEvent& event) noexcept {
    write(event);
}
void JsonLogListener::on_succeeded(const RetryEvent& event) noexcept {
    write(event);
}
void JsonLogListener::on_stopped(const RetryEvent& event) noexcept {
    write(event);
}
void JsonLogListener::on_attempt_failed(const RetryEvent& event) noexcept {
    write(event);
}

}  // namespace rebound::observability

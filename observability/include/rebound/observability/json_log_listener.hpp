// JsonLogListener: one JSON object per line for every executor event (JSON Lines).
//
//   {"event":"retry_scheduled","handler":"ApproveCase","attempt":1,"reason":"deadlock",
//    "delay_ms":37.5,"command_id":"c-81"}
//
// Every line has the fields event (attempt_started, retry_scheduled, attempt_failed, succeeded,
// stopped), handler, attempt, reason (error category for retry_scheduled and attempt_failed,
// outcome for succeeded and stopped, null for attempt_started), delay_ms (0 except for
// retry_scheduled) and command_id (null when the caller gave none). attempt_failed comes only from
// a hedged run (docs/hedging.md): an attempt that failed while the run goes on. Lines are written
// whole, one at a time, from any thread; writing allocates.
//
// Circuit breakers' changes of state get lines of their own (docs/resilience.md):
//
//   {"event":"breaker_state","service":"payments","breaker":"ledger-db","from":"closed",
//    "to":"open","open_for_ms":5000.0,"isolated":false}
//
// open_for_ms is null unless the breaker opened on its own. Connect it with
//   registry.set_transition_listener([&log](auto service, const auto& t) {
//       log.on_breaker_transition(service, t); });
//
// An exception that nothing classified (RetryListener::on_unclassified_exception) gets one line,
// once per type and executor, with the type's name and what():
//
//   {"event":"unclassified_exception","handler":"ApproveCase","attempt":1,
//    "type":"N8payments14GatewayTimeoutE","message":"gateway timed out","command_id":null}
#pragma once

#include <functional>
#include <iosfwd>
#include <mutex>
#include <string>
#include <string_view>

#include "rebound/circuit_breaker.hpp"
#include "rebound/retry_listener.hpp"

namespace rebound::observability {

class JsonLogListener final : public RetryListener {
  public:
    // Receives each line without its newline. Called under the listener's lock; must not throw.
    using LineSink = std::function<void(std::string_view line)>;

    explicit JsonLogListener(LineSink sink);
    // Writes each line and a newline to `out`, which must outlive the listener.
    explicit JsonLogListener(std::ostream& out);

    void on_attempt_started(const RetryEvent& event) noexcept override;
    void on_retry_scheduled(const RetryEvent& event) noexcept override;
    void on_succeeded(const RetryEvent& event) noexcept override;
    void on_stopped(const RetryEvent& event) noexcept override;
    void on_attempt_failed(const RetryEvent& event) noexcept override;
    void on_unclassified_exception(const UnclassifiedExceptionEvent& event) noexcept override;

    // A circuit breaker of `service` changed state.
    void on_breaker_transition(std::string_view service,
                               const BreakerTransition& transition) noexcept;

    // The line for `event` (without newline).
    static std::string format(const RetryEvent& event);
    static std::string format(std::string_view service, const BreakerTransition& transition);
    static std::string format(const UnclassifiedExceptionEvent& event);

  private:
    // Formats the line of `event` and hands it to the sink; drops it when that fails.
    template <typename... Event>
    void write(const Event&... event) noexcept;

    std::mutex mutex_;
    LineSink sink_;
};

}  // namespace rebound::observability

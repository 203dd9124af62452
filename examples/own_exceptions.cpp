// docs/embedding.md, "Your own exceptions": an application's exception types registered as error
// types and categories, so that policies retry them as they say; and the report of a type nobody
// registered, which would otherwise stop every run as `unknown` without a word. The code blocks
// of that section are this program's (ctest checks). Prints one line per run and ends with
// "own exceptions: all runs behaved as documented"; exits 1 when a run did not.
//
//   rebound_example_own_exceptions
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "rebound/dsl/load.hpp"
#include "rebound/error_type_registry.hpp"
#include "rebound/exception_classifier.hpp"
#include "rebound/retry_executor.hpp"

// guide: exception-types
// The exceptions of a payment gateway's client library: none derives from rebound::Error.
namespace gateway {
struct Timeout : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct RateLimited : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct CardDeclined : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct LedgerBusy : std::runtime_error {  // forgotten below: reported, never retried
    using std::runtime_error::runtime_error;
};
}  // namespace gateway
// guide: end

namespace {

// guide: policy-file
constexpr std::string_view kPolicy = R"(rebound: 1
service: payments
policies:
  charge:
    max_attempts: 4
    backoff: { type: fixed, delay: 1ms }
    jitter: none
    retry_on: [service_unavailable, { error: payments.throttled }]
default: charge
)";
// guide: end

// guide: unclassified-listener
// Tells, once per type, about an exception that no registered type matches.
class UnclassifiedExceptions final : public rebound::RetryListener {
  public:
    void on_unclassified_exception(const rebound::UnclassifiedExceptionEvent& e) noexcept override {
        std::cerr << "rebound: " << e.handler << " threw " << e.type_name << " (" << e.message
                  << "), which no registered exception type matches: it is `unknown`\n";
        ++reported;
    }
    int reported = 0;  // this program runs on one thread; a service's listener must be thread-safe
};
// guide: end

bool check(bool ok, std::string_view what) {
    std::cout << (ok ? "" : "unexpected: ") << what << '\n';
    return ok;
}

}  // namespace

int main() {
    // guide: register-types
    // Error types are names: policies match them (`{ error: payments.throttled }` matches the type
    // and every type registered under it), and so does `rebound decide --error NAME`.
    rebound::ErrorTypeRegistry error_types;
    error_types.add("payments.gateway.rate_limited", "payments.throttled");

    // An exception type becomes an error type, and a category when one is given (the category's
    // default retryability and every `category` matcher then apply to it).
    rebound::ExceptionClassifier exceptions;
    exceptions.add<gateway::Timeout>("payments.gateway.timeout",
                                     rebound::ErrorCategory::ServiceUnavailable);
    exceptions.add<gateway::RateLimited>("payments.gateway.rate_limited");
    exceptions.add<gateway::CardDeclined>("payments.gateway.card_declined",
                                          rebound::ErrorCategory::ClientError);
    // guide: end

    // guide: executor
    rebound::PolicyCompileOptions compile;
    compile.error_types = &error_types;
    const rebound::dsl::LoadResult loaded =
        rebound::dsl::load_text(kPolicy, "payments.yaml", rebound::dsl::Syntax::Yaml, compile);
    UnclassifiedExceptions unclassified;
    const rebound::RetryExecutor executor({.exceptions = &exceptions,
                                           .listeners = {&unclassified},
                                           .resolver = [&](std::string_view handler) {
                                               return loaded.policy_set->resolve(handler);
                                           }});
    // guide: end
    if (!loaded.policy_set) {
        std::cerr << "unexpected: the policy does not load\n";
        return EXIT_FAILURE;
    }

    // Each run throws `exception` on its first `failures` attempts and then succeeds.
    const auto run = [&](std::string_view handler, int failures, auto exception) {
        int attempts = 0;
        const rebound::RunResult result = executor.run(handler, [&] {
            if (++attempts <= failures) {
                throw exception;
            }
        });
        std::cout << handler << ": " << to_string(result.outcome) << " after " << result.attempts
                  << " attempt(s)\n";
        return result;
    };
    bool ok = true;
    const auto timeout = run("Charge", 2, gateway::Timeout("gateway timed out"));
    ok &= check(timeout.succeeded() && timeout.attempts == 3,
                "a timeout is service_unavailable: retried");
    const auto throttled = run("Charge", 1, gateway::RateLimited("429 from the gateway"));
    ok &= check(throttled.succeeded() && throttled.attempts == 2,
                "a rate limit is payments.throttled: retried");
    const auto declined = run("Charge", 1, gateway::CardDeclined("card declined"));
    ok &= check(declined.outcome == rebound::RetryOutcome::NonRetryable,
                "a declined card is client_error: not retried");
    const auto busy = run("Charge", 1, gateway::LedgerBusy("ledger busy"));
    const auto busy_again = run("Refund", 1, gateway::LedgerBusy("ledger busy"));
    ok &= check(busy.outcome == rebound::RetryOutcome::NonRetryable &&
                    busy_again.outcome == rebound::RetryOutcome::NonRetryable &&
                    unclassified.reported == 1,
                "an unregistered exception is unknown, not retried, and reported once");
    std::cout << (ok ? "own exceptions: all runs behaved as documented"
                     : "own exceptions: some runs did not behave as documented")
              << '\n';
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

// Exceptions that nothing classifies: the executor tells its listeners once per type
// (RetryListener::on_unclassified_exception) instead of stopping the run silently as `unknown`.
#include <catch2/catch.hpp>

#include <chrono>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#include "rebound/retry_executor.hpp"
#include "rebound/testing.hpp"

using namespace std::chrono_literals;
using rebound::ErrorCategory;
using rebound::RetryOutcome;

namespace {

class GatewayTimeout : public std::runtime_error {
  public:
    GatewayTimeout() : std::runtime_error("gateway timed out") {}
};
class QuotaExceeded : public std::runtime_error {
  public:
    QuotaExceeded() : std::runtime_error("quota exceeded") {}
};
struct NotAnException {};

// Records the unclassified-exception reports; the text is copied while the event lives.
class Reports final : public rebound::RetryListener {
  public:
    struct Report {
        std::string handler;
        std::string policy;
        std::string command_id;
        int attempt = 0;
        const std::type_info* type = nullptr;
        std::string type_name;
        std::string message;
    };
    void on_unclassified_exception(const rebound::UnclassifiedExceptionEvent& e) noexcept override {
        reports.push_back({std::string(e.handler), std::string(e.policy), std::string(e.command_id),
                           e.attempt, e.type, std::string(e.type_name), std::string(e.message)});
    }
    std::vector<Report> reports;
};

std::shared_ptr<const rebound::Policy> retry_everything() {
    return rebound::PolicyBuilder("everything")
        .max_attempts(3)
        .backoff(rebound::Backoff::fixed(10ms))
        .jitter(rebound::Jitter::none())
        .retry_on(rebound::Matcher::transient())
        .retry_on(rebound::Matcher::of_category(ErrorCategory::Unknown))
        .build();
}

rebound::HandlerResolution resolved(std::shared_ptr<const rebound::Policy> policy) {
    rebound::HandlerResolution resolution;
    resolution.policy = std::move(policy);
    resolution.via = rebound::ResolvedVia::Code;
    return resolution;
}

struct Harness {
    rebound::testing::ManualClock clock;
    rebound::testing::RecordingSleeper sleeper{&clock};
    Reports reports;

    rebound::RetryExecutor executor(rebound::ExecutorOptions options = {}) {
        options.clock = &clock;
        options.sleeper = &sleeper;
        options.listeners.push_back(&reports);
        return rebound::RetryExecutor(std::move(options));
    }
};

}  // namespace

TEST_CASE("an exception nothing classifies is reported once per type, with its run",
          "[executor][unclassified]") {
    Harness h;
    const rebound::RetryExecutor executor = h.executor();
    int calls = 0;
    const rebound::RunResult first = executor.run(resolved(retry_everything()), "payments.charge",
                                                  [&] {
                                                      ++calls;
                                                      throw GatewayTimeout();
                                                  },
                                                  {.command_id = "c-1"});
    // Classified `unknown` as before (this policy retries it), and reported.
    CHECK(first.outcome == RetryOutcome::Exhausted);
    CHECK(calls == 3);
    REQUIRE(h.reports.reports.size() == 1);
    const Reports::Report& report = h.reports.reports.front();
    CHECK(report.handler == "payments.charge");
    CHECK(report.policy == "everything");
    CHECK(report.command_id == "c-1");
    CHECK(report.attempt == 1);
    CHECK(*report.type == typeid(GatewayTimeout));
    CHECK(report.type_name == typeid(GatewayTimeout).name());
    CHECK(report.message == "gateway timed out");

    // Another run of the same type is not reported again; another type is.
    (void)executor.run(resolved(retry_everything()), "payments.charge",
                       [] { throw GatewayTimeout(); });
    CHECK(h.reports.reports.size() == 1);
    (void)executor.run(resolved(retry_everything()), "payments.refund",
                       [] { throw QuotaExceeded(); });
    REQUIRE(h.reports.reports.size() == 2);
    CHECK(*h.reports.reports[1].type == typeid(QuotaExceeded));
    CHECK(h.reports.reports[1].handler == "payments.refund");
    // An exception not derived from std::exception: its type cannot be told, only that.
    (void)executor.run(resolved(retry_everything()), "h", [] { throw NotAnException(); });
    REQUIRE(h.reports.reports.size() == 3);
    CHECK(*h.reports.reports[2].type == typeid(void));
    CHECK(h.reports.reports[2].message.empty());
    (void)executor.run(resolved(retry_everything()), "h", [] { throw 42; });
    CHECK(h.reports.reports.size() == 3);
}

TEST_CASE("a registered, built-in or hook-classified exception is not reported",
          "[executor][unclassified]") {
    Harness h;
    rebound::ExceptionClassifier exceptions;
    exceptions.add<GatewayTimeout>("payments.gateway_timeout", ErrorCategory::ServiceUnavailable);
    exceptions.add<QuotaExceeded>("payments.quota");  // an error type alone: classified
    struct Hook final : rebound::FailureClassifier {
        rebound::ErrorDescription refine(
            const rebound::ErrorDescription& description) const noexcept override {
            rebound::ErrorDescription refined = description;
            if (description.message == "refined") {
                refined.category = ErrorCategory::Deadlock;
            }
            return refined;
        }
    } hook;
    const rebound::RetryExecutor executor =
        h.executor({.exceptions = &exceptions, .classifier = &hook});
    int calls = 0;
    const rebound::RunResult registered = executor.run(resolved(retry_everything()), "h", [&] {
        if (++calls < 3) {
            throw GatewayTimeout();
        }
    });
    CHECK(registered.succeeded());
    CHECK(calls == 3);  // service_unavailable: transient, so retried
    (void)executor.run(resolved(retry_everything()), "h", [] { throw QuotaExceeded(); });
    (void)executor.run(resolved(retry_everything()), "h",
                       [] { throw rebound::Error(ErrorCategory::Deadlock, "own"); });
    (void)executor.run(resolved(retry_everything()), "h",
                       [] { throw std::system_error(std::make_error_code(std::errc::timed_out)); });
    (void)executor.run(resolved(retry_everything()), "h",
                       [] { throw std::runtime_error("refined"); });
    CHECK(h.reports.reports.empty());
    (void)executor.run(resolved(retry_everything()), "h",
                       [] { throw std::runtime_error("not refined"); });
    REQUIRE(h.reports.reports.size() == 1);
    CHECK(*h.reports.reports[0].type == typeid(std::runtime_error));
}

TEST_CASE("an executor without listeners classifies an unknown exception as before",
          "[executor][unclassified]") {
    const rebound::RetryExecutor executor;
    const rebound::RunResult result =
        executor.run(resolved(retry_everything()), "h", [] { throw GatewayTimeout(); });
    CHECK(result.outcome == RetryOutcome::Exhausted);
    REQUIRE(result.last_error);
    CHECK_FALSE(result.last_error->description().category);
    CHECK(result.last_error->description().message == "gateway timed out");
}

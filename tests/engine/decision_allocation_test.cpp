// Proves the decision hot path allocates nothing, by counting the global operator new
// (replaced in tests/support/allocation_counter.cpp, linked only into this executable).
#include <catch2/catch.hpp>

#include "allocation_counter.hpp"
#include "rebound/decision.hpp"

using namespace std::chrono_literals;
using rebound::ErrorCategory;
using rebound::ErrorDescription;
using rebound::Matcher;

TEST_CASE("decide() does not allocate on any path", "[decision][allocation]") {
    rebound::PredicateRegistry predicates;
    predicates.add("is_busy", [](const ErrorDescription& e) { return e.message == "busy"; });
    rebound::ErrorTypeRegistry types;
    types.add("db.query_timeout", "io.timeout");
    rebound::PolicyCompileOptions options;
    options.predicates = &predicates;
    options.error_types = &types;
    const auto policy = rebound::PolicyBuilder("p")
                            .max_attempts(5)
                            .jitter(rebound::Jitter::decorrelated())
                            .deadline(10s)
                            .retry_on(Matcher::of_category(ErrorCategory::Deadlock))
                            .retry_on(Matcher::sqlstate("40001"))
                            .retry_on(Matcher::sqlstate_class("08"))
                            .retry_on(Matcher::native(rebound::Vendor::MySql, 1213))
                            .retry_on(Matcher::error_type("io.timeout"))
                            .retry_on(Matcher::http_class(5))
                            .retry_on(Matcher::message("try again"))
                            .retry_if("is_busy")
                            .never_retry_on(Matcher::sqlstate_class("23"))
                            .budget({100, 0.5})
                            .route(1s, "fast")
                            .route(1min, "slow")
                            .options(options)
                            .build();

    std::vector<ErrorDescription> errors;
    errors.push_back(ErrorDescription::of(ErrorCategory::Deadlock));
    errors.emplace_back().sqlstate = "40001";
    errors.emplace_back().sqlstate = "08S01";
    errors.emplace_back().sqlstate = "23505";
    auto& native = errors.emplace_back();
    native.vendor = rebound::Vendor::MySql;
    native.native_code = 1213;
    errors.emplace_back().error_type = "db.query_timeout.read";
    errors.emplace_back().http_status = 503;
    errors.emplace_back().message = "please try again later";
    errors.emplace_back().message = "busy";
    errors.push_back(ErrorDescription::of(ErrorCategory::CommitOutcomeUnknown));
    errors.emplace_back();  // matches nothing

    rebound::SeededRandomSource seeded(1);
    rebound::RandomSource& thread_local_source = rebound::default_random_source();
    (void)thread_local_source.next();  // the per-thread generator is created on first use

    const std::size_t before = rebound::testing::allocations_on_this_thread();
    int retries = 0;
    for (int round = 0; round < 50; ++round) {
        for (const ErrorDescription& error : errors) {
            for (int n = 1; n <= 6; ++n) {
                rebound::AttemptContext context;
                context.attempt = n;
                context.elapsed = std::chrono::milliseconds(round * 200);
                context.previous_delay = 150ms;
                retries += rebound::decide(*policy, error, context, seeded).retry ? 1 : 0;
                retries +=
                    rebound::decide(*policy, error, context, thread_local_source).retry ? 1 : 0;
                policy->record_success();
            }
        }
    }
    const std::size_t after = rebound::testing::allocations_on_this_thread();
    CHECK(retries > 0);
    CHECK(after - before == 0);

    // The counter works: an allocation is seen.
    auto* probe = new int(7);
    CHECK(rebound::testing::allocations_on_this_thread() == after + 1);
    delete probe;
}

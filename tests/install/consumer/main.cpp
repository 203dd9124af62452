// Uses the installed headers and library: builds a policy and takes one decision.
#include <cstdio>

#include <rebound/decision.hpp>
#include <rebound/odbc/vendor_detection.hpp>

int main() {
    using namespace std::chrono_literals;
    const auto policy = rebound::PolicyBuilder("consumer")
                            .backoff(rebound::Backoff::fixed(10ms))
                            .jitter(rebound::Jitter::none())
                            .retry_on(rebound::Matcher::transient())
                            .build();
    rebound::SeededRandomSource random(1);
    rebound::AttemptContext context;
    const auto decision = rebound::decide(
        *policy, rebound::ErrorDescription::of(rebound::ErrorCategory::Deadlock), context, random);
    std::printf("retry=%d delay_us=%lld\n", decision.retry ? 1 : 0,
                static_cast<long long>(decision.delay.count()));
    const bool odbc_linked =
        rebound::odbc::vendor_from_dbms_name("PostgreSQL") == rebound::Vendor::PostgreSql;
    return decision.retry && decision.delay == 10ms && odbc_linked ? 0 : 1;
}

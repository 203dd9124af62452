// Uses the installed headers, library and data: builds a policy and takes one decision under the
// installed test doubles, and classifies a MySQL deadlock with the installed vendor maps, which it
// must find in the (moved) prefix it was built against.
#include <cstdio>
#include <string>

#include <rebound/decision.hpp>
#include <rebound/dsl/vendor_map_loader.hpp>
#include <rebound/odbc/vendor_detection.hpp>
#include <rebound/testing.hpp>

#ifdef REBOUND_CONSUMER_GRPC
bool grpc_adapter_works();  // grpc_check.cpp
#endif

int main() {
    using namespace std::chrono_literals;
    const auto policy = rebound::PolicyBuilder("consumer")
                            .backoff(rebound::Backoff::fixed(10ms))
                            .jitter(rebound::Jitter::none())
                            .retry_on(rebound::Matcher::transient())
                            .build();
    rebound::testing::ScriptedRandomSource random({0.5});
    rebound::AttemptContext context;
    const auto decision = rebound::decide(
        *policy, rebound::ErrorDescription::of(rebound::ErrorCategory::Deadlock), context, random);
    std::printf("retry=%d delay_us=%lld\n", decision.retry ? 1 : 0,
                static_cast<long long>(decision.delay.count()));
    const bool odbc_linked =
        rebound::odbc::vendor_from_dbms_name("PostgreSQL") == rebound::Vendor::PostgreSql;

    const std::string maps = rebound::dsl::default_vendor_map_directory().string();
    const std::string expected_prefix = REBOUND_EXPECTED_PREFIX;
    std::printf("vendor maps: %s\n", maps.c_str());
    if (maps.rfind(expected_prefix, 0) != 0) {
        std::printf("the vendor maps are not under the installed prefix %s\n",
                    expected_prefix.c_str());
        return 1;
    }
    const auto loaded = rebound::dsl::load_vendor_maps(maps);
    if (!loaded.classifier) {
        std::printf("the installed vendor maps did not load\n");
        return 1;
    }
    rebound::SqlErrorRecord deadlock;
    deadlock.vendor = rebound::Vendor::MySql;
    deadlock.sqlstate = "40001";
    deadlock.native_code = 1213;
    const auto classified = loaded.classifier->classify(deadlock);
    std::printf("mysql 1213: %s\n", std::string(classified.matched).c_str());
#ifdef REBOUND_CONSUMER_GRPC
    const bool grpc_ok = grpc_adapter_works();
    std::printf("grpc adapter: %s\n", grpc_ok ? "ok" : "wrong");
#else
    const bool grpc_ok = true;
#endif
    return decision.retry && decision.delay == 10ms && odbc_linked && grpc_ok &&
                   classified.category == rebound::ErrorCategory::Deadlock
               ? 0
               : 1;
}

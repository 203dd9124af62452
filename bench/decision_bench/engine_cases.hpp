// The policies and errors of the cases, through the engine.
#pragma once

#include "common.hpp"

namespace decision_bench {
namespace {

// ---------------------------------------------------------------------------------------------
// The policies, through the engine

// The 64-rule policy. The hand-written side below encodes the same rules with these indices.
std::shared_ptr<const rebound::Policy> make_rules64_policy(bool with_budget) {
    using rebound::Matcher;
    rebound::PolicyBuilder b(with_budget ? "rules64_budget" : "rules64");
    b.max_attempts(kMaxAttempts)
        .backoff(rebound::Backoff::exponential(50ms, 2.0, 2s))
        .jitter(rebound::Jitter::full())
        .deadline(30s)
        .min_attempt_budget(100ms);
    // retry_on, 56 rules.
    for (const char* code : {"40001", "40P01", "55P03", "57P01", "57P02", "57P03", "53000", "53100",
                             "53200", "53300", "58000", "58030", "HYT00", "HYT01"}) {
        b.retry_on(Matcher::sqlstate(code));  // 0..13
    }
    for (const char* code_class : {"08", "40", "53", "58"}) {
        b.retry_on(Matcher::sqlstate_class(code_class));  // 14..17
    }
    b.retry_on(Matcher::native(Vendor::MySql, 1205))  // 18
        .retry_on(Matcher::native(Vendor::MySql, 1213))
        .retry_on(Matcher::native(Vendor::MySql, 2006))
        .retry_on(Matcher::native(Vendor::MySql, 2013))
        .retry_on(Matcher::native(Vendor::MySql, 1040))
        .retry_on(Matcher::native(Vendor::SqlServer, 1205))  // 23
        .retry_on(Matcher::native(Vendor::SqlServer, 1222))
        .retry_on(Matcher::native(Vendor::SqlServer, 40197))
        .retry_on(Matcher::native(Vendor::SqlServer, 40501))
        .retry_on(Matcher::native(Vendor::SqlServer, 40613))
        .retry_on(Matcher::native(Vendor::SqlServer, 49918))
        .retry_on(Matcher::native(Vendor::Oracle, 60))  // 29
        .retry_on(Matcher::native(Vendor::Oracle, 8177))
        .retry_on(Matcher::native(Vendor::Oracle, 3113))
        .retry_on(Matcher::native(Vendor::Db2, -911))  // 32
        .retry_on(Matcher::native(Vendor::Db2, -913));
    for (const ErrorCategory c :
         {ErrorCategory::Deadlock, ErrorCategory::SerializationFailure, ErrorCategory::LockTimeout,
          ErrorCategory::ConnectionFailure, ErrorCategory::ConnectionLost,
          ErrorCategory::ResourceExhausted, ErrorCategory::ServiceUnavailable,
          ErrorCategory::AdminShutdown}) {
        b.retry_on(Matcher::of_category(c));  // 34..41
    }
    for (const int status : {408, 425, 429, 502, 503, 504}) {
        b.retry_on(Matcher::http_status(status));  // 42..47
    }
    for (const char* type : {"io.timeout", "io.connection_reset", "net.dns.temporary_failure",
                             "grpc.unavailable", "grpc.resource_exhausted"}) {
        b.retry_on(Matcher::error_type(type));  // 48..52
    }
    for (const char* text : {"deadlock detected", "could not serialize access",
                             "server closed the connection unexpectedly"}) {
        b.retry_on(Matcher::message(text));  // 53..55
    }
    // never_retry_on, 8 rules.
    b.never_retry_on(Matcher::of_category(ErrorCategory::ConstraintViolation))
        .never_retry_on(Matcher::of_category(ErrorCategory::SyntaxError))
        .never_retry_on(Matcher::of_category(ErrorCategory::PermissionDenied))
        .never_retry_on(Matcher::of_category(ErrorCategory::AuthenticationFailed))
        .never_retry_on(Matcher::sqlstate("23505"))
        .never_retry_on(Matcher::native(Vendor::MySql, 1062))
        .never_retry_on(Matcher::http_status(401))
        .never_retry_on(Matcher::message("read-only transaction"));
    if (with_budget) {
        // One token per failure, one back per success: the budget stays full.
        b.budget(rebound::BudgetSettings{100, 1.0});
    }
    return b.build();
}

// The one-rule policy of the jitter cases.
std::shared_ptr<const rebound::Policy> make_simple_policy(const rebound::Jitter& jitter) {
    return rebound::PolicyBuilder("simple")
        .max_attempts(kMaxAttempts)
        .backoff(rebound::Backoff::exponential(100ms, 2.0, 1s))
        .jitter(jitter)
        .retry_on(rebound::Matcher::of_category(ErrorCategory::Deadlock))
        .build();
}

// ---------------------------------------------------------------------------------------------
// The errors

// MySQL lock wait timeout, as the ODBC adapter describes it: matched by native:mysql:1205.
constexpr ErrorDescription mysql_lock_timeout() noexcept {
    ErrorDescription e;
    e.category = ErrorCategory::LockTimeout;
    e.sqlstate = "HY000";
    e.vendor = Vendor::MySql;
    e.native_code = 1205;
    e.message =
        "[MySQL][ODBC 8.0(w) Driver][mysqld-8.0.36]Lock wait timeout exceeded; "
        "try restarting transaction";
    return e;
}

// A lock wait timeout whose server asked for 150ms: longer than some jittered delays, shorter than
// others, well under the default 5m cap.
constexpr ErrorDescription mysql_lock_timeout_with_hint() noexcept {
    ErrorDescription e = mysql_lock_timeout();
    e.server_delay = Duration{150'000};
    return e;
}

// An unclassified application error: matched by error:io.timeout through its dotted prefix.
constexpr ErrorDescription io_read_timeout() noexcept {
    ErrorDescription e;
    e.error_type = "io.timeout.read";
    e.message = "read timed out after 30000 ms";
    return e;
}

// PostgreSQL division by zero: matches no rule of either list.
constexpr ErrorDescription postgres_division_by_zero() noexcept {
    ErrorDescription e;
    e.category = ErrorCategory::DataError;
    e.sqlstate = "22012";
    e.vendor = Vendor::PostgreSql;
    e.native_code = 7;
    e.message = "ERROR: division by zero; Error while executing the query";
    return e;
}

}  // namespace
}  // namespace decision_bench

// Built when the installed package has rebound::grpc: links it through the installed
// reboundConfig.cmake, which finds grpc++ again, and classifies an UNAVAILABLE status with a
// pushback trailer.
#include <grpcpp/support/status.h>

#include <string>

#include <rebound/grpc/status_classification.hpp>

bool grpc_adapter_works() {
    const std::string key = "grpc-retry-pushback-ms";
    const std::string value = "250";
    const rebound::grpc::Classification c =
        rebound::grpc::classify(grpc::Status(grpc::StatusCode::UNAVAILABLE, "down"),
                                rebound::grpc::TrailingMetadata{{key, value}});
    return c.category == rebound::ErrorCategory::ServiceUnavailable &&
           c.pushback.delay == rebound::Duration(std::chrono::milliseconds(250));
}

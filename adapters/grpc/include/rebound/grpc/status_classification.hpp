// Classification of a finished gRPC call as grpc++ reports it (docs/protocols.md): its
// grpc::Status and its trailing metadata, through the pure classification of
// rebound/grpc/classification.hpp (the status table and the `grpc-retry-pushback-ms` trailer are
// defined there, once). Never allocates or throws.
#pragma once

#include <grpcpp/support/status.h>
#include <grpcpp/support/string_ref.h>

#include <map>
#include <optional>
#include <string_view>

#include "rebound/grpc/classification.hpp"
#include "rebound/grpc_status.hpp"

namespace rebound::grpc {

// What grpc::ClientContext::GetServerTrailingMetadata() returns.
using TrailingMetadata = std::multimap<::grpc::string_ref, ::grpc::string_ref>;

// The canonical status of a grpc++ status code; a code outside 0..16 is UNKNOWN, as the gRPC
// protocol says a client must treat a code it does not know.
GrpcStatus status_of(::grpc::StatusCode code) noexcept;

// The value of the `grpc-retry-pushback-ms` trailer that counts (PushbackTrailers, the rule
// `rebound classify --grpc` reads its --header lines with): absent without one; of several, the
// last, as gRPC keeps.
std::optional<std::string_view> pushback_trailer(const TrailingMetadata& trailers) noexcept;

// `status` with the call's trailing metadata (a pushback trailer on an OK status is ignored, as
// the call did not fail).
Classification classify(const ::grpc::Status& status, const TrailingMetadata& trailers) noexcept;

}  // namespace rebound::grpc

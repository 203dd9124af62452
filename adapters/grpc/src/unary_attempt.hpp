// What the blocking UnaryClient and the asynchronous AsyncUnaryClient do alike for one attempt
// (docs/protocols.md, The gRPC adapter): set up its context, and make a rebound::Error of its
// classified end. Internal to rebound::grpc.
#pragma once

#include <grpcpp/client_context.h>
#include <grpcpp/support/status.h>

#include <optional>

#include "rebound/error.hpp"
#include "rebound/function_ref.hpp"
#include "rebound/grpc/classification.hpp"
#include "rebound/grpc/unary_client.hpp"
#include "rebound/retry_executor.hpp"

namespace rebound::grpc::detail {

// Cancels a call when a stop token is set (from whichever thread sets it); the call then ends
// with CANCELLED.
struct CancelCall {
    ::grpc::ClientContext* context;
    void operator()() const noexcept { context->TryCancel(); }
};

// Sets up attempt `info`'s context: the caller's `prepare` first, then the deadline (the
// attempt's time limit, or options.default_timeout when the policy gives none) and, on every
// attempt after the first, the `rebound-previous-rpc-attempts` header.
void prepare_context(::grpc::ClientContext& context, const AttemptInfo& info,
                     const UnaryClientOptions& options,
                     FunctionRef<void(::grpc::ClientContext&)> prepare);

// The attempt's failure, or nothing when it did not fail.
std::optional<Error> attempt_error(const ::grpc::Status& status,
                                   const Classification& classification);

// Throws std::invalid_argument for a default_timeout of 0 or less.
void check_options(const UnaryClientOptions& options);

}  // namespace rebound::grpc::detail

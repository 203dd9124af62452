// A real gRPC server on 127.0.0.1 (a port the system picks) for the life of the object, serving
// every method through grpc::CallbackGenericService: each call takes the next scripted reply
// (a failure status with or without a `grpc-retry-pushback-ms` trailer, or a stall until the
// client gives up), and once the script is used up answers OK with the request's bytes.
#pragma once

#include <grpcpp/server.h>

#include <chrono>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace rebound::testing {

struct ScriptedReply {
    ::grpc::StatusCode code = ::grpc::StatusCode::UNAVAILABLE;
    std::vector<std::string> pushback;  // values of `grpc-retry-pushback-ms` trailers, in order
    bool stall = false;                 // no reply until the client cancels or its deadline passes
};

class FlakyGrpcServer {
  public:
    explicit FlakyGrpcServer(std::vector<ScriptedReply> script = {});
    ~FlakyGrpcServer();
    FlakyGrpcServer(const FlakyGrpcServer&) = delete;
    FlakyGrpcServer& operator=(const FlakyGrpcServer&) = delete;

    // "127.0.0.1:PORT".
    std::string address() const;
    // Calls received so far.
    std::size_t calls() const;
    // When each call arrived (steady clock), in order.
    std::vector<std::chrono::steady_clock::time_point> arrivals() const;
    // The method names the calls asked for, in order.
    std::vector<std::string> methods() const;
    // The value of each call's `x-request-tag` metadata (empty without one), in order.
    std::vector<std::string> tags() const;

  private:
    class Service;
    friend class Service;

    // The next reply, recording the call; nullopt once the script is used up.
    std::optional<ScriptedReply> next_reply(const std::string& method, std::string tag);

    mutable std::mutex mutex_;
    std::deque<ScriptedReply> script_;
    std::vector<std::chrono::steady_clock::time_point> arrivals_;
    std::vector<std::string> methods_;
    std::vector<std::string> tags_;
    std::unique_ptr<Service> service_;
    std::unique_ptr<::grpc::Server> server_;
    int port_ = 0;
};

}  // namespace rebound::testing

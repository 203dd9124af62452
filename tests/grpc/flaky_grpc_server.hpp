// A real gRPC server on 127.0.0.1 (a port the system picks) for the life of the object, serving
// every method through grpc::CallbackGenericService: each call takes the next scripted reply
// (a failure status with or without a `grpc-retry-pushback-ms` trailer, or a stall until the
// client gives up), and once the script is used up answers OK with the request's bytes.
//
// For hedged runs, where several attempts are in flight at once, a reply may be for one attempt
// (told by the `rebound-previous-rpc-attempts` header the clients send) and may wait, server-side,
// until a later attempt arrives; the server records which attempts the client cancelled
// (ServerCallbackReactor::OnCancel), so a test waits for that rather than for time to pass.
#pragma once

#include <grpcpp/server.h>

#include <chrono>
#include <condition_variable>
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
    // For the call of this attempt only (1 for the first); 0: for the next call, whichever.
    int attempt = 0;
    // The reply waits until attempt `after` has arrived; 0: it does not wait.
    int after = 0;
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
    // The attempt each call says it is (`rebound-previous-rpc-attempts` + 1), in order.
    std::vector<int> attempts() const;
    // Waits up to `limit` until the call of `attempt` has arrived; whether it has.
    bool wait_arrived(int attempt, std::chrono::milliseconds limit = std::chrono::seconds(30));
    // Waits up to `limit` until the client has cancelled the call of `attempt`; whether it has.
    bool wait_cancelled(int attempt, std::chrono::milliseconds limit = std::chrono::seconds(30));
    // The attempts whose calls the client cancelled, in the order the server saw it.
    std::vector<int> cancelled() const;

  private:
    class Service;
    class Reactor;
    friend class Service;
    friend class Reactor;

    // A reply that waits for a later attempt (ScriptedReply::after).
    struct Waiting {
        Reactor* reactor;
        ScriptedReply reply;
    };

    // Records the call of `reactor` and finds its reply: nullopt once the script is used up.
    // Replies that waited for this attempt are moved to `released` (their reactors claimed).
    std::optional<ScriptedReply> next_reply(Reactor& reactor, const std::string& method,
                                            std::string tag, int attempt,
                                            std::vector<Waiting>& released);
    // Whether the caller is the one to finish `reactor` (exactly one Finish per call); a
    // claimed reactor is not waiting any more.
    bool claim(Reactor& reactor);
    void record_cancelled(Reactor& reactor);

    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<ScriptedReply> script_;
    std::vector<Waiting> waiting_;
    std::vector<std::chrono::steady_clock::time_point> arrivals_;
    std::vector<std::string> methods_;
    std::vector<std::string> tags_;
    std::vector<int> attempts_;
    std::vector<int> cancelled_;
    std::unique_ptr<Service> service_;
    std::unique_ptr<::grpc::Server> server_;
    int port_ = 0;
};

}  // namespace rebound::testing

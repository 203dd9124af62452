#include "flaky_grpc_server.hpp"

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "rebound/grpc/classification.hpp"
#include "rebound/grpc/unary_client.hpp"

namespace rebound::testing {

// Serves one call: reads the request, then finishes as the script says. gRPC may run OnCancel
// beside the other reactions, and another call's arrival may release a waiting reply, so the
// server decides under its lock who finishes a call (claim()): exactly one Finish per call. A
// reactor is deleted only after its Finish (OnDone), so a claimed one stays valid until then.
class FlakyGrpcServer::Reactor final : public ::grpc::ServerGenericBidiReactor {
  public:
    Reactor(FlakyGrpcServer& server, ::grpc::GenericCallbackServerContext* context)
        : server_(server), context_(context) {
        StartRead(&request_);
    }

    void OnReadDone(bool ok) override {
        if (!ok) {
            if (server_.claim(*this)) {
                Finish(::grpc::Status(::grpc::StatusCode::INTERNAL, "no request"));
            }
            return;
        }
        std::vector<Waiting> released;
        const std::optional<ScriptedReply> reply =
            server_.next_reply(*this, context_->method(), metadata("x-request-tag"),
                               previous_attempts() + 1, released);
        for (const Waiting& waiting : released) {
            waiting.reactor->answer(waiting.reply);
        }
        if (reply && (reply->stall || reply->after != 0)) {
            return;  // OnCancel or a later attempt finishes it
        }
        if (server_.claim(*this)) {
            answer(reply.value_or(ScriptedReply{::grpc::StatusCode::OK, {}}));
        }
    }

    void OnCancel() override {
        server_.record_cancelled(*this);
        if (server_.claim(*this)) {
            Finish(::grpc::Status::CANCELLED);
        }
    }

    void OnDone() override { delete this; }

    // Finishes the call with `reply` (the caller claimed it): OK echoes the request.
    void answer(const ScriptedReply& reply) {
        if (reply.code == ::grpc::StatusCode::OK) {
            response_ = request_;
            StartWriteAndFinish(&response_, ::grpc::WriteOptions(), ::grpc::Status::OK);
            return;
        }
        for (const std::string& value : reply.pushback) {
            context_->AddTrailingMetadata(std::string(rebound::grpc::kPushbackTrailer), value);
        }
        Finish(::grpc::Status(reply.code, "scripted failure"));
    }

    // Guarded by the server's mutex.
    int attempt = 0;
    bool finished = false;

  private:
    std::string metadata(std::string_view key) const {
        const auto& metadata = context_->client_metadata();
        const auto found = metadata.find(::grpc::string_ref(key.data(), key.size()));
        return found == metadata.end() ? std::string()
                                       : std::string(found->second.data(), found->second.size());
    }

    int previous_attempts() const {
        const std::string value = metadata(rebound::grpc::kPreviousAttemptsHeader);
        int count = 0;
        std::from_chars(value.data(), value.data() + value.size(), count);
        return count;
    }

    FlakyGrpcServer& server_;
    ::grpc::GenericCallbackServerContext* context_;
    ::grpc::ByteBuffer request_;
    ::grpc::ByteBuffer response_;
};

class FlakyGrpcServer::Service final : public ::grpc::CallbackGenericService {
  public:
    explicit Service(FlakyGrpcServer& server) : server_(server) {}

    ::grpc::ServerGenericBidiReactor* CreateReactor(
        ::grpc::GenericCallbackServerContext* context) override {
        return new Reactor(server_, context);
    }

  private:
    FlakyGrpcServer& server_;
};

FlakyGrpcServer::FlakyGrpcServer(std::vector<ScriptedReply> script)
    : script_(script.begin(), script.end()), service_(std::make_unique<Service>(*this)) {
    ::grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", ::grpc::InsecureServerCredentials(), &port_);
    builder.RegisterCallbackGenericService(service_.get());
    server_ = builder.BuildAndStart();
    if (!server_ || port_ == 0) {
        throw std::runtime_error("the loopback gRPC server did not start");
    }
}

FlakyGrpcServer::~FlakyGrpcServer() {
    // Cancels the calls still open (stalled ones) at once, then waits for them to end.
    server_->Shutdown(std::chrono::system_clock::now());
    server_->Wait();
}

std::string FlakyGrpcServer::address() const {
    return "127.0.0.1:" + std::to_string(port_);
}

std::size_t FlakyGrpcServer::calls() const {
    std::lock_guard lock(mutex_);
    return arrivals_.size();
}

std::vector<std::chrono::steady_clock::time_point> FlakyGrpcServer::arrivals() const {
    std::lock_guard lock(mutex_);
    return arrivals_;
}

std::vector<std::string> FlakyGrpcServer::methods() const {
    std::lock_guard lock(mutex_);
    return methods_;
}

std::vector<std::string> FlakyGrpcServer::tags() const {
    std::lock_guard lock(mutex_);
    return tags_;
}

std::vector<int> FlakyGrpcServer::attempts() const {
    std::lock_guard lock(mutex_);
    return attempts_;
}

std::vector<int> FlakyGrpcServer::cancelled() const {
    std::lock_guard lock(mutex_);
    return cancelled_;
}

bool FlakyGrpcServer::wait_arrived(int attempt, std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, limit, [&] {
        return std::find(attempts_.begin(), attempts_.end(), attempt) != attempts_.end();
    });
}

bool FlakyGrpcServer::wait_cancelled(int attempt, std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, limit, [&] {
        return std::find(cancelled_.begin(), cancelled_.end(), attempt) != cancelled_.end();
    });
}

std::optional<ScriptedReply> FlakyGrpcServer::next_reply(Reactor& reactor,
                                                         const std::string& method, std::string tag,
                                                         int attempt,
                                                         std::vector<Waiting>& released) {
    std::lock_guard lock(mutex_);
    reactor.attempt = attempt;
    arrivals_.push_back(std::chrono::steady_clock::now());
    methods_.push_back(method);
    tags_.push_back(std::move(tag));
    attempts_.push_back(attempt);
    // Replies that waited for this attempt (or an earlier one) go now.
    for (auto waiting = waiting_.begin(); waiting != waiting_.end();) {
        if (waiting->reply.after <= attempt) {
            waiting->reactor->finished = true;
            released.push_back(std::move(*waiting));
            waiting = waiting_.erase(waiting);
        } else {
            ++waiting;
        }
    }
    const auto found = std::find_if(script_.begin(), script_.end(), [&](const ScriptedReply& r) {
        return r.attempt == 0 || r.attempt == attempt;
    });
    if (found == script_.end()) {
        return std::nullopt;
    }
    ScriptedReply reply = std::move(*found);
    script_.erase(found);
    const bool arrived = std::any_of(attempts_.begin(), attempts_.end(),
                                     [&](int seen) { return seen >= reply.after; });
    if (reply.after != 0 && !arrived) {
        waiting_.push_back(Waiting{&reactor, reply});
    } else {
        reply.after = 0;
    }
    return reply;
}

bool FlakyGrpcServer::claim(Reactor& reactor) {
    std::lock_guard lock(mutex_);
    if (reactor.finished) {
        return false;
    }
    reactor.finished = true;
    std::erase_if(waiting_, [&](const Waiting& waiting) { return waiting.reactor == &reactor; });
    return true;
}

void FlakyGrpcServer::record_cancelled(Reactor& reactor) {
    {
        std::lock_guard lock(mutex_);
        cancelled_.push_back(reactor.attempt);
    }
    changed_.notify_all();
}

}  // namespace rebound::testing

#include "flaky_grpc_server.hpp"

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>

#include <stdexcept>
#include <utility>

#include "rebound/grpc/classification.hpp"

namespace rebound::testing {

// Serves one call: reads the request, then finishes as the script says. gRPC may run OnCancel
// beside the other reactions, so the finishing is guarded: exactly one Finish per call.
class FlakyGrpcServer::Service final : public ::grpc::CallbackGenericService {
  public:
    explicit Service(FlakyGrpcServer& server) : server_(server) {}

    ::grpc::ServerGenericBidiReactor* CreateReactor(
        ::grpc::GenericCallbackServerContext* context) override {
        return new Reactor(server_, context);
    }

  private:
    class Reactor final : public ::grpc::ServerGenericBidiReactor {
      public:
        Reactor(FlakyGrpcServer& server, ::grpc::GenericCallbackServerContext* context)
            : server_(server), context_(context) {
            StartRead(&request_);
        }

        void OnReadDone(bool ok) override {
            std::lock_guard lock(mutex_);
            if (!ok) {
                finish_once(::grpc::Status(::grpc::StatusCode::INTERNAL, "no request"));
                return;
            }
            const auto& metadata = context_->client_metadata();
            const auto tag = metadata.find("x-request-tag");
            const std::optional<ScriptedReply> reply = server_.next_reply(
                context_->method(), tag == metadata.end()
                                        ? std::string()
                                        : std::string(tag->second.data(), tag->second.size()));
            if (!reply) {
                if (!finished_) {
                    finished_ = true;
                    response_ = request_;
                    StartWriteAndFinish(&response_, ::grpc::WriteOptions(), ::grpc::Status::OK);
                }
                return;
            }
            if (reply->stall) {
                return;  // OnCancel finishes it
            }
            for (const std::string& value : reply->pushback) {
                context_->AddTrailingMetadata(std::string(rebound::grpc::kPushbackTrailer), value);
            }
            finish_once(::grpc::Status(reply->code, "scripted failure"));
        }

        void OnCancel() override {
            std::lock_guard lock(mutex_);
            finish_once(::grpc::Status::CANCELLED);
        }

        void OnDone() override { delete this; }

      private:
        void finish_once(const ::grpc::Status& status) {
            if (!finished_) {
                finished_ = true;
                Finish(status);
            }
        }

        FlakyGrpcServer& server_;
        ::grpc::GenericCallbackServerContext* context_;
        std::mutex mutex_;
        bool finished_ = false;
        ::grpc::ByteBuffer request_;
        ::grpc::ByteBuffer response_;
    };

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

std::optional<ScriptedReply> FlakyGrpcServer::next_reply(const std::string& method,
                                                         std::string tag) {
    std::lock_guard lock(mutex_);
    arrivals_.push_back(std::chrono::steady_clock::now());
    methods_.push_back(method);
    tags_.push_back(std::move(tag));
    if (script_.empty()) {
        return std::nullopt;
    }
    ScriptedReply reply = std::move(script_.front());
    script_.pop_front();
    return reply;
}

}  // namespace rebound::testing

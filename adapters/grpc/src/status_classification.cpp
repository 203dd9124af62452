#include "rebound/grpc/status_classification.hpp"

namespace rebound::grpc {

GrpcStatus status_of(::grpc::StatusCode code) noexcept {
    const int value = static_cast<int>(code);
    if (value < 0 || value >= static_cast<int>(kGrpcStatusCount)) {
        return GrpcStatus::Unknown;
    }
    return static_cast<GrpcStatus>(value);
}

std::optional<std::string_view> pushback_trailer(const TrailingMetadata& trailers) noexcept {
    PushbackTrailers pushback;
    // A multimap keeps the trailers of one name in the order they were inserted.
    for (const auto& [name, value] : trailers) {
        pushback.add(std::string_view(name.data(), name.size()),
                     std::string_view(value.data(), value.size()));
    }
    return pushback.value();
}

Classification classify(const ::grpc::Status& status, const TrailingMetadata& trailers) noexcept {
    const GrpcStatus code = status_of(status.error_code());
    return classify(code, code == GrpcStatus::Ok ? std::nullopt : pushback_trailer(trailers));
}

}  // namespace rebound::grpc

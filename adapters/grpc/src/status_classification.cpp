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
    const auto [first, last] =
        trailers.equal_range(::grpc::string_ref(kPushbackTrailer.data(), kPushbackTrailer.size()));
    if (first == last) {
        return std::nullopt;
    }
    const std::string_view value(first->second.data(), first->second.size());
    for (auto other = std::next(first); other != last; ++other) {
        if (std::string_view(other->second.data(), other->second.size()) != value) {
            return std::string_view{};
        }
    }
    return value;
}

Classification classify(const ::grpc::Status& status, const TrailingMetadata& trailers) noexcept {
    const GrpcStatus code = status_of(status.error_code());
    return classify(code, code == GrpcStatus::Ok ? std::nullopt : pushback_trailer(trailers));
}

}  // namespace rebound::grpc

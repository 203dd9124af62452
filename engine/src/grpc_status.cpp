#include "rebound/grpc_status.hpp"

#include <cstddef>

namespace rebound {
namespace {

constexpr char upper(char c) noexcept {
    return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}

bool equals_upper(std::string_view text, std::string_view upper_name) noexcept {
    if (text.size() != upper_name.size()) {
        return false;
    }
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (upper(text[i]) != upper_name[i]) {
            return false;
        }
    }
    return true;
}

}  // namespace

std::optional<GrpcStatus> parse_grpc_status(std::string_view text) noexcept {
    if (!text.empty() && text.size() <= 2 &&
        text.find_first_not_of("0123456789") == std::string_view::npos) {
        const int code = text.size() == 1 ? text[0] - '0' : (text[0] - '0') * 10 + (text[1] - '0');
        if (code < static_cast<int>(kGrpcStatusCount)) {
            return static_cast<GrpcStatus>(code);
        }
        return std::nullopt;
    }
    for (std::size_t code = 0; code < kGrpcStatusCount; ++code) {
        if (equals_upper(text, kGrpcStatusNames[code])) {
            return static_cast<GrpcStatus>(code);
        }
    }
    return std::nullopt;
}

}  // namespace rebound

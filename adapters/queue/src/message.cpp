#include "rebound/queue/message.hpp"

#include <stdexcept>

namespace rebound::queue {

namespace {

constexpr std::size_t kMaxNameLength = 200;

void check_length(std::string_view field, const std::string& value) {
    if (value.empty() || value.size() > kMaxNameLength) {
        throw std::invalid_argument("queue message: " + std::string(field) + " must have 1 to " +
                                    std::to_string(kMaxNameLength) + " characters, got " +
                                    std::to_string(value.size()));
    }
}

}  // namespace

std::string_view to_string(MessageState state) noexcept {
    switch (state) {
        case MessageState::Ready:
            return "ready";
        case MessageState::Leased:
            return "leased";
        case MessageState::Done:
            return "done";
        case MessageState::Dead:
            break;
    }
    return "dead";
}

std::optional<MessageState> parse_message_state(std::string_view text) noexcept {
    for (MessageState state :
         {MessageState::Ready, MessageState::Leased, MessageState::Done, MessageState::Dead}) {
        if (to_string(state) == text) {
            return state;
        }
    }
    return std::nullopt;
}

void validate(const NewMessage& message, std::size_t max_payload_bytes) {
    check_length("handler", message.handler);
    if (message.payload.size() > max_payload_bytes) {
        throw std::invalid_argument(
            "queue message: the payload has " + std::to_string(message.payload.size()) +
            " bytes, more than the limit of " + std::to_string(max_payload_bytes) +
            " bytes (StoreOptions::max_payload_bytes; docs/queue.md, \"Payload limit\")");
    }
    if (message.key) {
        check_length("key", *message.key);
    }
    if (!message.command_id.empty()) {
        check_length("command_id", message.command_id);
    }
    if (message.delay < Duration{0}) {
        throw std::invalid_argument("queue message: delay must not be negative");
    }
}

}  // namespace rebound::queue

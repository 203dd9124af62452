// Message: one row of the retry queue (docs/queue.md, "Model"), and what enqueue needs to make one.
//
// Times are microseconds since the Unix epoch on the database server's clock: every worker of a
// fleet compares due_at and lease_until with the same clock, whatever its own says.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "rebound/duration.hpp"

namespace rebound::queue {

enum class MessageState : std::uint8_t { Ready, Leased, Done, Dead };

// `ready`, `leased`, `done`, `dead`: the values stored in the `state` column.
std::string_view to_string(MessageState state) noexcept;
std::optional<MessageState> parse_message_state(std::string_view text) noexcept;

// The last failed attempt of a message, as stored.
struct LastError {
    std::string category{};  // wire name (docs/categories.md); empty when no attempt failed
    std::string sqlstate{};
    std::optional<std::int64_t> native_code{};
    int http_status = 0;
    std::string message{};
};

struct Message {
    std::int64_t id = 0;
    std::string handler;
    std::optional<std::string> key;
    std::string payload;
    std::string command_id;
    int attempt = 0;  // attempts made (claims so far)
    MessageState state = MessageState::Ready;
    std::int64_t due_at = 0;
    std::int64_t created_at = 0;
    std::optional<std::int64_t> first_attempt_at;
    std::optional<std::int64_t> claimed_at;  // the last claim
    std::optional<std::int64_t> lease_until;
    std::int64_t last_delay_us = 0;  // the delay before the current attempt (decorrelated jitter)
    LastError last_error;
    std::string route;        // the route the last decision named; empty for none
    std::string dead_reason;  // decision reason wire name (`exhausted`, ...) when dead
};

// What enqueue writes. Text is stored as given (UTF-8); binary payloads are the caller's to
// encode (base64, hex).
struct NewMessage {
    std::string handler;               // 1..200 characters
    std::optional<std::string> key{};  // ordering key, 1..200 characters; none: no order
    std::string payload{};             // any length
    std::string command_id{};          // 1..200 characters; empty: `<handler>:<random hex>`
    Duration delay{0};                 // due this long after now (never negative)
};

// Throws std::invalid_argument naming the field when `message` breaks the limits above.
void validate(const NewMessage& message);

}  // namespace rebound::queue

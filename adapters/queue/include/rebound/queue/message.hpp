// Message: one row of the retry queue (docs/queue.md, "Model"), and what enqueue needs to make one.
//
// Times are microseconds since the Unix epoch on the database server's clock: every worker of a
// fleet compares due_at and lease_until with the same clock, whatever its own says.
#pragma once

#include <cstddef>
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

// The payload limit (docs/queue.md, "Payload limit"): enqueue refuses a payload longer than
// StoreOptions::max_payload_bytes, 4 MiB by default. Large enough for any event or job
// description; small enough that a claim of 10 such messages holds 40 MiB of a worker, that the
// INSERT carrying one fits MariaDB's default max_allowed_packet (16 MiB) with room to spare, and
// that a dead letter of that size prints in well under a second. Bigger data belongs in a store
// for blobs, with its reference in the payload.
inline constexpr std::size_t kDefaultMaxPayloadBytes = std::size_t{4} << 20U;
// The most max_payload_bytes may be: the largest value every supported database stores
// (SQLite's default SQLITE_MAX_LENGTH; PostgreSQL's 1 GB field limit is a little higher).
inline constexpr std::size_t kMaxPayloadLimit = 1'000'000'000;

// What enqueue writes. Text is stored as given (UTF-8); binary payloads are the caller's to
// encode (base64, hex).
struct NewMessage {
    std::string handler;               // 1..200 characters
    std::optional<std::string> key{};  // ordering key, 1..200 characters; none: no order
    std::string payload{};             // at most the store's max_payload_bytes bytes
    std::string command_id{};          // 1..200 characters; empty: `<handler>:<random hex>`
    Duration delay{0};                 // due this long after now (never negative)
};

// Throws std::invalid_argument naming the field when `message` breaks the limits above; a
// payload of more than `max_payload_bytes` bytes is refused with its length and the limit.
void validate(const NewMessage& message, std::size_t max_payload_bytes = kDefaultMaxPayloadBytes);

}  // namespace rebound::queue

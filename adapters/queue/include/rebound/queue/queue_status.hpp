// QueueStatus: what `rebound queue status` and the metrics report, read from the tables in one
// pass (docs/queue.md, "Status and metrics").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rebound::queue {

struct HandlerCounts {
    std::string handler;
    std::int64_t ready = 0;  // waiting, due or not
    std::int64_t due = 0;    // ready with due_at <= now
    std::int64_t leased = 0;
    std::int64_t done = 0;  // 0 when done rows are deleted
    std::int64_t dead = 0;
    // now - the oldest due_at among due messages, in microseconds; nullopt when none is due.
    std::optional<std::int64_t> oldest_due_age_us;
    bool paused = false;
};

// An ordering key held up by a dead message: nothing later of the key runs until the dead one is
// requeued or discarded.
struct BlockedKey {
    std::string handler;
    std::string key;
    std::int64_t dead_id = 0;  // the earliest dead message of the key
    std::int64_t waiting = 0;  // later messages of the key that are not done
};

struct QueueStatus {
    std::int64_t now = 0;                  // the database clock, microseconds since the epoch
    std::vector<HandlerCounts> handlers;   // by handler name; paused handlers without rows too
    std::vector<BlockedKey> blocked_keys;  // by handler, then key
};

}  // namespace rebound::queue

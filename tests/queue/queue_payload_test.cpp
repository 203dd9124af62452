// The payload limit (docs/queue.md, "Payload limit") on each database: a payload of exactly the
// limit is written and read back whole, by find() and by a claim; one byte more is refused before
// anything is written, with an error that gives the length and the limit. The default limit is
// what is tested, so each database is shown to store and return a payload of that size.
#include <catch2/catch.hpp>
#include <stdexcept>

#include "queue_test_support.hpp"

namespace rebound::testing {
namespace {

using Catch::Matchers::Contains;

std::int64_t message_count(odbc::Connection& connection) {
    return query_int(connection, "SELECT COUNT(*) FROM rebound_queue_messages");
}

// Printable ASCII that repeats every 89 bytes (a piece read at the wrong offset shows).
std::string payload_of(std::size_t length) {
    std::string text(length, ' ');
    for (std::size_t index = 0; index < length; ++index) {
        text[index] = static_cast<char>('!' + index % 89);
    }
    return text;
}

void the_payload_limit_holds_at_its_edge(const std::string& name) {
    QueueDatabase database(name);
    odbc::Connection connection = database.connect();
    const queue::QueueStore& store = database.store();
    REQUIRE(store.options().max_payload_bytes == queue::kDefaultMaxPayloadBytes);
    const std::size_t limit = queue::kDefaultMaxPayloadBytes;

    const std::string at_limit = payload_of(limit);
    const std::int64_t id =
        store.enqueue(connection, queue::NewMessage{.handler = "big", .payload = at_limit});
    const std::optional<queue::Message> found = store.find(connection, id);
    REQUIRE(found);
    CHECK(found->payload.size() == limit);
    CHECK(found->payload == at_limit);

    CHECK_THROWS_MATCHES(
        store.enqueue(connection,
                      queue::NewMessage{.handler = "big", .payload = payload_of(limit + 1)}),
        std::invalid_argument,
        Catch::Matchers::Message(
            "queue message: the payload has 4194305 bytes, more than the limit of 4194304 bytes "
            "(StoreOptions::max_payload_bytes; docs/queue.md, \"Payload limit\")"));
    CHECK(message_count(connection) == 1);

    // A claim reads the payload whole too.
    connection.set_autocommit(false);
    const std::vector<std::string> handlers{"big"};
    const std::vector<queue::Message> claimed =
        store.claim(connection, handlers, 10, std::chrono::seconds(30), "payload-test");
    connection.commit();
    connection.set_autocommit(true);
    REQUIRE(claimed.size() == 1);
    CHECK(claimed[0].payload == at_limit);

    // A store with a limit of its own applies that one.
    const queue::QueueStore small(store.vendor(), {.max_payload_bytes = 10});
    CHECK(small.enqueue(connection,
                        queue::NewMessage{.handler = "small", .payload = "0123456789"}) > id);
    CHECK_THROWS_WITH(
        small.enqueue(connection, queue::NewMessage{.handler = "small", .payload = "01234567890"}),
        Contains("the payload has 11 bytes, more than the limit of 10 bytes"));
    CHECK(message_count(connection) == 2);
}

TEST_CASE("queue: the payload limit must be 1 byte to 1 GB", "[sqlite]") {
    CHECK_THROWS_WITH(queue::QueueStore(Vendor::Sqlite, {.max_payload_bytes = 0}),
                      Contains("max_payload_bytes must be 1 to 1000000000, got 0"));
    CHECK_THROWS_WITH(
        queue::QueueStore(Vendor::Sqlite, {.max_payload_bytes = queue::kMaxPayloadLimit + 1}),
        Contains("max_payload_bytes must be 1 to 1000000000, got 1000000001"));
    CHECK_NOTHROW(queue::QueueStore(Vendor::Sqlite, {.max_payload_bytes = 1}));
}

TEST_CASE("queue sqlite: a payload of the limit is stored, one byte more is refused", "[sqlite]") {
    the_payload_limit_holds_at_its_edge("sqlite");
}

TEST_CASE("queue postgresql: a payload of the limit is stored, one byte more is refused",
          "[postgresql]") {
    the_payload_limit_holds_at_its_edge("postgresql");
}

TEST_CASE("queue mariadb: a payload of the limit is stored, one byte more is refused",
          "[mariadb]") {
    the_payload_limit_holds_at_its_edge("mariadb");
}

}  // namespace
}  // namespace rebound::testing

// `rebound queue` (docs/cli.md) against a real SQLite queue: init, status, dead, requeue, discard,
// pause and resume in text and JSON, and the errors for bad arguments and unknown ids.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "queue_test_support.hpp"
#include "run_command.hpp"

namespace rebound::testing {
namespace {

using Catch::Matchers::Contains;
using Json = nlohmann::json;

CommandResult rebound_queue(std::vector<std::string> arguments, const QueueDatabase& database) {
    arguments.insert(arguments.begin(), {REBOUND_CLI, "queue"});
    arguments.insert(arguments.end(), {"--dsn", database.connection_string(), "--vendor-maps",
                                       REBOUND_VENDOR_MAP_DIR});
    return run_command(arguments);
}

// A dead message of `handler`, as a worker leaves one after a non-retryable failure.
std::int64_t make_dead(const QueueDatabase& database, odbc::Connection& connection,
                       const std::string& handler, std::optional<std::string> key) {
    const std::int64_t id = database.store().enqueue(
        connection, queue::NewMessage{.handler = handler, .key = std::move(key)});
    connection.set_autocommit(false);
    const std::vector<std::string> handlers{handler};
    const auto claimed =
        database.store().claim(connection, handlers, 1, std::chrono::seconds(30), "cli-test");
    REQUIRE(claimed.size() == 1);
    queue::AttemptFailure failure;
    failure.error = {.category = "data_error", .message = "bad payload"};
    failure.dead_reason = "non_retryable";
    failure.route = "tier-2";
    REQUIRE(database.store().record_failure(connection, claimed[0].id, "cli-test", failure));
    connection.commit();
    connection.set_autocommit(true);
    return id;
}

TEST_CASE("queue sqlite: the queue command line operates a real queue", "[sqlite]") {
    QueueDatabase database("sqlite");
    odbc::Connection connection = database.connect();

    CommandResult init = rebound_queue({"init"}, database);
    CHECK(init.exit_code == 0);
    CHECK_THAT(init.out, Contains("version 1: nothing to do"));
    init = rebound_queue({"init", "--format", "json"}, database);
    CHECK(Json::parse(init.out) == Json{{"from_version", 1}, {"to_version", 1}});

    const std::int64_t dead = make_dead(database, connection, "order.placed", "customer-7");
    database.store().enqueue(connection,
                             queue::NewMessage{.handler = "order.placed", .key = "customer-7"});
    const std::int64_t other = make_dead(database, connection, "mail.send", std::nullopt);

    CommandResult status = rebound_queue({"status"}, database);
    CHECK(status.exit_code == 0);
    CHECK_THAT(status.out, Contains("order.placed"));
    CHECK_THAT(status.out, Contains("blocked key 'customer-7' of order.placed: dead message " +
                                    std::to_string(dead) + " holds back 1 message"));
    status = rebound_queue({"status", "--format", "json"}, database);
    const Json report = Json::parse(status.out);
    REQUIRE(report["handlers"].size() == 2);
    CHECK(report["handlers"][1]["handler"] == "order.placed");
    CHECK(report["handlers"][1]["dead"] == 1);
    CHECK(report["handlers"][1]["ready"] == 1);
    CHECK(report["handlers"][1]["due"] == 1);  // due, though its key is blocked
    CHECK(report["blocked_keys"][0]["dead_id"] == dead);
    status = rebound_queue({"status", "--format", "prometheus"}, database);
    CHECK(status.exit_code == 0);
    CHECK_THAT(status.out, Contains("# TYPE rebound_queue_messages gauge\n"));
    CHECK_THAT(status.out,
               Contains("rebound_queue_messages{handler=\"order.placed\",state=\"dead\"} 1\n"));
    CHECK_THAT(status.out,
               Contains("rebound_queue_messages{handler=\"order.placed\",state=\"ready\"} 1\n"));
    CHECK_THAT(status.out, Contains("rebound_queue_due_messages{handler=\"order.placed\"} 1\n"));
    CHECK_THAT(status.out, Contains("rebound_queue_blocked_keys{handler=\"order.placed\"} 1\n"));
    CHECK_THAT(status.out, Contains("rebound_queue_blocked_keys{handler=\"mail.send\"} 0\n"));
    CHECK_THAT(status.out, Contains("rebound_queue_paused{handler=\"mail.send\"} 0\n"));

    CommandResult listed = rebound_queue({"dead", "--handler", "order.placed"}, database);
    CHECK(listed.exit_code == 0);
    CHECK_THAT(listed.out, Contains(std::to_string(dead) +
                                    " order.placed key 'customer-7': non_retryable after 1 "
                                    "attempt, route tier-2"));
    CHECK_THAT(listed.out, Contains("last error: data_error: bad payload"));
    listed = rebound_queue({"dead", "--format", "json", "--limit", "1"}, database);
    const Json messages = Json::parse(listed.out)["messages"];
    REQUIRE(messages.size() == 1);
    CHECK(messages[0]["last_error"]["category"] == "data_error");

    // Unknown ids: the known ones apply, the rest are named, exit 1.
    CommandResult requeued =
        rebound_queue({"requeue", std::to_string(dead), "424242", "--format", "json"}, database);
    CHECK(requeued.exit_code == 1);
    CHECK(Json::parse(requeued.out)["applied"] == Json::array({dead}));
    CHECK_THAT(requeued.err, Contains("message 424242: no such message"));
    CHECK(database.store().find(connection, dead)->state == queue::MessageState::Ready);

    CommandResult discarded = rebound_queue({"discard", std::to_string(dead)}, database);
    CHECK(discarded.exit_code == 1);
    CHECK_THAT(discarded.err, Contains("it is ready, not dead"));
    discarded = rebound_queue({"requeue", "--handler", "mail.send"}, database);
    CHECK(discarded.exit_code == 0);
    CHECK_THAT(discarded.out, Contains("requeued 1 message " + std::to_string(other)));

    CHECK(rebound_queue({"pause", "mail.send"}, database).out == "handler mail.send paused\n");
    CHECK(rebound_queue({"pause", "mail.send"}, database).out ==
          "handler mail.send was already paused\n");
    CHECK(database.store().paused_handlers(connection) == std::vector<std::string>{"mail.send"});
    CHECK(rebound_queue({"resume", "mail.send"}, database).out == "handler mail.send resumed\n");
    CHECK(rebound_queue({"resume", "mail.send", "--format", "json"}, database).out ==
          "{\"handler\":\"mail.send\",\"paused\":false,\"changed\":false}\n");
}

TEST_CASE("queue sqlite: the queue command line rejects bad arguments clearly", "[sqlite]") {
    QueueDatabase database("sqlite");
    CommandResult result = rebound_queue({"requeue", "12", "x1"}, database);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Contains("'x1' is not a message id (a positive integer)"));
    result = rebound_queue({"requeue"}, database);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Contains("give message ids or --handler"));
    result = rebound_queue({"dead", "--limit", "0"}, database);
    CHECK(result.exit_code == 2);
    result = rebound_queue({"status", "--format", "xml"}, database);
    CHECK(result.exit_code == 2);
    // Prometheus text is for status only, never a silent fallback to text.
    result = rebound_queue({"dead", "--format", "prometheus"}, database);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Contains("prometheus"));

    odbc::Connection connection = database.connect();
    connection.execute("DROP TABLE rebound_queue_schema");
    result = rebound_queue({"status"}, database);
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.err, Contains("no retry queue tables: run `rebound queue init`"));

    result = run_command({REBOUND_CLI, "queue", "status", "--dsn", "Driver={NoSuchDriver};X=1",
                          "--vendor-maps", REBOUND_VENDOR_MAP_DIR});
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.err, Contains("cannot connect to the database --dsn names"));
}

}  // namespace
}  // namespace rebound::testing

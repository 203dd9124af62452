// `rebound queue` (docs/cli.md) against a real SQLite queue: init, status, dead, requeue, discard,
// pause and resume in text and JSON, and the errors for bad arguments and unknown ids.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "queue_test_support.hpp"
#include "rebound/output_text.hpp"
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
                       const std::string& handler, std::optional<std::string> key,
                       const std::string& message = "bad payload") {
    const std::int64_t id = database.store().enqueue(
        connection, queue::NewMessage{.handler = handler, .key = std::move(key)});
    connection.set_autocommit(false);
    const std::vector<std::string> handlers{handler};
    const auto claimed =
        database.store().claim(connection, handlers, 1, std::chrono::seconds(30), "cli-test");
    REQUIRE(claimed.size() == 1);
    queue::AttemptFailure failure;
    failure.error = {.category = "data_error", .message = message};
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
}

CommandResult queue_status_with_dsn(const std::string& dsn) {
    return run_command(
        {REBOUND_CLI, "queue", "status", "--dsn", dsn, "--vendor-maps", REBOUND_VENDOR_MAP_DIR});
}

// The driver manager's own diagnostic is the explanation: unixODBC reports a driver it cannot
// load only as the warning 01000, which the classifier skips, and that record was dropped.
TEST_CASE("queue sqlite: a connection error shows the driver's SQLSTATE and message", "[sqlite]") {
    CommandResult result = queue_status_with_dsn("Driver={NoSuchDriver};X=1");
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.err, Contains("cannot connect to the database --dsn names: unknown (01000, "
                                    "native 0, phase connect): [unixODBC][Driver Manager]Can't "
                                    "open lib 'NoSuchDriver' : file not found"));
    result = queue_status_with_dsn("DSN=NoSuchDataSource");
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.err, Contains("(IM002, native 0, phase connect): [unixODBC][Driver "
                                    "Manager]Data source name not found"));
    // The message is data: a terminal escape in it is printed visibly, not acted on.
    result = queue_status_with_dsn("Driver={No\x1b[2JSuchDriver};X=1");
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.err, Contains("Can't open lib 'No\\e[2JSuchDriver'"));
    CHECK(result.err.find('\x1b') == std::string::npos);
}

// The SQLite driver creates a missing file: a mistyped path gave an empty database and a
// misleading answer. Only init may create one.
TEST_CASE("queue sqlite: commands other than init refuse a missing database file", "[sqlite]") {
    const std::filesystem::path directory = make_temporary_directory("rebound-queue-cli");
    const std::filesystem::path file = directory / "typo.db";
    const std::string dsn = "Driver={SQLite3};Database=" + file.string() + ";Timeout=5000";
    for (const std::vector<std::string>& command : {std::vector<std::string>{"status"},
                                                    {"dead"},
                                                    {"pause", "h"},
                                                    {"resume", "h"},
                                                    {"requeue", "1"},
                                                    {"discard", "1"}}) {
        std::vector<std::string> arguments{REBOUND_CLI, "queue"};
        arguments.insert(arguments.end(), command.begin(), command.end());
        arguments.insert(arguments.end(), {"--dsn", dsn, "--vendor-maps", REBOUND_VENDOR_MAP_DIR});
        const CommandResult result = run_command(arguments);
        INFO(command[0]);
        CHECK(result.exit_code == 1);
        CHECK_THAT(result.err,
                   Contains("rebound queue " + command[0] + ": no SQLite database at '" +
                            file.string() + "' (the Database of --dsn)"));
        CHECK_FALSE(std::filesystem::exists(file));
    }
    const CommandResult init = run_command(
        {REBOUND_CLI, "queue", "init", "--dsn", dsn, "--vendor-maps", REBOUND_VENDOR_MAP_DIR});
    CHECK(init.exit_code == 0);
    CHECK(std::filesystem::exists(file));
    CHECK(queue_status_with_dsn(dsn).exit_code == 0);
    std::filesystem::remove_all(directory);
}

TEST_CASE("queue sqlite: an unknown queue command and an out-of-range limit are usage errors",
          "[sqlite]") {
    QueueDatabase database("sqlite");
    CommandResult result = rebound_queue({"frob"}, database);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Contains("rebound queue: unknown command 'frob'; commands are "));
    result = rebound_queue({"stauts"}, database);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Contains("(did you mean 'status'?)"));
    for (const char* limit : {"99999999999", "0", "100001", "-1", "1e3"}) {
        result = rebound_queue({"dead", "--limit", limit}, database);
        CHECK(result.exit_code == 2);
        CHECK_THAT(result.err, Contains("--limit: expected a whole number from 1 to 100000, got '" +
                                        std::string(limit) + "'"));
    }
    CHECK(rebound_queue({"dead", "--limit", "100000"}, database).exit_code == 0);
    result = rebound_queue({"pause", "h", "--lock-timeout", "0"}, database);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Contains("--lock-timeout: expected a whole number from 1 to 3600"));
}

// Another transaction holds SQLite's write lock for the whole command: pause gives up after
// --lock-timeout with an error saying what it waited for, although the connection string lets
// the driver wait ten minutes (longer than the test may run).
TEST_CASE("queue sqlite: pause on a locked database gives up after --lock-timeout", "[sqlite]") {
    QueueDatabase database("sqlite");
    std::string dsn = database.connection_string();
    dsn.replace(dsn.find("Timeout=5000"), 12, "Timeout=600000");
    odbc::Connection holder = database.connect();
    holder.set_autocommit(false);
    holder.execute("INSERT INTO rebound_queue_paused (handler, paused_at) VALUES ('other', 0)");
    CommandResult result =
        run_command({REBOUND_CLI, "queue", "pause", "mail.send", "--lock-timeout", "1", "--dsn",
                     dsn, "--vendor-maps", REBOUND_VENDOR_MAP_DIR});
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.err,
               Contains("rebound queue pause: gave up after waiting 1 s for a lock another "
                        "transaction holds (--lock-timeout): lock_timeout ("));
    CHECK_THAT(result.err, Contains("database is locked"));
    holder.rollback();
    result = run_command({REBOUND_CLI, "queue", "pause", "mail.send", "--dsn", dsn, "--vendor-maps",
                          REBOUND_VENDOR_MAP_DIR});
    CHECK(result.exit_code == 0);
    CHECK(result.out == "handler mail.send paused\n");
}

// A dead letter's handler, key and error message are data from the database: bytes that are not
// UTF-8 and control bytes in them must neither hide the dead-letter queue (JSON that cannot be
// written) nor reach a terminal raw (docs/cli.md, Output safe to print).
TEST_CASE("queue sqlite: dead letters with bytes that are not UTF-8 and control bytes are shown",
          "[sqlite]") {
    QueueDatabase database("sqlite");
    odbc::Connection connection = database.connect();
    const std::string handler = "pay\xff\x1b[31mments";
    const std::string key =
        "k\xe2\x80\xae"
        "1";
    const std::int64_t dead =
        make_dead(database, connection, handler, key, "disk \x1b]0;owned\x07 \xc2\x9b \xfe full");
    database.store().enqueue(connection, queue::NewMessage{.handler = handler, .key = key});
    const std::string replaced = "pay\xef\xbf\xbd\x1b[31mments";  // what JSON carries
    const std::string escaped = "pay\\xff\\e[31mments";           // what a terminal gets

    CommandResult listed = rebound_queue({"dead", "--format", "json"}, database);
    REQUIRE(listed.exit_code == 0);
    const Json messages = Json::parse(listed.out)["messages"];
    REQUIRE(messages.size() == 1);
    CHECK(messages[0]["id"] == dead);
    CHECK(messages[0]["handler"] == replaced);
    CHECK(messages[0]["key"] == key);
    CHECK(messages[0]["last_error"]["message"] ==
          "disk \x1b]0;owned\x07 \xc2\x9b \xef\xbf\xbd full");

    listed = rebound_queue({"dead"}, database);
    REQUIRE(listed.exit_code == 0);
    CHECK(listed.out.find('\x1b') == std::string::npos);
    CHECK(rebound::is_valid_utf8(listed.out));
    CHECK_THAT(listed.out, Contains(std::to_string(dead) + " " + escaped + " key 'k\\u202e1'"));
    CHECK_THAT(listed.out, Contains("last error: data_error: disk \\e]0;owned\\x07 \\u009b "
                                    "\\xfe full\n"));

    CommandResult status = rebound_queue({"status", "--format", "json"}, database);
    REQUIRE(status.exit_code == 0);
    const Json report = Json::parse(status.out);
    REQUIRE(report["handlers"].size() == 1);
    CHECK(report["handlers"][0]["handler"] == replaced);
    CHECK(report["handlers"][0]["dead"] == 1);
    CHECK(report["blocked_keys"][0]["key"] == key);

    status = rebound_queue({"status"}, database);
    REQUIRE(status.exit_code == 0);
    CHECK(status.out.find('\x1b') == std::string::npos);
    CHECK(rebound::is_valid_utf8(status.out));
    CHECK_THAT(status.out, Contains(escaped));
    CHECK_THAT(status.out, Contains("blocked key 'k\\u202e1' of " + escaped));

    // Prometheus label values are valid UTF-8, escaped as the exposition format says.
    status = rebound_queue({"status", "--format", "prometheus"}, database);
    REQUIRE(status.exit_code == 0);
    CHECK(rebound::is_valid_utf8(status.out));
    CHECK_THAT(status.out,
               Contains("rebound_queue_messages{handler=\"" + replaced + "\",state=\"dead\"} 1\n"));
}

}  // namespace
}  // namespace rebound::testing

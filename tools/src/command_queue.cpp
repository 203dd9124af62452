// rebound queue init|status|dead|requeue|discard|pause|resume --dsn DSN [--format text|json]
// (status also --format prometheus):
// operating the retry queue (docs/queue.md, docs/cli.md). Every command is one short transaction
// of its own, safe while workers run: requeue and discard only touch dead messages, which no
// worker holds.
#include <charconv>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_support.hpp"
#include "connection_string.hpp"
#include "rebound/odbc/connection.hpp"
#include "rebound/queue/queue_metrics.hpp"
#include "rebound/queue/queue_schema.hpp"
#include "rebound/queue/queue_store.hpp"
#include "vendor_maps.hpp"

namespace rebound::cli {
namespace {

struct QueueOptions {
    std::string dsn;
    std::string format = "text";
    std::string vendor_maps;
    std::string handler;
    int limit = 50;
    int lock_timeout = 10;  // seconds
    bool reset_attempts = false;
    std::vector<std::string> ids;
};

using Json = nlohmann::ordered_json;

// "12ms", "3.4s", "2h05m": an age for people.
std::string age_text(std::int64_t microseconds) {
    std::ostringstream text;
    const double ms = static_cast<double>(microseconds) / 1000.0;
    if (ms < 1000.0) {
        text << std::fixed << std::setprecision(0) << ms << "ms";
    } else if (ms < 60'000.0) {
        text << std::fixed << std::setprecision(1) << ms / 1000.0 << "s";
    } else {
        const std::int64_t minutes = microseconds / 60'000'000;
        text << minutes / 60 << "h" << std::setw(2) << std::setfill('0') << minutes % 60 << "m";
    }
    return text.str();
}

// Whole milliseconds by integer division, on purpose, then the rest as a fraction.
double milliseconds(std::int64_t microseconds) {
    // NOLINTNEXTLINE(bugprone-integer-division)
    return static_cast<double>(microseconds / 1000) +
           static_cast<double>(microseconds % 1000) / 1000.0;
}

// The largest --limit of `dead` and --lock-timeout (seconds).
constexpr int kMaxDeadLimit = 100'000;
constexpr int kMaxLockTimeout = 3600;

// Makes lock waits of the session give up after `seconds` (--lock-timeout): PostgreSQL's
// lock_timeout, MariaDB's InnoDB row-lock and metadata-lock waits. SQLite's busy timeout is the
// driver's `Timeout` attribute, set in the connection string (sqliteodbc keeps its own busy
// handler: `PRAGMA busy_timeout` does not change how long it waits).
void limit_lock_waits(odbc::Connection& connection, int seconds) {
    const std::string value = std::to_string(seconds);
    switch (connection.vendor().value_or(Vendor::Generic)) {
        case Vendor::PostgreSql:
        case Vendor::CockroachDb:
            connection.execute("SET lock_timeout = '" + value + "s'");
            break;
        case Vendor::MySql:
            connection.execute("SET SESSION innodb_lock_wait_timeout = " + value +
                               ", lock_wait_timeout = " + value);
            break;
        default:
            break;
    }
}

class QueueCommand {
  public:
    // `creates`: the command may create the database (init); every other command needs one
    // that exists.
    QueueCommand(std::string name, const QueueOptions& options, bool creates = false)
        : name_("rebound queue " + std::move(name)), options_(options), creates_(creates) {}

    // Connects; prints the reason and returns false when it cannot.
    bool connect(int& exit_code) {
        if (options_.dsn.empty()) {
            std::cerr << name_ << ": --dsn is required (an ODBC connection string, e.g. "
                      << "\"Driver={PostgreSQL Unicode};Server=...\")\n";
            exit_code = kExitUsage;
            return false;
        }
        // The vendor is known only once connected: no note about a missing map here.
        const auto classifier =
            load_vendor_maps_or_report(options_.vendor_maps, exit_code, "queue", std::nullopt);
        if (!classifier) {
            return false;
        }
        std::string dsn = options_.dsn;
        const std::optional<std::filesystem::path> file = sqlite_file(dsn);
        if (file) {
            dsn = with_attribute(dsn, "Timeout", std::to_string(options_.lock_timeout) + "000");
        }
        // The SQLite driver creates a missing file: a mistyped path would be an empty queue.
        if (file && !creates_) {
            std::error_code error;
            if (!std::filesystem::exists(*file, error)) {
                std::cerr << name_ << ": no SQLite database at '" << printable(file->string())
                          << "' (the Database of --dsn): check the path; `rebound queue init` "
                          << "creates a queue\n";
                exit_code = kExitInputErrors;
                return false;
            }
        }
        try {
            connection_.emplace(odbc::Environment::create(), classifier, dsn);
            store_.emplace(connection_->vendor().value_or(Vendor::Generic));
        } catch (const odbc::DatabaseError& error) {
            std::cerr << name_
                      << ": cannot connect to the database --dsn names: " << printable(error.what())
                      << '\n';
            exit_code = kExitInputErrors;
            return false;
        } catch (const queue::SchemaError& error) {
            std::cerr << name_ << ": " << printable(error.what()) << '\n';
            exit_code = kExitInputErrors;
            return false;
        }
        return true;
    }

    // Runs `body` (which returns the exit code), reporting database and schema errors.
    template <class Body>
    int run(Body&& body) {
        int exit_code = kExitOk;
        if (!connect(exit_code)) {
            return exit_code;
        }
        try {
            limit_lock_waits(*connection_, options_.lock_timeout);
            return body(*connection_, *store_);
        } catch (const odbc::DatabaseError& error) {
            if (error.category() == ErrorCategory::LockTimeout) {
                std::cerr << name_ << ": gave up after waiting " << options_.lock_timeout
                          << " s for a lock another transaction holds (--lock-timeout): "
                          << printable(error.what()) << '\n';
            } else {
                std::cerr << name_ << ": database error: " << printable(error.what()) << '\n';
            }
        } catch (const queue::SchemaError& error) {
            std::cerr << name_ << ": " << printable(error.what()) << '\n';
        }
        return kExitInputErrors;
    }

    bool json() const { return options_.format == "json"; }
    const std::string& name() const { return name_; }

  private:
    std::string name_;
    const QueueOptions& options_;
    bool creates_;
    std::optional<odbc::Connection> connection_;
    std::optional<queue::QueueStore> store_;
};

// Message ids from the arguments; prints a usage error for one that is not a positive integer.
std::optional<std::vector<std::int64_t>> parse_ids(const std::string& command,
                                                   const std::vector<std::string>& texts) {
    std::vector<std::int64_t> ids;
    for (const std::string& text : texts) {
        std::int64_t id = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
        if (error != std::errc{} || end != text.data() + text.size() || id <= 0) {
            std::cerr << "rebound queue " << command << ": '" << printable(text)
                      << "' is not a message id (a positive integer)\n";
            return std::nullopt;
        }
        ids.push_back(id);
    }
    return ids;
}

bool valid_handler(const std::string& command, const std::string& handler) {
    if (handler.empty() || handler.size() > 200) {
        std::cerr << "rebound queue " << command << ": a handler name has 1 to 200 characters\n";
        return false;
    }
    return true;
}

Json error_json(const queue::LastError& e) {
    Json error{{"category", e.category}, {"sqlstate", e.sqlstate}};
    error["native_code"] = e.native_code ? Json(*e.native_code) : Json(nullptr);
    error["http_status"] = e.http_status;
    error["message"] = e.message;
    return error;
}

int print_operator_result(const QueueCommand& command, std::string_view verb,
                          const queue::OperatorResult& result) {
    if (command.json()) {
        Json rejected = Json::array();
        for (const queue::RejectedId& r : result.rejected) {
            rejected.push_back({{"id", r.id}, {"reason", r.reason}});
        }
        print_line(json_output(Json{{"applied", result.applied}, {"rejected", rejected}}));
    } else {
        std::ostringstream text;
        text << verb << ' ' << result.applied.size() << " message"
             << (result.applied.size() == 1 ? "" : "s");
        for (std::int64_t id : result.applied) {
            text << ' ' << id;
        }
        print_line(text.str());
    }
    for (const queue::RejectedId& r : result.rejected) {
        std::cerr << command.name() << ": message " << r.id << ": " << printable(r.reason) << '\n';
    }
    return result.rejected.empty() ? kExitOk : kExitInputErrors;
}

int run_init(const QueueOptions& options) {
    QueueCommand command("init", options, /*creates=*/true);
    return command.run([&](odbc::Connection& connection, const queue::QueueStore&) {
        const queue::MigrationResult result = queue::migrate(connection);
        if (command.json()) {
            print_line(json_output(
                Json{{"from_version", result.from_version}, {"to_version", result.to_version}}));
        } else if (result.from_version == result.to_version) {
            print_line("queue schema is at version " + std::to_string(result.to_version) +
                       ": nothing to do");
        } else {
            print_line("queue schema migrated from version " + std::to_string(result.from_version) +
                       " to " + std::to_string(result.to_version));
        }
        return kExitOk;
    });
}

void print_status_text(const queue::QueueStatus& status) {
    std::ostringstream text;
    text << std::left << std::setw(24) << "handler" << std::right << std::setw(8) << "ready"
         << std::setw(8) << "due" << std::setw(8) << "leased" << std::setw(9) << "done"
         << std::setw(8) << "dead" << std::setw(12) << "oldest due"
         << "  paused\n";
    for (const queue::HandlerCounts& h : status.handlers) {
        text << std::left << std::setw(24) << printable(h.handler) << std::right << std::setw(8)
             << h.ready << std::setw(8) << h.due << std::setw(8) << h.leased << std::setw(9)
             << h.done << std::setw(8) << h.dead << std::setw(12)
             << (h.oldest_due_age_us ? age_text(*h.oldest_due_age_us) : "-") << "  "
             << (h.paused ? "yes" : "no") << '\n';
    }
    if (status.handlers.empty()) {
        text << "(no messages)\n";
    }
    for (const queue::BlockedKey& b : status.blocked_keys) {
        text << "blocked key '" << printable(b.key) << "' of " << printable(b.handler)
             << ": dead message " << b.dead_id << " holds back " << b.waiting << " message"
             << (b.waiting == 1 ? "" : "s") << " (requeue or discard it)\n";
    }
    print_text(text.str());
}

int run_status(const QueueOptions& options) {
    QueueCommand command("status", options);
    return command.run([&](odbc::Connection& connection, const queue::QueueStore& store) {
        queue::require_current_schema(connection);
        const queue::QueueStatus status = store.status(connection);
        if (options.format == "prometheus") {
            std::cout << queue::render_status_metrics(status);
            return kExitOk;
        }
        if (!command.json()) {
            print_status_text(status);
            return kExitOk;
        }
        Json handlers = Json::array();
        for (const queue::HandlerCounts& h : status.handlers) {
            handlers.push_back(
                {{"handler", h.handler},
                 {"ready", h.ready},
                 {"due", h.due},
                 {"leased", h.leased},
                 {"done", h.done},
                 {"dead", h.dead},
                 {"oldest_due_age_ms",
                  h.oldest_due_age_us ? Json(milliseconds(*h.oldest_due_age_us)) : Json(nullptr)},
                 {"paused", h.paused}});
        }
        Json blocked = Json::array();
        for (const queue::BlockedKey& b : status.blocked_keys) {
            blocked.push_back({{"handler", b.handler},
                               {"key", b.key},
                               {"dead_id", b.dead_id},
                               {"waiting", b.waiting}});
        }
        print_line(json_output(
            Json{{"now_us", status.now}, {"handlers", handlers}, {"blocked_keys", blocked}}));
        return kExitOk;
    });
}

int run_dead(const QueueOptions& options) {
    QueueCommand command("dead", options);
    return command.run([&](odbc::Connection& connection, const queue::QueueStore& store) {
        queue::require_current_schema(connection);
        const std::vector<queue::Message> dead =
            store.dead(connection, options.handler, options.limit);
        if (command.json()) {
            Json messages = Json::array();
            for (const queue::Message& m : dead) {
                messages.push_back({{"id", m.id},
                                    {"handler", m.handler},
                                    {"key", m.key ? Json(*m.key) : Json(nullptr)},
                                    {"command_id", m.command_id},
                                    {"attempt", m.attempt},
                                    {"reason", m.dead_reason},
                                    {"route", m.route.empty() ? Json(nullptr) : Json(m.route)},
                                    {"created_at_us", m.created_at},
                                    {"last_error", error_json(m.last_error)}});
            }
            print_line(json_output(Json{{"messages", messages}}));
            return kExitOk;
        }
        std::ostringstream text;
        for (const queue::Message& m : dead) {
            // Every text here is data the database holds: printed escaped.
            const queue::LastError& e = m.last_error;
            text << m.id << ' ' << printable(m.handler)
                 << (m.key ? " key '" + printable(*m.key) + "'" : "") << ": "
                 << printable(m.dead_reason) << " after " << m.attempt << " attempt"
                 << (m.attempt == 1 ? "" : "s")
                 << (m.route.empty() ? "" : ", route " + printable(m.route))
                 << "\n    last error: " << printable(e.category)
                 << (e.sqlstate.empty() ? "" : " (" + printable(e.sqlstate) + ")")
                 << (e.message.empty() ? "" : ": " + printable(e.message)) << '\n';
        }
        if (dead.empty()) {
            text << "no dead messages\n";
        }
        print_text(text.str());
        return kExitOk;
    });
}

int run_requeue(const QueueOptions& options) {
    if (options.ids.empty() == options.handler.empty()) {
        std::cerr << "rebound queue requeue: give message ids or --handler, not both or neither\n";
        return kExitUsage;
    }
    const auto ids = parse_ids("requeue", options.ids);
    if (!ids || (!options.handler.empty() && !valid_handler("requeue", options.handler))) {
        return kExitUsage;
    }
    QueueCommand command("requeue", options);
    return command.run([&](odbc::Connection& connection, const queue::QueueStore& store) {
        queue::require_current_schema(connection);
        if (!options.handler.empty()) {
            queue::OperatorResult result;
            result.applied =
                store.requeue_handler(connection, options.handler, options.reset_attempts);
            return print_operator_result(command, "requeued", result);
        }
        return print_operator_result(command, "requeued",
                                     store.requeue(connection, *ids, options.reset_attempts));
    });
}

int run_discard(const QueueOptions& options) {
    const auto ids = parse_ids("discard", options.ids);
    if (!ids) {
        return kExitUsage;
    }
    QueueCommand command("discard", options);
    return command.run([&](odbc::Connection& connection, const queue::QueueStore& store) {
        queue::require_current_schema(connection);
        return print_operator_result(command, "discarded", store.discard(connection, *ids));
    });
}

int run_pause_or_resume(const QueueOptions& options, bool pause) {
    const std::string verb = pause ? "pause" : "resume";
    if (!valid_handler(verb, options.handler)) {
        return kExitUsage;
    }
    QueueCommand command(verb, options);
    return command.run([&](odbc::Connection& connection, const queue::QueueStore& store) {
        queue::require_current_schema(connection);
        const bool changed = pause ? store.pause(connection, options.handler)
                                   : store.resume(connection, options.handler);
        if (command.json()) {
            print_line(json_output(
                Json{{"handler", options.handler}, {"paused", pause}, {"changed", changed}}));
        } else {
            print_text("handler " + options.handler +
                       (changed ? (pause ? " paused" : " resumed")
                                : (pause ? " was already paused" : " was not paused")));
        }
        return kExitOk;
    });
}

CLI::App* add_command(CLI::App& queue, const std::string& name, const std::string& description,
                      QueueOptions& options,
                      const std::vector<std::string>& formats = {"text", "json"}) {
    CLI::App* command = queue.add_subcommand(name, description);
    command->add_option("--dsn", options.dsn, "ODBC connection string of the queue's database")
        ->required();
    command->add_option("--format", options.format, "Output format")->check(CLI::IsMember(formats));
    command->add_option("--vendor-maps", options.vendor_maps,
                        "Directory of vendor error maps (default: the installed ones)");
    add_whole_number_option(*command, "--lock-timeout", options.lock_timeout, 1, kMaxLockTimeout,
                            "Seconds to wait for a lock another transaction holds before giving up "
                            "(1 to 3600; default 10)");
    return command;
}

}  // namespace

void register_queue(CLI::App& app, CommandOutcome& outcome) {
    auto options = std::make_shared<QueueOptions>();
    CLI::App* queue = app.add_subcommand(
        "queue", "Operate the retry queue: init, status, dead, requeue, discard, pause, resume");
    queue->require_subcommand(1);

    add_command(*queue, "init", "Create or migrate the queue's tables", *options)
        ->callback([options, &outcome] { outcome.exit_code = run_init(*options); });
    add_command(*queue, "status", "Counts by handler and state, oldest due, blocked keys", *options,
                {"text", "json", "prometheus"})
        ->callback([options, &outcome] { outcome.exit_code = run_status(*options); });
    CLI::App* dead =
        add_command(*queue, "dead", "List dead messages with their last error", *options);
    dead->add_option("--handler", options->handler, "Only this handler's");
    add_whole_number_option(*dead, "--limit", options->limit, 1, kMaxDeadLimit,
                            "At most this many (1 to 100000; default 50)");
    dead->callback([options, &outcome] { outcome.exit_code = run_dead(*options); });
    CLI::App* requeue = add_command(*queue, "requeue", "Make dead messages ready again", *options);
    requeue->add_option("ID", options->ids, "Message ids");
    requeue->add_option("--handler", options->handler, "Every dead message of this handler");
    requeue->add_flag("--reset-attempts", options->reset_attempts,
                      "Start counting attempts from zero again");
    requeue->callback([options, &outcome] { outcome.exit_code = run_requeue(*options); });
    CLI::App* discard = add_command(*queue, "discard", "Delete dead messages", *options);
    discard->add_option("ID", options->ids, "Message ids")->required();
    discard->callback([options, &outcome] { outcome.exit_code = run_discard(*options); });
    CLI::App* pause =
        add_command(*queue, "pause", "Workers skip this handler's messages", *options);
    pause->add_option("HANDLER", options->handler, "Handler name")->required();
    pause->callback(
        [options, &outcome] { outcome.exit_code = run_pause_or_resume(*options, true); });
    CLI::App* resume = add_command(*queue, "resume", "Workers run this handler again", *options);
    resume->add_option("HANDLER", options->handler, "Handler name")->required();
    resume->callback(
        [options, &outcome] { outcome.exit_code = run_pause_or_resume(*options, false); });
}

}  // namespace rebound::cli

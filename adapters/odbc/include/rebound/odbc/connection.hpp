// Environment and Connection: a small RAII layer over unixODBC handles that reports every
// failure as a classified DatabaseError.
//
//   auto environment = rebound::odbc::Environment::create();
//   rebound::odbc::Connection connection(environment, classifier,
//       "Driver={PostgreSQL Unicode};Server=127.0.0.1;Port=5432;Database=app;Uid=app;Pwd=...");
//   connection.execute("UPDATE account SET balance = balance - ? WHERE id = ?", {{100}, {7}});
//
// Errors carry their phase: connecting (and reconnecting) is `connect`, committing is `commit`,
// everything else `execute` (docs/categories.md: the phase).
//
// Thread safety: an Environment may be shared by any number of threads. A Connection is used by
// one thread at a time (ODBC connection handles are not meant for concurrent statements).
#pragma once

#include <sql.h>
#include <sqlext.h>

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "rebound/odbc/database_error.hpp"
#include "rebound/sql_error_classifier.hpp"

namespace rebound::odbc {

// An ODBC 3 environment handle. Create one per process and share it.
class Environment {
  public:
    // Throws std::runtime_error when the driver manager refuses.
    static std::shared_ptr<const Environment> create();

    Environment(const Environment&) = delete;
    Environment& operator=(const Environment&) = delete;
    ~Environment();

    SQLHENV handle() const noexcept { return handle_; }

  private:
    explicit Environment(SQLHENV handle) noexcept : handle_(handle) {}
    SQLHENV handle_;
};

// A statement parameter (bound as input) or a result value.
struct SqlNull {
    friend bool operator==(SqlNull, SqlNull) = default;
};
using SqlValue = std::variant<SqlNull, std::int64_t, std::string>;

// Rows of text values (NULL is nullopt), as SQL_C_CHAR.
using SqlRow = std::vector<std::optional<std::string>>;

enum class IsolationLevel : std::uint8_t {
    ReadUncommitted,
    ReadCommitted,
    RepeatableRead,
    Serializable
};

// An ODBC connection handle with the environment it was allocated from: disconnected and freed
// on destruction and before it takes another handle; a move leaves the source empty. The
// environment outlives the handle because the handle shares it.
class ConnectionHandle {
  public:
    ConnectionHandle() noexcept = default;
    // Allocates a handle; empty (get() is SQL_NULL_HDBC) when the driver manager refuses.
    explicit ConnectionHandle(std::shared_ptr<const Environment> environment) noexcept;
    ConnectionHandle(ConnectionHandle&& other) noexcept;
    ConnectionHandle& operator=(ConnectionHandle&& other) noexcept;
    ~ConnectionHandle();

    SQLHDBC get() const noexcept { return handle_; }
    // Disconnects (when connected) and frees the handle.
    void reset() noexcept;

  private:
    std::shared_ptr<const Environment> environment_;
    SQLHDBC handle_ = SQL_NULL_HDBC;
};

// Statements a Connection prepared, by SQL text, most recently used last; at most kCapacity
// (the least recently used is freed first). Freed before the session ends.
class PreparedStatements {
  public:
    static constexpr std::size_t kCapacity = 16;

    PreparedStatements() noexcept = default;
    PreparedStatements(PreparedStatements&& other) noexcept;
    PreparedStatements& operator=(PreparedStatements&& other) noexcept;
    ~PreparedStatements();

    // The statement prepared for `sql`, or SQL_NULL_HSTMT; marks it recently used.
    SQLHSTMT find(std::string_view sql) noexcept;
    // Takes ownership of `statement`, prepared for `sql` (freeing the least recently used one
    // when full). Throws std::bad_alloc, after freeing `statement`.
    void add(std::string sql, SQLHSTMT statement);
    // Frees `sql`'s statement (after it failed in a way that may have spoiled it).
    void remove(std::string_view sql) noexcept;
    void clear() noexcept;

  private:
    std::vector<std::pair<std::string, SQLHSTMT>> statements_;
};

class Connection {
  public:
    // Connects with SQLDriverConnect (no dialog) and detects the vendor from SQL_DBMS_NAME unless
    // `vendor` is given. Throws DatabaseError (phase connect).
    Connection(std::shared_ptr<const Environment> environment,
               std::shared_ptr<const SqlErrorClassifier> classifier, std::string connection_string,
               std::optional<Vendor> vendor = std::nullopt);

    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    Connection(Connection&&) noexcept = default;
    Connection& operator=(Connection&&) noexcept = default;
    // Frees the prepared statements, then disconnects (ConnectionHandle); an open transaction is
    // rolled back by the server.
    ~Connection();

    // Drops the current session (if any) and connects again with the same settings. Autocommit,
    // query timeout and isolation are applied again to the new session. Throws DatabaseError
    // (phase connect); the connection is then closed until the next successful reconnect.
    void reconnect();
    bool is_open() const noexcept { return handle_.get() != SQL_NULL_HDBC; }
    // SQL_ATTR_CONNECTION_DEAD: true when the driver knows the session is gone (or closed).
    bool is_dead() const noexcept;

    std::optional<Vendor> vendor() const noexcept { return vendor_; }
    const std::string& dbms_name() const noexcept { return dbms_name_; }
    const SqlErrorClassifier& classifier() const noexcept { return *classifier_; }

    // Session settings; kept across reconnect().
    void set_autocommit(bool enabled);
    bool autocommit() const noexcept { return autocommit_; }
    // SQL_ATTR_QUERY_TIMEOUT of every statement run from now on; nullopt: the driver's default
    // (no limit). Sub-second values round up to one second (ODBC counts whole seconds). On
    // MariaDB the limit is also set as the session's max_statement_time before the next
    // statement, because MariaDB Connector/ODBC 3.1 does not enforce SQL_ATTR_QUERY_TIMEOUT
    // (docs/odbc.md).
    void set_query_timeout(std::optional<std::chrono::milliseconds> timeout) noexcept;
    // SQL_ATTR_TXN_ISOLATION; takes effect for the next transaction. Throws DatabaseError.
    void set_isolation(IsolationLevel level);

    // Runs one statement with input parameters; returns the affected row count (SQLRowCount,
    // -1 when the driver does not know). Throws DatabaseError (phase execute).
    std::int64_t execute(std::string_view sql, std::initializer_list<SqlValue> parameters = {});
    std::int64_t execute(std::string_view sql, const std::vector<SqlValue>& parameters);
    // Runs a query and fetches every row of its first result set as text.
    std::vector<SqlRow> query(std::string_view sql,
                              std::initializer_list<SqlValue> parameters = {});
    std::vector<SqlRow> query(std::string_view sql, const std::vector<SqlValue>& parameters);
    // execute() and query() for a statement a loop runs again and again: it is prepared once per
    // session (SQLPrepare) and kept, so the server parses and plans it once rather than at
    // every run (PreparedStatements::kCapacity statements per connection). The SQL text is the
    // key: put values in parameters, not in the text.
    std::int64_t execute_prepared(std::string_view sql, const std::vector<SqlValue>& parameters);
    std::vector<SqlRow> query_prepared(std::string_view sql,
                                       const std::vector<SqlValue>& parameters);
    // Frees the statements execute_prepared() and query_prepared() kept: the next run of each
    // prepares it again, and the server plans it again for the tables as they are then. A
    // long-lived session over a table that grows calls it now and then, because a plan chosen
    // while the table was empty (a sequential scan) stays cached for the session
    // (docs/queue.md, "Plans that follow the table").
    void release_prepared_statements() noexcept { prepared_.clear(); }
    // The first column of the first row, or nullopt when there is no row or it is NULL.
    std::optional<std::string> query_value(std::string_view sql,
                                           std::initializer_list<SqlValue> parameters = {});

    // SQLEndTran. commit() fails with phase commit, rollback() with phase execute.
    void commit();
    void rollback();

    SQLHDBC handle() const noexcept { return handle_.get(); }

  private:
    void connect();
    void disconnect() noexcept;
    void apply_settings();
    void apply_session_statement_limit();
    // The prepared statement of `sql`, preparing it on first use.
    SQLHSTMT prepared(std::string_view sql);
    // Runs the prepared statement of `sql` and hands it to `body(statement, no_data, fail)`; a
    // failed run frees the statement.
    template <class Body>
    auto run_prepared_statement(std::string_view sql, const std::vector<SqlValue>& parameters,
                                Body&& body);
    [[noreturn]] void fail(SQLSMALLINT handle_type, SQLHANDLE handle, DatabasePhase phase) const;

    std::shared_ptr<const Environment> environment_;
    std::shared_ptr<const SqlErrorClassifier> classifier_;
    std::string connection_string_;
    std::optional<Vendor> configured_vendor_;
    std::optional<Vendor> vendor_;
    std::string dbms_name_;
    // Before handle_: a move assignment frees the old statements before the old session.
    PreparedStatements prepared_;
    ConnectionHandle handle_;
    bool autocommit_ = true;
    std::optional<std::chrono::milliseconds> query_timeout_;
    // The max_statement_time last sent to a MariaDB session (0: none); nullopt: not sent yet.
    std::optional<std::chrono::milliseconds> session_statement_limit_;
    std::optional<IsolationLevel> isolation_;
};

}  // namespace rebound::odbc

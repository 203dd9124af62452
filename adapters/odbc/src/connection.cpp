#include "rebound/odbc/connection.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <utility>

#include "column_text.hpp"
#include "rebound/odbc/vendor_detection.hpp"

namespace rebound::odbc {

namespace {

// ODBC passes integer attribute values in the pointer argument: the cast is its API's.
SQLPOINTER integer_attribute(std::uintptr_t value) noexcept {
    // NOLINTNEXTLINE(performance-no-int-to-ptr)
    return reinterpret_cast<SQLPOINTER>(value);
}

bool contains_mariadb(std::string_view dbms_name) noexcept {
    return dbms_name.find("MariaDB") != std::string_view::npos;
}

SQLULEN isolation_value(IsolationLevel level) noexcept {
    switch (level) {
        case IsolationLevel::ReadUncommitted:
            return SQL_TXN_READ_UNCOMMITTED;
        case IsolationLevel::ReadCommitted:
            return SQL_TXN_READ_COMMITTED;
        case IsolationLevel::RepeatableRead:
            return SQL_TXN_REPEATABLE_READ;
        case IsolationLevel::Serializable:
            break;
    }
    return SQL_TXN_SERIALIZABLE;
}

// A statement handle freed on scope exit.
class Statement {
  public:
    explicit Statement(SQLHSTMT handle) noexcept : handle_(handle) {}
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    ~Statement() { SQLFreeHandle(SQL_HANDLE_STMT, handle_); }
    SQLHSTMT get() const noexcept { return handle_; }

  private:
    SQLHSTMT handle_;
};

// Input parameter buffers; must stay alive (and unmoved) until the statement has run.
class BoundParameters {
  public:
    explicit BoundParameters(const std::vector<SqlValue>& values)
        : values_(values), integers_(values.size()), indicators_(values.size()) {}

    // Returns the failing SQLRETURN, or SQL_SUCCESS.
    SQLRETURN bind(SQLHSTMT statement) {
        for (std::size_t index = 0; index < values_.size(); ++index) {
            const auto number = static_cast<SQLUSMALLINT>(index + 1);
            SQLRETURN rc = SQL_SUCCESS;
            if (const auto* integer = std::get_if<std::int64_t>(&values_[index])) {
                integers_[index] = *integer;
                indicators_[index] = 0;
                rc = SQLBindParameter(statement, number, SQL_PARAM_INPUT, SQL_C_SBIGINT, SQL_BIGINT,
                                      0, 0, &integers_[index], 0, &indicators_[index]);
            } else if (auto* text = std::get_if<std::string>(&values_[index])) {
                const auto length = static_cast<SQLLEN>(text->size());
                indicators_[index] = length;
                const SQLULEN column_size = text->empty() ? 1 : static_cast<SQLULEN>(length);
                rc = SQLBindParameter(statement, number, SQL_PARAM_INPUT, SQL_C_CHAR, SQL_VARCHAR,
                                      column_size, 0, text->data(), length, &indicators_[index]);
            } else {
                indicators_[index] = SQL_NULL_DATA;
                rc = SQLBindParameter(statement, number, SQL_PARAM_INPUT, SQL_C_CHAR, SQL_VARCHAR,
                                      1, 0, nullptr, 0, &indicators_[index]);
            }
            if (!SQL_SUCCEEDED(rc)) {
                return rc;
            }
        }
        return SQL_SUCCESS;
    }

  private:
    std::vector<SqlValue> values_;
    std::vector<std::int64_t> integers_;
    std::vector<SQLLEN> indicators_;
};

}  // namespace

std::shared_ptr<const Environment> Environment::create() {
    SQLHENV handle = nullptr;
    if (!SQL_SUCCEEDED(SQLAllocHandle(SQL_HANDLE_ENV, nullptr, &handle))) {
        throw std::runtime_error("ODBC: the driver manager could not allocate an environment");
    }
    if (!SQL_SUCCEEDED(
            SQLSetEnvAttr(handle, SQL_ATTR_ODBC_VERSION, integer_attribute(SQL_OV_ODBC3), 0))) {
        SQLFreeHandle(SQL_HANDLE_ENV, handle);
        throw std::runtime_error("ODBC: the driver manager refused ODBC version 3");
    }
    return std::shared_ptr<const Environment>(new Environment(handle));
}

Environment::~Environment() {
    SQLFreeHandle(SQL_HANDLE_ENV, handle_);
}

ConnectionHandle::ConnectionHandle(std::shared_ptr<const Environment> environment) noexcept
    : environment_(std::move(environment)) {
    if (!SQL_SUCCEEDED(SQLAllocHandle(SQL_HANDLE_DBC, environment_->handle(), &handle_))) {
        handle_ = SQL_NULL_HDBC;
    }
}

ConnectionHandle::ConnectionHandle(ConnectionHandle&& other) noexcept
    : environment_(std::move(other.environment_)), handle_(std::exchange(other.handle_, nullptr)) {}

ConnectionHandle& ConnectionHandle::operator=(ConnectionHandle&& other) noexcept {
    if (this != &other) {
        reset();
        environment_ = std::move(other.environment_);
        handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
}

ConnectionHandle::~ConnectionHandle() {
    reset();
}

void ConnectionHandle::reset() noexcept {
    if (handle_ != SQL_NULL_HDBC) {
        // Fails harmlessly (08003) on a handle that never connected.
        SQLDisconnect(handle_);
        SQLFreeHandle(SQL_HANDLE_DBC, handle_);
        handle_ = SQL_NULL_HDBC;
    }
}

Connection::Connection(std::shared_ptr<const Environment> environment,
                       std::shared_ptr<const SqlErrorClassifier> classifier,
                       std::string connection_string, std::optional<Vendor> vendor)
    : environment_(std::move(environment)),
      classifier_(std::move(classifier)),
      connection_string_(std::move(connection_string)),
      configured_vendor_(vendor),
      vendor_(vendor) {
    if (!environment_ || !classifier_) {
        throw std::invalid_argument(
            "rebound::odbc::Connection needs an environment and a classifier");
    }
    connect();
}

void Connection::fail(SQLSMALLINT handle_type, SQLHANDLE handle, DatabasePhase phase) const {
    std::vector<DiagnosticRecord> records = read_diagnostic_records(handle_type, handle);
    if (handle == nullptr) {
        // Used after a failed reconnect: ODBC's own SQLSTATE for "connection not open".
        records.push_back({"08003", 0, "rebound::odbc: the connection is not open"});
    }
    DatabaseFailure failure = classify_failure(*classifier_, vendor_, phase, std::move(records));
    // Asked only when no rule knew the failure: the question may cost the driver a round trip.
    if (failure.category == ErrorCategory::Unknown && phase != DatabasePhase::Connect &&
        handle != nullptr && is_dead()) {
        failure = classify_failure(*classifier_, vendor_, phase, std::move(failure.records),
                                   /*session_dead=*/true);
    }
    throw DatabaseError(std::move(failure));
}

void Connection::connect() {
    ConnectionHandle handle(environment_);
    if (handle.get() == SQL_NULL_HDBC) {
        fail(SQL_HANDLE_ENV, environment_->handle(), DatabasePhase::Connect);
    }
    std::vector<SQLCHAR> text(connection_string_.begin(), connection_string_.end());
    text.push_back('\0');
    const SQLRETURN rc = SQLDriverConnect(handle.get(), nullptr, text.data(), SQL_NTS, nullptr, 0,
                                          nullptr, SQL_DRIVER_NOPROMPT);
    if (!SQL_SUCCEEDED(rc)) {
        fail(SQL_HANDLE_DBC, handle.get(), DatabasePhase::Connect);
    }
    handle_ = std::move(handle);
    dbms_name_ = read_dbms_name(handle_.get());
    vendor_ = configured_vendor_ ? configured_vendor_ : vendor_from_dbms_name(dbms_name_);
    try {
        apply_settings();
    } catch (...) {
        disconnect();
        throw;
    }
}

void Connection::disconnect() noexcept {
    session_statement_limit_.reset();
    prepared_.clear();
    handle_.reset();
}

Connection::~Connection() {
    prepared_.clear();
}

PreparedStatements::PreparedStatements(PreparedStatements&& other) noexcept
    : statements_(std::exchange(other.statements_, {})) {}

PreparedStatements& PreparedStatements::operator=(PreparedStatements&& other) noexcept {
    if (this != &other) {
        clear();
        statements_ = std::exchange(other.statements_, {});
    }
    return *this;
}

PreparedStatements::~PreparedStatements() {
    clear();
}

SQLHSTMT PreparedStatements::find(std::string_view sql) noexcept {
    const auto found = std::find_if(statements_.begin(), statements_.end(),
                                    [sql](const auto& entry) { return entry.first == sql; });
    if (found == statements_.end()) {
        return SQL_NULL_HSTMT;
    }
    std::rotate(found, found + 1, statements_.end());
    return statements_.back().second;
}

void PreparedStatements::add(std::string sql, SQLHSTMT statement) {
    try {
        if (statements_.size() >= kCapacity) {
            SQLFreeHandle(SQL_HANDLE_STMT, statements_.front().second);
            statements_.erase(statements_.begin());
        }
        statements_.emplace_back(std::move(sql), statement);
    } catch (...) {
        SQLFreeHandle(SQL_HANDLE_STMT, statement);
        throw;
    }
}

void PreparedStatements::remove(std::string_view sql) noexcept {
    const auto found = std::find_if(statements_.begin(), statements_.end(),
                                    [sql](const auto& entry) { return entry.first == sql; });
    if (found != statements_.end()) {
        SQLFreeHandle(SQL_HANDLE_STMT, found->second);
        statements_.erase(found);
    }
}

void PreparedStatements::clear() noexcept {
    for (const auto& entry : statements_) {
        SQLFreeHandle(SQL_HANDLE_STMT, entry.second);
    }
    statements_.clear();
}

void Connection::reconnect() {
    disconnect();
    connect();
}

bool Connection::is_dead() const noexcept {
    if (!is_open()) {
        return true;
    }
    SQLUINTEGER dead = SQL_CD_FALSE;
    const SQLRETURN rc = SQLGetConnectAttr(handle(), SQL_ATTR_CONNECTION_DEAD, &dead, 0, nullptr);
    return SQL_SUCCEEDED(rc) && dead == SQL_CD_TRUE;
}

void Connection::apply_settings() {
    // Isolation first: drivers refuse to change it inside a transaction.
    if (isolation_) {
        if (!SQL_SUCCEEDED(SQLSetConnectAttr(handle(), SQL_ATTR_TXN_ISOLATION,
                                             integer_attribute(isolation_value(*isolation_)), 0))) {
            fail(SQL_HANDLE_DBC, handle(), DatabasePhase::Execute);
        }
    }
    const std::uintptr_t mode = autocommit_ ? SQL_AUTOCOMMIT_ON : SQL_AUTOCOMMIT_OFF;
    if (!SQL_SUCCEEDED(
            SQLSetConnectAttr(handle(), SQL_ATTR_AUTOCOMMIT, integer_attribute(mode), 0))) {
        fail(SQL_HANDLE_DBC, handle(), DatabasePhase::Execute);
    }
}

void Connection::set_autocommit(bool enabled) {
    if (is_open() && enabled != autocommit_) {
        const std::uintptr_t mode = enabled ? SQL_AUTOCOMMIT_ON : SQL_AUTOCOMMIT_OFF;
        if (!SQL_SUCCEEDED(
                SQLSetConnectAttr(handle(), SQL_ATTR_AUTOCOMMIT, integer_attribute(mode), 0))) {
            fail(SQL_HANDLE_DBC, handle(), DatabasePhase::Execute);
        }
    }
    autocommit_ = enabled;
}

void Connection::set_query_timeout(std::optional<std::chrono::milliseconds> timeout) noexcept {
    query_timeout_ = timeout;
}

void Connection::set_isolation(IsolationLevel level) {
    if (is_open() && isolation_ != level) {
        if (!SQL_SUCCEEDED(SQLSetConnectAttr(handle(), SQL_ATTR_TXN_ISOLATION,
                                             integer_attribute(isolation_value(level)), 0))) {
            fail(SQL_HANDLE_DBC, handle(), DatabasePhase::Execute);
        }
    }
    isolation_ = level;
}

std::int64_t Connection::execute(std::string_view sql, std::initializer_list<SqlValue> parameters) {
    return execute(sql, std::vector<SqlValue>(parameters));
}

std::vector<SqlRow> Connection::query(std::string_view sql,
                                      std::initializer_list<SqlValue> parameters) {
    return query(sql, std::vector<SqlValue>(parameters));
}

std::optional<std::string> Connection::query_value(std::string_view sql,
                                                   std::initializer_list<SqlValue> parameters) {
    const std::vector<SqlRow> rows = query(sql, parameters);
    if (rows.empty() || rows.front().empty()) {
        return std::nullopt;
    }
    return rows.front().front();
}

namespace {

// SQL_ATTR_QUERY_TIMEOUT of `statement`: whole seconds rounded up, at least 1; 0 (no limit) for
// nullopt.
template <class Fail>
void set_timeout(SQLHSTMT statement, std::optional<std::chrono::milliseconds> timeout,
                 const Fail& fail) {
    const auto milliseconds = timeout ? timeout->count() : 0;
    const auto seconds = static_cast<std::uintptr_t>(
        !timeout ? 0 : (milliseconds <= 0 ? 1 : (milliseconds + 999) / 1000));
    if (!SQL_SUCCEEDED(
            SQLSetStmtAttr(statement, SQL_ATTR_QUERY_TIMEOUT, integer_attribute(seconds), 0))) {
        fail(SQL_HANDLE_STMT, statement);
    }
}

// Binds `parameters` to `statement` and runs `execute` (SQLExecDirect or SQLExecute); true when
// it answered SQL_NO_DATA.
template <class Fail, class Execute>
bool bind_and_execute(SQLHSTMT statement, const std::vector<SqlValue>& parameters, const Fail& fail,
                      Execute&& execute) {
    BoundParameters bound(parameters);
    if (!SQL_SUCCEEDED(bound.bind(statement))) {
        fail(SQL_HANDLE_STMT, statement);
    }
    const SQLRETURN rc = execute();
    if (rc != SQL_NO_DATA && !SQL_SUCCEEDED(rc)) {
        fail(SQL_HANDLE_STMT, statement);
    }
    return rc == SQL_NO_DATA;
}

// Allocates a statement, applies the timeout, binds the parameters, runs `sql` and hands the
// statement to `body`, with whether the execution answered SQL_NO_DATA (then no cursor is open).
// `fail(handle_type, handle)` throws the diagnostics of a failed call.
template <class Fail, class Body>
auto run_statement(SQLHDBC connection, std::optional<std::chrono::milliseconds> timeout,
                   std::string_view sql, const std::vector<SqlValue>& parameters, const Fail& fail,
                   Body&& body) {
    if (connection == nullptr) {
        fail(SQL_HANDLE_DBC, nullptr);
    }
    SQLHSTMT handle = nullptr;
    if (!SQL_SUCCEEDED(SQLAllocHandle(SQL_HANDLE_STMT, connection, &handle))) {
        fail(SQL_HANDLE_DBC, connection);
    }
    Statement statement(handle);
    if (timeout) {
        set_timeout(handle, timeout, fail);
    }
    std::string text(sql);
    const bool no_data = bind_and_execute(handle, parameters, fail, [&] {
        return SQLExecDirect(handle, reinterpret_cast<SQLCHAR*>(text.data()),
                             static_cast<SQLINTEGER>(text.size()));
    });
    return body(handle, no_data);
}

}  // namespace

void Connection::apply_session_statement_limit() {
    if (!is_open() || vendor_ != Vendor::MySql || !contains_mariadb(dbms_name_)) {
        return;
    }
    const std::chrono::milliseconds wanted = query_timeout_.value_or(std::chrono::milliseconds{0});
    if (session_statement_limit_ == wanted) {
        return;
    }
    // Whole seconds, as the ODBC query timeout: max_statement_time takes seconds (0: no limit).
    const auto seconds = std::chrono::ceil<std::chrono::seconds>(wanted).count();
    session_statement_limit_ = wanted;
    const std::vector<SqlValue> none;
    const auto on_failure = [this](SQLSMALLINT type, SQLHANDLE handle) {
        session_statement_limit_.reset();
        fail(type, handle, DatabasePhase::Execute);
    };
    run_statement(handle(), std::nullopt,
                  "SET SESSION max_statement_time = " + std::to_string(seconds), none, on_failure,
                  [](SQLHSTMT, bool) { return 0; });
}

namespace {

// The affected row count of an executed statement (-1 when the driver does not know).
std::int64_t row_count(SQLHSTMT statement, bool no_data) {
    if (no_data) {
        return 0;  // a searched UPDATE or DELETE that matched no row
    }
    SQLLEN count = -1;
    if (!SQL_SUCCEEDED(SQLRowCount(statement, &count))) {
        return -1;
    }
    return static_cast<std::int64_t>(count);
}

// Every row of the executed statement's result set as text.
template <class Fail>
std::vector<SqlRow> fetch_rows(SQLHSTMT statement, bool no_data, const Fail& on_failure) {
    std::vector<SqlRow> rows;
    // SQL_NO_DATA from the execution (psqlODBC's answer to an UPDATE ... RETURNING that matched
    // no row) leaves no cursor: asking for columns or rows would be SQLSTATE 24000, invalid
    // cursor state.
    if (no_data) {
        return rows;
    }
    SQLSMALLINT columns = 0;
    if (!SQL_SUCCEEDED(SQLNumResultCols(statement, &columns))) {
        on_failure(SQL_HANDLE_STMT, statement);
    }
    if (columns <= 0) {
        return rows;
    }
    for (;;) {
        const SQLRETURN rc = SQLFetch(statement);
        if (rc == SQL_NO_DATA) {
            break;
        }
        if (!SQL_SUCCEEDED(rc)) {
            on_failure(SQL_HANDLE_STMT, statement);
        }
        SqlRow row;
        row.reserve(static_cast<std::size_t>(columns));
        for (SQLSMALLINT column = 1; column <= columns; ++column) {
            bool ok = true;
            row.push_back(
                detail::read_column_text(statement, static_cast<SQLUSMALLINT>(column), ok));
            if (!ok) {
                on_failure(SQL_HANDLE_STMT, statement);
            }
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

// Runs a prepared statement with `parameters` and hands it to `body` like run_statement; the
// cursor and the parameter bindings are released afterwards, so the statement can run again.
template <class Fail, class Body>
auto run_prepared(SQLHSTMT statement, std::optional<std::chrono::milliseconds> timeout,
                  const std::vector<SqlValue>& parameters, const Fail& fail, Body&& body) {
    struct Release {
        SQLHSTMT statement;
        ~Release() {
            SQLFreeStmt(statement, SQL_CLOSE);
            SQLFreeStmt(statement, SQL_RESET_PARAMS);
        }
    } release{statement};
    set_timeout(statement, timeout, fail);  // also back to none: the statement keeps it
    const bool no_data =
        bind_and_execute(statement, parameters, fail, [&] { return SQLExecute(statement); });
    return body(statement, no_data);
}

}  // namespace

std::int64_t Connection::execute(std::string_view sql, const std::vector<SqlValue>& parameters) {
    apply_session_statement_limit();
    const auto on_failure = [this](SQLSMALLINT type, SQLHANDLE handle) {
        fail(type, handle, DatabasePhase::Execute);
    };
    return run_statement(handle(), query_timeout_, sql, parameters, on_failure, row_count);
}

std::vector<SqlRow> Connection::query(std::string_view sql,
                                      const std::vector<SqlValue>& parameters) {
    apply_session_statement_limit();
    const auto on_failure = [this](SQLSMALLINT type, SQLHANDLE handle) {
        fail(type, handle, DatabasePhase::Execute);
    };
    return run_statement(handle(), query_timeout_, sql, parameters, on_failure,
                         [&](SQLHSTMT statement, bool no_data) {
                             return fetch_rows(statement, no_data, on_failure);
                         });
}

SQLHSTMT Connection::prepared(std::string_view sql) {
    if (SQLHSTMT found = prepared_.find(sql)) {
        return found;
    }
    if (!is_open()) {
        fail(SQL_HANDLE_DBC, nullptr, DatabasePhase::Execute);
    }
    SQLHSTMT statement = SQL_NULL_HSTMT;
    if (!SQL_SUCCEEDED(SQLAllocHandle(SQL_HANDLE_STMT, handle(), &statement))) {
        fail(SQL_HANDLE_DBC, handle(), DatabasePhase::Execute);
    }
    std::string text(sql);
    if (!SQL_SUCCEEDED(SQLPrepare(statement, reinterpret_cast<SQLCHAR*>(text.data()),
                                  static_cast<SQLINTEGER>(text.size())))) {
        const Statement owner(statement);  // freed once the diagnostics are read
        fail(SQL_HANDLE_STMT, statement, DatabasePhase::Execute);
    }
    prepared_.add(std::move(text), statement);
    return statement;
}

template <class Body>
auto Connection::run_prepared_statement(std::string_view sql,
                                        const std::vector<SqlValue>& parameters, Body&& body) {
    apply_session_statement_limit();
    const SQLHSTMT statement = prepared(sql);
    const auto on_failure = [this](SQLSMALLINT type, SQLHANDLE handle) {
        fail(type, handle, DatabasePhase::Execute);
    };
    try {
        return run_prepared(
            statement, query_timeout_, parameters, on_failure,
            [&](SQLHSTMT handle, bool no_data) { return body(handle, no_data, on_failure); });
    } catch (...) {
        prepared_.remove(sql);  // a failed run may leave the statement unusable
        throw;
    }
}

std::int64_t Connection::execute_prepared(std::string_view sql,
                                          const std::vector<SqlValue>& parameters) {
    return run_prepared_statement(sql, parameters,
                                  [](SQLHSTMT statement, bool no_data, const auto&) {
                                      return row_count(statement, no_data);
                                  });
}

std::vector<SqlRow> Connection::query_prepared(std::string_view sql,
                                               const std::vector<SqlValue>& parameters) {
    return run_prepared_statement(sql, parameters,
                                  [](SQLHSTMT statement, bool no_data, const auto& on_failure) {
                                      return fetch_rows(statement, no_data, on_failure);
                                  });
}

void Connection::commit() {
    if (!is_open()) {
        fail(SQL_HANDLE_DBC, nullptr, DatabasePhase::Commit);
    }
    if (!SQL_SUCCEEDED(SQLEndTran(SQL_HANDLE_DBC, handle(), SQL_COMMIT))) {
        fail(SQL_HANDLE_DBC, handle(), DatabasePhase::Commit);
    }
}

void Connection::rollback() {
    if (!is_open()) {
        fail(SQL_HANDLE_DBC, nullptr, DatabasePhase::Rollback);
    }
    if (!SQL_SUCCEEDED(SQLEndTran(SQL_HANDLE_DBC, handle(), SQL_ROLLBACK))) {
        fail(SQL_HANDLE_DBC, handle(), DatabasePhase::Rollback);
    }
}

}  // namespace rebound::odbc

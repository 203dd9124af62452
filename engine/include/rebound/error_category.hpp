// The canonical error categories (docs/categories.md).
//
// One constexpr table holds, for every category, its wire name (used in files, CLI output and
// metrics), whether it is retryable by default, and how much has to be restarted after it. Every
// other piece of Rebound derives names and defaults from this table, never from identifiers.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace rebound {

enum class ErrorCategory : std::uint8_t {
    Deadlock,
    SerializationFailure,
    LockTimeout,
    ConnectionFailure,
    ConnectionLost,
    ResourceExhausted,
    ServiceUnavailable,
    AdminShutdown,
    CircuitOpen,
    StatementTimeout,
    CommitOutcomeUnknown,
    ReadOnlyFailover,
    ConstraintViolation,
    SyntaxError,
    PermissionDenied,
    AuthenticationFailed,
    DataError,
    SystemError,
    ClientError,
    OptimisticConflict,
    PoolExhausted,
    Warning,
    Unknown,
};

// What must be started again after an error of a category.
enum class RestartScope : std::uint8_t { None, Transaction, Connection };

struct CategoryInfo {
    ErrorCategory category;
    std::string_view wire_name;
    bool retryable_by_default;
    RestartScope restart_scope;
};

inline constexpr std::array<CategoryInfo, 23> kCategoryTable{{
    {ErrorCategory::Deadlock, "deadlock", true, RestartScope::Transaction},
    {ErrorCategory::SerializationFailure, "serialization_failure", true, RestartScope::Transaction},
    {ErrorCategory::LockTimeout, "lock_timeout", true, RestartScope::Transaction},
    {ErrorCategory::ConnectionFailure, "connection_failure", true, RestartScope::Connection},
    {ErrorCategory::ConnectionLost, "connection_lost", true, RestartScope::Connection},
    {ErrorCategory::ResourceExhausted, "resource_exhausted", true, RestartScope::Transaction},
    {ErrorCategory::ServiceUnavailable, "service_unavailable", true, RestartScope::Connection},
    {ErrorCategory::AdminShutdown, "admin_shutdown", true, RestartScope::Connection},
    {ErrorCategory::CircuitOpen, "circuit_open", true, RestartScope::None},
    {ErrorCategory::StatementTimeout, "statement_timeout", false, RestartScope::Transaction},
    {ErrorCategory::CommitOutcomeUnknown, "commit_outcome_unknown", false, RestartScope::None},
    {ErrorCategory::ReadOnlyFailover, "read_only_failover", false, RestartScope::Connection},
    {ErrorCategory::ConstraintViolation, "constraint_violation", false, RestartScope::None},
    {ErrorCategory::SyntaxError, "syntax_error", false, RestartScope::None},
    {ErrorCategory::PermissionDenied, "permission_denied", false, RestartScope::None},
    {ErrorCategory::AuthenticationFailed, "authentication_failed", false, RestartScope::None},
    {ErrorCategory::DataError, "data_error", false, RestartScope::None},
    {ErrorCategory::SystemError, "system_error", false, RestartScope::None},
    {ErrorCategory::ClientError, "client_error", false, RestartScope::None},
    {ErrorCategory::OptimisticConflict, "optimistic_conflict", false, RestartScope::None},
    {ErrorCategory::PoolExhausted, "pool_exhausted", false, RestartScope::None},
    {ErrorCategory::Warning, "warning", false, RestartScope::None},
    {ErrorCategory::Unknown, "unknown", false, RestartScope::None},
}};

inline constexpr std::size_t kCategoryCount = kCategoryTable.size();

// The matcher-list group that stands for every category retryable by default.
inline constexpr std::string_view kTransientGroupName = "transient";

constexpr const CategoryInfo& category_info(ErrorCategory c) noexcept {
    return kCategoryTable[static_cast<std::size_t>(c)];
}

constexpr std::string_view to_string(ErrorCategory c) noexcept {
    return category_info(c).wire_name;
}

constexpr bool is_retryable_by_default(ErrorCategory c) noexcept {
    return category_info(c).retryable_by_default;
}

constexpr RestartScope restart_scope(ErrorCategory c) noexcept {
    return category_info(c).restart_scope;
}

constexpr std::string_view to_string(RestartScope s) noexcept {
    switch (s) {
        case RestartScope::Transaction:
            return "transaction";
        case RestartScope::Connection:
            return "connection";
        case RestartScope::None:
            break;
    }
    return "none";
}

// The category with this wire name, or nullopt. `transient` is a group, not a category.
constexpr std::optional<ErrorCategory> parse_category(std::string_view wire_name) noexcept {
    for (const CategoryInfo& info : kCategoryTable) {
        if (info.wire_name == wire_name) {
            return info.category;
        }
    }
    return std::nullopt;
}

// The table is indexed by enumerator value; keep the two in step.
static_assert([] {
    for (std::size_t i = 0; i < kCategoryTable.size(); ++i) {
        if (static_cast<std::size_t>(kCategoryTable[i].category) != i) {
            return false;
        }
    }
    return kCategoryTable.back().category == ErrorCategory::Unknown;
}());

}  // namespace rebound

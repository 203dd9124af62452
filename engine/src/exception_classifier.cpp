#include "rebound/exception_classifier.hpp"

#include <array>
#include <stdexcept>
#include <utility>

#include "rebound/error_type_registry.hpp"

namespace rebound {
namespace {

struct ErrcCategory {
    std::errc errc;
    ErrorCategory category;
};

// std::errc values with a clear meaning for retrying; every other code is `system_error`.
constexpr std::array<ErrcCategory, 20> kErrcCategories{{
    {std::errc::connection_refused, ErrorCategory::ConnectionFailure},
    {std::errc::network_unreachable, ErrorCategory::ConnectionFailure},
    {std::errc::host_unreachable, ErrorCategory::ConnectionFailure},
    {std::errc::network_down, ErrorCategory::ConnectionFailure},
    {std::errc::address_not_available, ErrorCategory::ConnectionFailure},
    {std::errc::connection_reset, ErrorCategory::ConnectionLost},
    {std::errc::connection_aborted, ErrorCategory::ConnectionLost},
    {std::errc::broken_pipe, ErrorCategory::ConnectionLost},
    {std::errc::not_connected, ErrorCategory::ConnectionLost},
    {std::errc::network_reset, ErrorCategory::ConnectionLost},
    {std::errc::resource_unavailable_try_again, ErrorCategory::ResourceExhausted},
    {std::errc::not_enough_memory, ErrorCategory::ResourceExhausted},
    {std::errc::no_buffer_space, ErrorCategory::ResourceExhausted},
    {std::errc::too_many_files_open, ErrorCategory::ResourceExhausted},
    {std::errc::too_many_files_open_in_system, ErrorCategory::ResourceExhausted},
    {std::errc::device_or_resource_busy, ErrorCategory::ResourceExhausted},
    {std::errc::timed_out, ErrorCategory::StatementTimeout},
    {std::errc::permission_denied, ErrorCategory::PermissionDenied},
    {std::errc::operation_not_permitted, ErrorCategory::PermissionDenied},
    {std::errc::invalid_argument, ErrorCategory::ClientError},
}};

}  // namespace

ExceptionClassifier::ExceptionClassifier() {
    insert(make_entry<Error>("", std::nullopt, EntryKind::ReboundError));
    insert(make_entry<std::system_error>("", std::nullopt, EntryKind::SystemError));
}

const ExceptionClassifier& ExceptionClassifier::builtin() noexcept {
    static const ExceptionClassifier classifier;
    return classifier;
}

void ExceptionClassifier::insert(Entry entry) {
    if (entry.kind == EntryKind::Registered && !is_valid_name(entry.type_name)) {
        throw std::invalid_argument("exception type name '" + entry.type_name +
                                    "' is not a valid name");
    }
    // The first entry whose type the new one derives from: the new entry goes right before it,
    // which keeps every type ahead of its bases (entries deriving from the new type are already
    // ahead of that position, since they derive from the same base).
    auto position = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        const Entry& existing = **it;
        const bool new_derives_from_existing = existing.catches_pointer(entry.throw_pointer);
        if (new_derives_from_existing && entry.catches_pointer(existing.throw_pointer)) {
            throw std::invalid_argument(
                "exception type for '" + entry.type_name + "' is already registered" +
                (existing.type_name.empty() ? std::string(" (built in)")
                                            : " as '" + existing.type_name + "'"));
        }
        if (new_derives_from_existing && position == entries_.end()) {
            position = it;
        }
    }
    entries_.insert(position, std::make_unique<const Entry>(std::move(entry)));
}

void ExceptionClassifier::add_error_condition(std::error_condition condition,
                                              std::string_view type_name,
                                              std::optional<ErrorCategory> category) {
    if (!is_valid_name(type_name)) {
        throw std::invalid_argument("error type name '" + std::string(type_name) +
                                    "' is not a valid name");
    }
    conditions_.push_back(std::make_unique<const ConditionEntry>(
        ConditionEntry{condition, std::string(type_name), category}));
}

ErrorDescription ExceptionClassifier::describe_error_code(
    const std::error_code& code) const noexcept {
    ErrorDescription description;
    for (const auto& entry : conditions_) {
        if (code == entry->condition) {
            description.error_type = entry->type_name;
            description.category = entry->category;
            return description;
        }
    }
    description.category = ErrorCategory::SystemError;
    for (const ErrcCategory& known : kErrcCategories) {
        if (code == known.errc) {
            description.category = known.category;
            break;
        }
    }
    return description;
}

ErrorDescription ExceptionClassifier::describe_current() const noexcept {
    const Error* carrier = nullptr;
    return describe_current(&carrier);
}

ErrorDescription ExceptionClassifier::describe_current(const Error** carrier) const noexcept {
    const std::type_info* unmatched = nullptr;
    return describe_current(carrier, &unmatched);
}

ErrorDescription ExceptionClassifier::describe_current(
    const Error** carrier, const std::type_info** unmatched) const noexcept {
    *carrier = nullptr;
    *unmatched = nullptr;
    for (const auto& entry : entries_) {
        if (auto description = entry->describe(*entry, *this, carrier)) {
            return *description;
        }
    }
    try {
        throw;
    } catch (const std::exception& exception) {
        *unmatched = &typeid(exception);
        ErrorDescription description;
        description.message = exception.what();
        return description;
    } catch (...) {
        *unmatched = &typeid(void);
        return ErrorDescription{};
    }
}

}  // namespace rebound

// ExceptionClassifier: how an exception thrown by work becomes an ErrorDescription.
//
// An explicit registration point, filled at start-up and then shared const by executors:
//
//   rebound::ExceptionClassifier exceptions;
//   exceptions.add<PaymentGatewayTimeout>("payments.gateway_timeout");
//   exceptions.add<std::bad_alloc>("system.out_of_memory",
//   rebound::ErrorCategory::ResourceExhausted);
//   exceptions.add_error_condition(std::errc::device_or_resource_busy, "io.busy",
//                                  rebound::ErrorCategory::ResourceExhausted);
//
// A thrown exception matches a registered type when it is that type or derives from it; when
// several registered types match, the most derived one wins, whatever the order of registration.
// Two types are built in and take part in the same rule: `rebound::Error` (its own description)
// and `std::system_error` (by its error code: registered error conditions first, then a built-in
// table from std::errc to categories, else `system_error`). So a type registered for
// std::runtime_error catches neither of them, but one registered for a class derived from
// std::system_error does. An exception matching nothing has no category (it counts as `unknown`),
// message what() if any; an executor reports its type to its listeners once
// (RetryListener::on_unclassified_exception).
//
// Thread safety: `add*` must not run concurrently with anything else; `describe_current` is const
// and safe from many threads.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "rebound/error.hpp"
#include "rebound/error_exception.hpp"

namespace rebound {

class ExceptionClassifier {
  public:
    ExceptionClassifier();
    ExceptionClassifier(const ExceptionClassifier&) = delete;
    ExceptionClassifier& operator=(const ExceptionClassifier&) = delete;

    // Maps exceptions of class type `E` (and of types derived from it) to the error type
    // `type_name`, and to `category` when given. Throws std::invalid_argument when `type_name`
    // is not a valid name or `E` is already registered.
    template <typename E>
    void add(std::string_view type_name, std::optional<ErrorCategory> category = std::nullopt) {
        static_assert(std::is_class_v<E>, "only class types can be registered");
        insert(make_entry<std::remove_cv_t<E>>(type_name, category, EntryKind::Registered));
    }

    // Maps a std::system_error whose code is equivalent to `condition` to `type_name` and
    // `category`. The first registered condition that matches wins.
    void add_error_condition(std::error_condition condition, std::string_view type_name,
                             std::optional<ErrorCategory> category = std::nullopt);

    // Describes the exception being handled. Precondition: called inside a catch block. The
    // text of the result views the exception object (keep it alive, e.g. with
    // std::current_exception()) and this classifier. Never throws.
    ErrorDescription describe_current() const noexcept;
    // The same, and sets `*carrier` to the exception when it is a rebound::Error (or derives
    // from one), else to null: a Failure refers to the description such an Error carries rather
    // than copying it (failure.hpp).
    ErrorDescription describe_current(const Error** carrier) const noexcept;
    // The same, and sets `*unmatched` to the type of an exception that no registered or built-in
    // type matched (its dynamic type when it derives from std::exception, else typeid(void)),
    // else to null.
    ErrorDescription describe_current(const Error** carrier,
                                      const std::type_info** unmatched) const noexcept;

    // The description of a std::system_error's code (registered conditions, then std::errc).
    ErrorDescription describe_error_code(const std::error_code& code) const noexcept;

    // The process-wide classifier with only the built-in types; for executors given none.
    static const ExceptionClassifier& builtin() noexcept;

  private:
    enum class EntryKind { Registered, ReboundError, SystemError };

    struct Entry {
        std::string type_name;
        std::optional<ErrorCategory> category;
        EntryKind kind = EntryKind::Registered;
        // Each called while an exception is handled (or, for throw_pointer, to test the class
        // hierarchy at registration): these carry the static type E of the entry.
        std::optional<ErrorDescription> (*describe)(const Entry&, const ExceptionClassifier&,
                                                    const Error** carrier) = nullptr;
        void (*throw_pointer)() = nullptr;
        bool (*catches_pointer)(void (*thrower)()) = nullptr;
    };

    struct ConditionEntry {
        std::error_condition condition;
        std::string type_name;
        std::optional<ErrorCategory> category;
    };

    template <typename E>
    static std::optional<ErrorDescription> describe_as(const Entry& entry,
                                                       const ExceptionClassifier& self,
                                                       const Error** carrier) noexcept {
        try {
            throw;
        } catch (const E& exception) {
            if constexpr (std::is_base_of_v<Error, E>) {
                *carrier = &exception;
            }
            return describe_object(entry, self, exception);
        } catch (...) {
            return std::nullopt;
        }
    }

    template <typename E>
    static ErrorDescription describe_object(const Entry& entry, const ExceptionClassifier& self,
                                            const E& exception) noexcept {
        ErrorDescription description;
        if constexpr (std::is_base_of_v<Error, E>) {
            description = exception.description();
        } else if constexpr (std::is_base_of_v<std::system_error, E>) {
            description = self.describe_error_code(exception.code());
            description.message = exception.what();
        } else if constexpr (std::is_base_of_v<std::exception, E>) {
            description.message = exception.what();
        }
        if (entry.kind == EntryKind::Registered) {
            description.error_type = entry.type_name;
            if (entry.category) {
                description.category = entry.category;
            }
        }
        return description;
    }

    template <typename E>
    static Entry make_entry(std::string_view type_name, std::optional<ErrorCategory> category,
                            EntryKind kind) {
        Entry entry;
        entry.type_name = std::string(type_name);
        entry.category = category;
        entry.kind = kind;
        entry.describe = &describe_as<E>;
        entry.throw_pointer = [] { throw static_cast<const E*>(nullptr); };
        entry.catches_pointer = [](void (*thrower)()) {
            try {
                thrower();
            } catch (const E*) {
                return true;
            } catch (...) {
            }
            return false;
        };
        return entry;
    }

    // Keeps `entries_` ordered so that a type comes before every type it derives from.
    void insert(Entry entry);

    std::vector<std::unique_ptr<const Entry>> entries_;
    std::vector<std::unique_ptr<const ConditionEntry>> conditions_;
};

}  // namespace rebound

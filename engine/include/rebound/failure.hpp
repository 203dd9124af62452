// Failure: one failed attempt as the executor keeps it (the run's last error).
//
// It owns what its description's text views: the thrown exception (held by std::exception_ptr)
// or the returned Error value (whose text is shared by every copy). Copying a Failure never
// allocates and its description stays valid as long as the copy lives, provided the text that
// classification added (error type names, hook results) lives in the exception, the Error, or
// the classifiers, which must outlive the Failure.
#pragma once

#include <exception>
#include <optional>

#include "rebound/error.hpp"
#include "rebound/error_exception.hpp"

namespace rebound {

class Failure {
  public:
    Failure() = default;
    static Failure thrown(std::exception_ptr exception, const ErrorDescription& description) {
        Failure failure;
        failure.exception_ = std::move(exception);
        failure.description_ = description;
        return failure;
    }
    static Failure returned(Error error, const ErrorDescription& description) {
        Failure failure;
        failure.value_.emplace(std::move(error));
        failure.description_ = description;
        return failure;
    }

    const ErrorDescription& description() const noexcept { return description_; }
    // The exception thrown by the work; null when the work returned its error.
    const std::exception_ptr& exception() const noexcept { return exception_; }
    // The Error returned by the work; empty when the work threw.
    const std::optional<Error>& value() const noexcept { return value_; }

    // Throws the original exception, or the returned Error.
    [[noreturn]] void rethrow() const {
        if (exception_) {
            std::rethrow_exception(exception_);
        }
        if (value_) {
            throw *value_;
        }
        throw Error(description_);
    }

  private:
    std::exception_ptr exception_;
    std::optional<Error> value_;
    ErrorDescription description_;
};

}  // namespace rebound

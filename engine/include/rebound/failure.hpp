// Failure: one failed attempt as the executor keeps it (the run's last error), or no failure.
//
// It owns what its description's text views: the thrown exception (held by std::exception_ptr)
// or the returned Error value (whose text is shared by every copy). Copying a Failure never
// allocates and its description stays valid as long as the copy lives, provided the text that
// classification added (error type names, hook results) lives in the exception, the Error, or
// the classifiers, which must outlive the Failure.
//
// Compact (32 bytes) because every run keeps one, and a waiting asynchronous run keeps it in
// each place its result has room (docs/async.md, Cost): a Failure does not copy a description
// that its rebound::Error already carries (a returned Error, or a thrown one, that no classifier
// changed), it refers to it. A description the error does not carry (an exception of another
// type, or one a FailureClassifier changed) is kept in one shared block, allocated when the
// Failure is made and shared by its copies.
//
// An empty Failure (no failure: RunResult::last_error after a first attempt that succeeded)
// tests false. operator-> and operator* give the Failure itself, so that code reads as it would
// with std::optional<Failure>: `if (r.last_error) use(r.last_error->description());`.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <utility>

#include "rebound/error.hpp"
#include "rebound/error_exception.hpp"

namespace rebound {

class Failure {
  public:
    Failure() noexcept {}  // NOLINT(modernize-use-equals-default): the union has no default
    Failure(const Failure& other) noexcept { copy_from(other); }
    Failure(Failure&& other) noexcept { move_from(std::move(other)); }
    Failure& operator=(const Failure& other) noexcept {
        if (this != &other) {
            destroy();
            copy_from(other);
        }
        return *this;
    }
    Failure& operator=(Failure&& other) noexcept {
        if (this != &other) {
            destroy();
            move_from(std::move(other));
        }
        return *this;
    }
    ~Failure() { destroy(); }

    // The work threw `exception`, described as `description`. `carrier` is the rebound::Error
    // the exception is (or derives from), if any: when `description` is the one it carries, the
    // Failure refers to it; otherwise it keeps a copy in a shared block. Should that allocation
    // fail, the Failure is described as the carrier, or, without one, by an empty description
    // (category unknown).
    static Failure thrown(std::exception_ptr exception, const ErrorDescription& description,
                          const Error* carrier = nullptr) noexcept;
    // The work returned `error`, described as `description` (its own, unless a classifier
    // changed it: a changed description is kept in a shared block; should that allocation fail,
    // the Failure is described by the Error's own description).
    static Failure returned(Error error, const ErrorDescription& description) noexcept;
    // The work returned `error`, described by its own description.
    static Failure returned(Error error) noexcept {
        Failure failure;
        ::new (&failure.value_) Error(std::move(error));
        failure.kind_ = Kind::Returned;
        return failure;
    }

    // Whether this is a failure (false for an empty one).
    explicit operator bool() const noexcept { return kind_ != Kind::None; }
    bool has_value() const noexcept { return kind_ != Kind::None; }
    const Failure* operator->() const noexcept { return this; }
    const Failure& operator*() const noexcept { return *this; }

    // The description (an empty one for an empty Failure).
    const ErrorDescription& description() const noexcept;
    // The exception thrown by the work; null when the work returned its error.
    std::exception_ptr exception() const noexcept {
        return kind_ == Kind::Thrown ? thrown_.exception : std::exception_ptr{};
    }
    // The Error returned by the work; null when the work threw.
    const Error* value() const noexcept;

    // Throws the original exception, or the returned Error (an empty Failure throws an Error of
    // its empty description).
    [[noreturn]] void rethrow() const;

  private:
    enum class Kind : std::uint8_t {
        None,
        Thrown,    // thrown_
        Returned,  // value_, described by its own description
        Changed,   // changed_: a returned Error with a description of its own
    };
    struct Thrown {
        std::exception_ptr exception;
        // A copy of its own, or the carrier's (not owning: the exception keeps it).
        std::shared_ptr<const ErrorDescription> description;
    };
    struct Changed {
        Error value;
        ErrorDescription description;
    };

    // Inline for the empty Failure (a run that succeeded at once builds, moves and destroys one).
    void copy_from(const Failure& other) noexcept {
        if (other.kind_ != Kind::None) {
            copy_engaged(other);
        }
    }
    void move_from(Failure&& other) noexcept {
        if (other.kind_ != Kind::None) {
            move_engaged(std::move(other));
        }
    }
    void destroy() noexcept {
        if (kind_ != Kind::None) {
            destroy_engaged();
        }
    }
    void copy_engaged(const Failure& other) noexcept;
    void move_engaged(Failure&& other) noexcept;
    void destroy_engaged() noexcept;

    union {
        Thrown thrown_;
        Error value_;
        std::shared_ptr<const Changed> changed_;
    };
    Kind kind_ = Kind::None;
};

}  // namespace rebound

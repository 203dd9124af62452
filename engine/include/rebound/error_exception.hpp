// Error: an owning, throwable error description for work run by the executor.
//
// Work reports a failure either by throwing an Error or by returning one (see retry_executor.hpp).
// Unlike ErrorDescription, which only borrows its text, an Error owns it in one immutable block
// shared by every copy, so copying or moving an Error never allocates and the ErrorDescription it
// hands out stays valid for as long as any copy of the Error lives. Making one allocates that
// block, and its text when longer than a std::string holds inline; what() views it too (the
// std::runtime_error base holds no text of its own). Small (24 bytes), since a run keeps its last
// error and a waiting asynchronous run room for it in several places (failure.hpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "rebound/error.hpp"

namespace rebound {

class Error : public std::runtime_error {
  public:
    // Copies every text field of `description`; what() is its message, or the category's wire
    // name when the message is empty.
    explicit Error(const ErrorDescription& description);
    // Shorthand for an error of one category with a message.
    Error(ErrorCategory category, std::string_view message);

    // Copies share the block. A move copies too (one atomic increment), so that an Error moved
    // from stays whole: its what() and description() still read the text.
    Error(const Error& other) noexcept : std::runtime_error(other), payload_(other.payload_) {
        payload_->references.fetch_add(1, std::memory_order_relaxed);
    }
    Error(Error&& other) noexcept
        : std::runtime_error(static_cast<std::runtime_error&&>(other)), payload_(other.payload_) {
        payload_->references.fetch_add(1, std::memory_order_relaxed);
    }
    Error& operator=(const Error& other) noexcept {
        Error copy(other);
        swap(copy);
        return *this;
    }
    Error& operator=(Error&& other) noexcept { return *this = static_cast<const Error&>(other); }
    ~Error() override { release(payload_); }

    const char* what() const noexcept override { return payload_->what; }

    // The description, with text viewing this error's shared storage (valid while any copy of
    // this Error lives).
    const ErrorDescription& description() const noexcept { return payload_->description; }

  private:
    struct Payload {
        mutable std::atomic<std::size_t> references{1};
        ErrorDescription description;
        const char* what = "";
        // what() (the message or the category's name) with its terminator, then the SQLSTATE
        // and the error type: the text the description views.
        std::string text;
    };
    static Payload* make_payload(const ErrorDescription& description);
    static void release(const Payload* payload) noexcept;
    void swap(Error& other) noexcept {
        const Payload* const mine = payload_;
        payload_ = other.payload_;
        other.payload_ = mine;
    }

    const Payload* payload_;
};

}  // namespace rebound

// Error: an owning, throwable error description for work run by the executor.
//
// Work reports a failure either by throwing an Error or by returning one (see retry_executor.hpp).
// Unlike ErrorDescription, which only borrows its text, an Error owns it in one immutable block
// shared by every copy, so copying or moving an Error never allocates and the ErrorDescription it
// hands out stays valid for as long as any copy of the Error lives.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "rebound/error.hpp"

namespace rebound {

class Error : public std::runtime_error {
  public:
    // Copies every text field of `description`; what() is its message, or the category's wire
    // name when the message is empty.
    explicit Error(const ErrorDescription& description);
    // Shorthand for an error of one category with a message.
    Error(ErrorCategory category, std::string_view message);

    // The description, with text viewing this error's shared storage (valid while any copy of
    // this Error lives).
    const ErrorDescription& description() const noexcept { return payload_->description; }

  private:
    struct Payload {
        std::string sqlstate;
        std::string error_type;
        std::string message;
        ErrorDescription description;
    };
    static std::shared_ptr<const Payload> make_payload(const ErrorDescription& description);
    static std::string what_text(const ErrorDescription& description);

    std::shared_ptr<const Payload> payload_;
};

}  // namespace rebound

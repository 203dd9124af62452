#include "rebound/error_exception.hpp"

namespace rebound {

Error::Error(const ErrorDescription& description)
    : std::runtime_error(what_text(description)), payload_(make_payload(description)) {}

Error::Error(ErrorCategory category, std::string_view message)
    : Error([&] {
          ErrorDescription description = ErrorDescription::of(category);
          description.message = message;
          return description;
      }()) {}

std::string Error::what_text(const ErrorDescription& description) {
    if (!description.message.empty()) {
        return std::string(description.message);
    }
    return std::string(to_string(description.effective_category()));
}

std::shared_ptr<const Error::Payload> Error::make_payload(const ErrorDescription& description) {
    auto payload = std::make_shared<Payload>();
    payload->sqlstate = description.sqlstate;
    payload->error_type = description.error_type;
    payload->message = description.message;
    payload->description = description;
    payload->description.sqlstate = payload->sqlstate;
    payload->description.error_type = payload->error_type;
    payload->description.message = payload->message;
    return payload;
}

}  // namespace rebound

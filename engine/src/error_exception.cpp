#include "rebound/error_exception.hpp"

#include <memory>

namespace rebound {

// The base holds no text (an empty libstdc++ string shares a static representation, so making
// it does not allocate): what() is overridden to view the payload.
Error::Error(const ErrorDescription& description)
    : std::runtime_error(""), payload_(make_payload(description)) {}

Error::Error(ErrorCategory category, std::string_view message)
    : Error([&] {
          ErrorDescription description = ErrorDescription::of(category);
          description.message = message;
          return description;
      }()) {}

Error::Payload* Error::make_payload(const ErrorDescription& description) {
    const std::string_view what = !description.message.empty()
                                      ? description.message
                                      : to_string(description.effective_category());
    // Owned until complete, so that a throwing allocation of the text does not leak it.
    auto payload = std::make_unique<Payload>();
    payload->description = description;
    std::string& text = payload->text;
    text.reserve(what.size() + 1 + description.sqlstate.size() + description.error_type.size());
    text.append(what).push_back('\0');
    text.append(description.sqlstate).append(description.error_type);
    // The views are taken once the text is complete: it does not move again.
    const char* const base = text.data();
    payload->what = base;
    std::size_t at = what.size() + 1;
    payload->description.message =
        description.message.empty() ? std::string_view{} : std::string_view(base, what.size());
    payload->description.sqlstate = std::string_view(base + at, description.sqlstate.size());
    at += description.sqlstate.size();
    payload->description.error_type = std::string_view(base + at, description.error_type.size());
    return payload.release();
}

void Error::release(const Payload* payload) noexcept {
    if (payload != nullptr && payload->references.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        delete payload;
    }
}

}  // namespace rebound

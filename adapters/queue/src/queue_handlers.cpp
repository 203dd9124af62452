#include "rebound/queue/queue_handlers.hpp"

namespace rebound::queue {

void QueueHandlers::add(HandlerRegistration registration, HandlerFunction function,
                        Completion completion) {
    if (!function) {
        throw HandlerRegistrationError("handler '" + registration.name + "': no function given");
    }
    std::string name = registration.name;
    registry_.add(std::move(registration));
    completions_.emplace(name, completion);
    functions_.emplace(std::move(name), std::move(function));
}

const HandlerFunction* QueueHandlers::find(std::string_view handler) const noexcept {
    const auto found = functions_.find(std::string(handler));
    return found == functions_.end() ? nullptr : &found->second;
}

Completion QueueHandlers::completion(std::string_view handler) const noexcept {
    const auto found = completions_.find(std::string(handler));
    return found == completions_.end() ? Completion::WithHandlerWrites : found->second;
}

std::vector<std::string> QueueHandlers::names() const {
    std::vector<std::string> names;
    for (std::string_view name : registry_.names()) {
        names.emplace_back(name);
    }
    return names;
}

}  // namespace rebound::queue

// QueueHandlers: the handlers a worker pool runs, registered the annotation-like way
// (handler_registry.hpp), each with the function that processes one delivery.
//
//   struct OrderPlaced {
//       REBOUND_HANDLER("order.placed", "background");
//       void operator()(rebound::queue::Delivery& delivery) const;  // throws to fail
//   };
//   rebound::queue::QueueHandlers handlers;
//   handlers.add(OrderPlaced{});
//
// A handler fails its attempt by throwing: an odbc::DatabaseError (classified by the vendor
// maps), a rebound::Error, or any exception the ExceptionClassifier describes (unknown ones are
// `unknown`, not retried). It succeeds by returning. Fill it at start-up, then hand it to a
// WorkerPool; it is read-only from then on.
#pragma once

#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rebound/handler_registry.hpp"
#include "rebound/odbc/connection.hpp"
#include "rebound/queue/message.hpp"

namespace rebound::queue {

// What a handler gets for one attempt. `connection` is the worker's, inside the transaction that
// also marks the message done: writes made through it commit with the completion or not at all
// (the completion is written first, so the message's own row already reads `done` there). The
// handler must not commit or roll back itself.
struct Delivery {
    const Message& message;
    odbc::Connection& connection;
    std::stop_token stop;  // the pool is stopping; a long handler may give up (it then fails)
};

using HandlerFunction = std::function<void(Delivery&)>;

class QueueHandlers {
  public:
    // Registers `handler` under its REBOUND_HANDLER name and tier (and retry_policy() or
    // rebound_idempotent when it declares them). Throws HandlerRegistrationError like
    // HandlerRegistry::add.
    template <handler_traits::HasName Handler>
    void add(Handler handler) {
        registry_.add<Handler>();
        functions_.emplace(std::string(std::string_view(Handler::rebound_handler_name)),
                           HandlerFunction(std::move(handler)));
    }
    // The explicit form.
    void add(HandlerRegistration registration, HandlerFunction function);

    const HandlerRegistry& registry() const noexcept { return registry_; }
    // The function of `handler`, or null.
    const HandlerFunction* find(std::string_view handler) const noexcept;
    // In registration order.
    std::vector<std::string> names() const;

  private:
    HandlerRegistry registry_;
    std::unordered_map<std::string, HandlerFunction> functions_;
};

}  // namespace rebound::queue

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

// How a handler's successes are committed (docs/queue.md, "Grouped completion").
enum class Completion {
    // One transaction per attempt: the completion, then the handler's writes through
    // `Delivery::connection`, commit together or not at all (the effect is exactly once).
    WithHandlerWrites,
    // The handler writes nothing through `Delivery::connection` (its effect is elsewhere and
    // idempotent, or there is none): the completions of one claim's successes are written in one
    // statement after the handlers ran, committed with the worker's next claim (or before an
    // attempt of a WithHandlerWrites handler, or when the pool stops). Delivery stays at least
    // once; a worker that dies before that commit has the whole claim delivered again.
    Grouped,
};

class QueueHandlers {
  public:
    // Registers `handler` under its REBOUND_HANDLER name and tier (and retry_policy() or
    // rebound_idempotent when it declares them). Throws HandlerRegistrationError like
    // HandlerRegistry::add.
    template <handler_traits::HasName Handler>
    void add(Handler handler, Completion completion = Completion::WithHandlerWrites) {
        registry_.add<Handler>();
        std::string name{std::string_view(Handler::rebound_handler_name)};
        completions_.emplace(name, completion);
        functions_.emplace(std::move(name), HandlerFunction(std::move(handler)));
    }
    // The explicit form.
    void add(HandlerRegistration registration, HandlerFunction function,
             Completion completion = Completion::WithHandlerWrites);

    const HandlerRegistry& registry() const noexcept { return registry_; }
    // The function of `handler`, or null.
    const HandlerFunction* find(std::string_view handler) const noexcept;
    // How `handler` commits its successes; WithHandlerWrites for an unknown name.
    Completion completion(std::string_view handler) const noexcept;
    // In registration order.
    std::vector<std::string> names() const;

  private:
    HandlerRegistry registry_;
    std::unordered_map<std::string, HandlerFunction> functions_;
    std::unordered_map<std::string, Completion> completions_;
};

}  // namespace rebound::queue

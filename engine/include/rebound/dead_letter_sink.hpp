// DeadLetterSink: where the executor hands work that a policy with `on_exhausted: dead_letter`
// gave up on after its last attempt (docs/policy-format.md, on_exhausted).
#pragma once

#include <any>
#include <string_view>

#include "rebound/failure.hpp"

namespace rebound {

struct DeadLetter {
    std::string_view handler;
    std::string_view command_id;  // empty when the caller gave none
    std::string_view policy;
    int attempts = 0;
    const Failure& error;  // the last error
    const std::any& item;  // the work item the caller passed in RunOptions::item (may be empty)
};

class DeadLetterSink {
  public:
    virtual ~DeadLetterSink() = default;
    // Takes the letter (copy what must outlive the call). Returns false when it could not keep
    // it; the run then ends `exhausted` instead of `dead_lettered`. May be called from many
    // threads at once. An exception propagates out of the executor's run.
    virtual bool accept(const DeadLetter& letter) = 0;
};

}  // namespace rebound

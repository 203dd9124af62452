// Whether this compiler may be given the asynchronous calls' options written in place, braced,
// inside a co_await expression (docs/async.md):
//
//   co_await executor.run(policy, work, asio::use_awaitable, {.command_id = id, .stop = token});
//
// The library takes such options (and requests and policies) by value into the coroutine frame,
// so it keeps no reference to the caller's temporary. GCC 12 (12.2.0 checked) miscompiles the
// caller instead: a member of a braced temporary in a co_await expression is built as a
// temporary of its own, copied bit by bit into the aggregate and then destroyed twice, so a
// std::stop_token's shared state loses one reference too many (heap-use-after-free under ASan)
// whatever the callee's parameter type (by value, const&, && or a template: all fail). Clang 14
// compiles it correctly. Built with GCC 12, the tests that show the braced form pass the options
// as a named variable moved in, the form docs/async.md gives for that compiler.
#pragma once

// Defined on the command line (-DREBOUND_BRACED_CO_AWAIT_ARGUMENTS=1), it forces the braced form,
// to see the compiler's fault under ASan.
#ifndef REBOUND_BRACED_CO_AWAIT_ARGUMENTS
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#define REBOUND_BRACED_CO_AWAIT_ARGUMENTS 0
#else
#define REBOUND_BRACED_CO_AWAIT_ARGUMENTS 1
#endif
#endif

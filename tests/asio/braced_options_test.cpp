// The asynchronous executor given its RunOptions written in place inside a co_await expression,
// as docs/async.md shows the call (tests/support/braced_co_await.hpp: with GCC 12 the options are
// a named variable moved in, since that compiler destroys the braced temporary twice).
#include <catch2/catch.hpp>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/error.hpp>
#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <optional>
#include <stop_token>
#include <string>
#include <system_error>
#include <vector>

#include "braced_co_await.hpp"
#include "rebound/asio.hpp"
#include "rebound/testing.hpp"

using namespace std::chrono_literals;

TEST_CASE("a run awaited with its options written in the call keeps no reference to them",
          "[asio][braced]") {
    asio::io_context io;
    rebound::testing::ManualClock clock;
    rebound::asio::VirtualTime time(clock);
    const rebound::asio::RetryExecutor executor({.clock = &clock}, &time);
    const auto policy = rebound::PolicyBuilder("p")
                            .max_attempts(3)
                            .backoff(rebound::Backoff::fixed(10ms))
                            .jitter(rebound::Jitter::none())
                            .retry_on(rebound::Matcher::transient())
                            .build();
    std::stop_source source;
    std::string seen_command_id;
    int calls = 0;
    const auto work = [&](const rebound::AttemptInfo& info) -> asio::awaitable<int> {
        seen_command_id = std::string(info.command_id);
        if (++calls == 1) {
            throw std::system_error(asio::error::connection_reset);
        }
        co_return 7;
    };
    std::optional<rebound::asio::Result<int>> result;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            const std::string id = "cmd-7";
#if REBOUND_BRACED_CO_AWAIT_ARGUMENTS
            result = co_await executor.run(policy, work, asio::use_awaitable,
                                           {.command_id = id, .stop = source.get_token()});
#else
            rebound::RunOptions options{.command_id = id, .stop = source.get_token()};
            result = co_await executor.run(policy, work, asio::use_awaitable, std::move(options));
#endif
        },
        asio::detached);
    io.run();
    REQUIRE(result.has_value());
    CHECK(result->succeeded());
    CHECK(result->attempts == 2);
    CHECK(result->value == 7);
    CHECK(seen_command_id == "cmd-7");
    CHECK(time.delays() == std::vector<rebound::Duration>{10ms});
    // The token's shared state still belongs to the source: one reference too few would have
    // freed it with the run's copy.
    source.request_stop();
    CHECK(source.stop_requested());
}
